import Foundation
import Understudy

/// `/__admin/hazards`: every hazard in an `<img>` beside its expected image, with its summary
/// and correct behaviour. The browser that opens the page is the client under test: its
/// script (`hazards.js`) draws each loaded image and its expected one on a canvas, compares
/// them, and marks the hazard's element `data-verdict="pass"` or `"fail"` with a badge.
/// Bombs and heavy animations load only on a click.
enum HazardGallery {
    /// What a correct browser does with a hazard, as the page's script judges it.
    enum Outcome: String {
        /// Shows pixels: compared with the expected image.
        case pixels
        /// Refuses to show an image: `error` passes, `load` fails.
        case error
        /// Can only be judged over several requests or by a person: no verdict.
        case none
    }

    static func outcome(of hazard: Hazard) -> Outcome {
        if hazard.hasExpectedImage { return .pixels }
        switch hazard {
        case .html200, .captivePortal, .gzipUnlabelled, .empty200, .lengthLongerThanBody, .notModifiedWithoutValidator:
            return .error
        default:
            return .none
        }
    }

    /// Loaded only when asked: each can take a browser's memory or time.
    static func loadsOnClick(_ hazard: Hazard) -> Bool {
        [.bombPNG, .bombJPEG, .bombGIF, .bombWebP, .animationHeavyGIF, .animationHeavyWebP].contains(hazard)
    }

    /// The page, with the hazards served under `mount` (`understudy serve --hazards`).
    static func page(mount: String = "/hazards") -> Data {
        var html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Understudy: image hazards</title>
        <link rel="stylesheet" href="/__admin/dashboard.css">
        <script src="/__admin/hazards.js" defer></script>
        </head>
        <body>
        <header><h1>Image hazards</h1> <a href="/__admin/">dashboard</a></header>
        <p class="note">Each hazard is loaded by this browser and compared on a canvas with what a correct client shows.
        The hazards are served under <code>\(escape(mount))/</code> (<code>understudy serve --hazards</code>).</p>
        <main id="hazards">

        """
        for hazard in Hazard.allCases {
            let path = hazard.path(under: mount)
            let outcome = outcome(of: hazard)
            let source = loadsOnClick(hazard) ? "data-src=\"\(escape(path))\"" : "src=\"\(escape(path))\""
            // An animation played once is judged by its last frame: after it has played.
            let settle = [.animationPartialFrames, .animationPartialFramesGIF].contains(hazard) ? " data-settle=\"1500\"" : ""
            html += "<section class=\"hazard\" data-hazard=\"\(hazard.name)\" data-group=\"\(hazard.group)\" data-outcome=\"\(outcome.rawValue)\"\(settle)>\n"
            html += "  <h3>\(hazard.name) <span class=\"badge\">\(outcome == .none ? "not judged here" : "pending")</span></h3>\n"
            html += "  <p>\(escape(hazard.summary))</p>\n  <p><em>\(escape(hazard.correctBehaviour))</em></p>\n"
            html += "  <img class=\"actual\" alt=\"\(hazard.name)\" \(source)>\n"
            if loadsOnClick(hazard) { html += "  <button type=\"button\" class=\"load\">Load (may exhaust memory)</button>\n" }
            if hazard.hasExpectedImage {
                html += "  <img class=\"expected\" alt=\"expected\" src=\"\(escape(mount))/\(hazard.name)/expected.png\">\n"
            }
            html += "</section>\n"
        }
        html += "</main>\n</body>\n</html>\n"
        return Data(html.utf8)
    }

    /// The page's script: compares on a canvas, sets `data-verdict` and the badge.
    static let script = Data("""
    'use strict';
    // Channel differences up to this many levels pass: JPEG hazards and colour conversion.
    const TOLERANCE = 24;

    function loaded(img) {
      return new Promise((resolve) => {
        if (img.complete && img.getAttribute('src')) { resolve(img.naturalWidth > 0); return; }
        img.addEventListener('load', () => resolve(true), { once: true });
        img.addEventListener('error', () => resolve(false), { once: true });
      });
    }

    function pixels(img, width, height) {
      const canvas = document.createElement('canvas');
      canvas.width = width; canvas.height = height;
      const context = canvas.getContext('2d', { willReadFrequently: true });
      context.drawImage(img, 0, 0);
      return context.getImageData(0, 0, width, height).data;
    }

    function matches(actual, expected) {
      const width = expected.naturalWidth, height = expected.naturalHeight;
      if (actual.naturalWidth !== width || actual.naturalHeight !== height) return false;
      const a = pixels(actual, width, height), b = pixels(expected, width, height);
      for (let i = 0; i < a.length; i++) if (Math.abs(a[i] - b[i]) > TOLERANCE) return false;
      return true;
    }

    function mark(section, verdict) {
      section.dataset.verdict = verdict;
      section.querySelector('.badge').textContent = verdict;
    }

    async function judge(section) {
      const outcome = section.dataset.outcome;
      const actual = section.querySelector('img.actual');
      if (outcome === 'none') { await loaded(actual); return; }
      const shown = await loaded(actual);
      if (outcome === 'error') { mark(section, shown ? 'fail' : 'pass'); return; }
      const expected = section.querySelector('img.expected');
      if (!shown || !(await loaded(expected))) { mark(section, 'fail'); return; }
      const settle = Number(section.dataset.settle || 0);
      if (settle) await new Promise((resolve) => setTimeout(resolve, settle));
      mark(section, matches(actual, expected) ? 'pass' : 'fail');
    }

    for (const section of document.querySelectorAll('section.hazard')) {
      const button = section.querySelector('button.load');
      if (button) {
        button.addEventListener('click', () => {
          const img = section.querySelector('img.actual');
          img.src = img.dataset.src;
          button.remove();
          judge(section);
        });
      } else {
        judge(section);
      }
    }
    """.utf8)

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
