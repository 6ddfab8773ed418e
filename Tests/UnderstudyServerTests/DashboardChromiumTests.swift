import Foundation
import Understudy
import UnderstudyImages
import UnderstudyServer
import XCTest
import UnderstudyTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The dashboard in a real browser: headless Chromium opens `/__admin/` of a server that has
/// answered images, an unmatched request and a fault, and the test reads the page's DOM over
/// the DevTools protocol while the page stays open.
final class DashboardChromiumTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-dashboard-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Image files served as they are (canned answers, whose bodies the dashboard gets from the
    /// registry), a generated image (rendered again for the dashboard), a fault, and a stub with `times`.
    private func stubs() throws -> StubRegistry {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func file(_ name: String, _ data: Data) throws -> URL {
            let url = directory.appendingPathComponent(name)
            try data.write(to: url)
            return url
        }
        let stubs = StubRegistry()
        let wide = try file("wide.png", ImageGenerator.generate(width: 41, height: 23, pattern: .gradient).pngData())
        let narrow = try file("narrow.webp", ImageGenerator.generate(width: 17, height: 29, pattern: .checkerboard).webPData(quality: 80))
        let small = try file("small.png", ImageGenerator.generate(width: 8, height: 8, pattern: .solid(.red)).pngData())
        stubs.stub(.path("/img/wide.png"), named: "wide-png", response: .file(wide))
        stubs.stub(.path("/img/narrow.webp"), named: "narrow-webp", response: .file(narrow))
        stubs.stub(.path("/img/broken.png"), named: "broken", response: .failure(.connectionReset))
        stubs.stub(.path("/img/limited.png"), named: "limited", times: 3, response: .file(small))
        stubs.stub(.path("/img/generated.webp"), named: "generated", response: .image(.generated(width: 19, height: 7, pattern: .gradient), as: .webp(quality: 80)))
        return stubs
    }

    /// What the journal table shows, row by row, top to bottom.
    private static let rowsScript = """
        Array.from(document.querySelectorAll("#journal tbody tr.entry")).map((row) => ({
          id: Number(row.dataset.id), url: row.dataset.url, status: row.dataset.status, outcome: row.dataset.outcome,
          result: row.querySelector(".result").textContent, stub: row.querySelector(".stub").textContent,
          thumb: row.querySelector("img.thumb") ? row.querySelector("img.thumb").dataset.naturalWidth : null,
        }))
        """

    private func rows(_ driver: ChromiumDriver) throws -> [[String: Any]] {
        try XCTUnwrap(driver.evaluate(Self.rowsScript) as? [[String: Any]])
    }

    func testTheDashboardListsRequestsLiveWithDecodedThumbnailsNearMissesAndStubs() async throws {
        try requireEncoding(.webp)
        let stubs = try stubs()
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/wide.png"]).text, "200")
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/narrow.webp"]).text, "200")
            XCTAssertNotEqual(try curl(["\(base)/img/broken.png"]).status, 0, "the reset reaches curl as an error")
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/missing.png"]).text, "404")
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/limited.png"]).text, "200")
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/generated.webp"]).text, "200")

            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(base)/__admin/")!)
            try driver.wait(until: """
                document.body.dataset.stream === "open" && Number(document.body.dataset.renders) >= 1
                  && document.querySelectorAll("#journal tr.entry").length === 6
                  && Array.from(document.querySelectorAll("img.thumb")).every((image) => image.dataset.naturalWidth !== "pending")
                """)
            _ = try driver.evaluate("window.understudyTestMark = 'same page'")

            let shown = try rows(driver)
            XCTAssertEqual(shown.map { $0["id"] as? Int }, [6, 5, 4, 3, 2, 1], "newest first")
            XCTAssertEqual(shown.map { $0["url"] as? String }, [
                "generated.webp", "limited.png", "missing.png", "broken.png", "narrow.webp", "wide.png",
            ].map { "\(base)/img/\($0)" })
            XCTAssertEqual(shown.map { $0["result"] as? String }, ["200", "200", "404 unmatched", "fault connection-reset", "200", "200"])
            XCTAssertEqual(shown.map { $0["stub"] as? String }, ["generated", "limited", "—", "broken", "narrow-webp", "wide-png"])
            // Each image's thumbnail decoded in the browser, at the image's own width.
            XCTAssertEqual(shown.map { $0["thumb"] as? String }, ["19", "8", nil, nil, "17", "41"])

            // The unmatched request with its near misses, and the stubs with uses and times left.
            let misses = try XCTUnwrap(driver.evaluate("""
                Array.from(document.querySelectorAll("#unmatched .miss")).map((miss) => miss.textContent)
                """) as? [String])
            XCTAssertEqual(misses.count, 1)
            XCTAssertTrue(misses[0].hasPrefix("#4 GET \(base)/img/missing.png"), misses[0])
            XCTAssertTrue(misses[0].contains("path is /img/"), "a near miss says what differed: \(misses[0])")
            let stubRows = try XCTUnwrap(driver.evaluate("""
                Array.from(document.querySelectorAll("#stubs tr.stub")).map((row) =>
                  [row.dataset.name, row.querySelector(".uses").textContent, row.querySelector(".left").textContent, row.querySelector(".matcher").textContent])
                """) as? [[String]])
            XCTAssertEqual(stubRows.first { $0[0] == "limited" }?[1...2], ["1", "2"], "\(stubRows)")
            XCTAssertEqual(stubRows.first { $0[0] == "wide-png" }?[1...3], ["1", "unlimited", "path is /img/wide.png"], "\(stubRows)")
            XCTAssertEqual(try driver.evaluate(##"document.querySelector("#gates").textContent.trim()"##) as? String, "no gates")
            XCTAssertEqual(try driver.evaluate(##"document.getElementById("ca-link").hidden"##) as? Bool, true, "no ca.pem on this server")

            // A new request shows up on the same page, without a reload.
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/wide.png?again=1"]).text, "200")
            try driver.wait(until: """
                document.querySelector("#journal tbody tr.entry") && document.querySelector("#journal tbody tr.entry").dataset.id === "7"
                  && document.querySelector("#journal tbody tr.entry img.thumb").dataset.naturalWidth !== "pending"
                """)
            let top = try XCTUnwrap(rows(driver).first)
            XCTAssertEqual(top["url"] as? String, "\(base)/img/wide.png?again=1")
            XCTAssertEqual(top["result"] as? String, "200")
            XCTAssertEqual(top["thumb"] as? String, "41")
            XCTAssertEqual(try driver.evaluate("window.understudyTestMark") as? String, "same page", "the page was not reloaded")

            // The screenshot shows a page, not a blank: many distinct colours.
            let screenshot = try RGBAImage(decoding: driver.screenshot())
            XCTAssertGreaterThan(screenshot.width, 600)
            var colours = Set<UInt32>()
            for index in stride(from: 0, to: screenshot.pixels.count, by: 4) {
                let p = screenshot.pixels
                colours.insert(UInt32(p[index]) << 16 | UInt32(p[index + 1]) << 8 | UInt32(p[index + 2]))
            }
            XCTAssertGreaterThan(colours.count, 100, "a blank or near-blank screenshot has few colours")
        }
    }

    func testTheDashboardShowsScenariosAndWhereEachRequestLeftOne() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stubs = StubRegistry()
        stubs.add(Stub(named: "empty-cart", matching: .path("/cart"), response: .text("empty")).inScenario("cart", when: Scenario.startedState, then: "filled"))
        stubs.add(Stub(named: "full-cart", matching: .path("/cart"), response: .text("cat.png")).inScenario("cart", when: "filled"))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            XCTAssertEqual(try curl(["\(base)/cart"]).text, "empty")
            XCTAssertEqual(try curl(["\(base)/cart"]).text, "cat.png")
            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(base)/__admin/")!)
            try driver.wait(until: """
                Number(document.body.dataset.renders) >= 1 && document.querySelectorAll("#journal tr.entry").length === 2
                  && document.querySelector("#scenarios .scenario") !== null
                """)
            XCTAssertEqual(try rows(driver).map { $0["stub"] as? String }, ["full-cart (cart: filled)", "empty-cart (cart: filled)"])
            XCTAssertEqual(try driver.evaluate(##"document.querySelector("#scenarios .scenario").textContent"##) as? String, "cartfilled(Started, filled)")
        }
    }

    /// A seeded stub answers 503 to a share of its requests: the rows of those that drew it say
    /// so ("drew status"), the others do not, live on the open page too.
    func testRequestsThatDrewAChanceAreMarked() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stubs = StubRegistry(seed: 21)
        stubs.stub(.path("/flaky.png"), named: "flaky", response: .text("ok").status(503, chance: 0.5))
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            var codes: [String] = []
            for index in 0..<8 {
                codes.append(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/flaky.png?n=\(index)"]).text)
            }
            XCTAssertEqual(Set(codes), ["200", "503"], "the seed draws both ways: \(codes)")
            XCTAssertEqual(stubs.journal.interactions.map { $0.drawn == [.status] }, codes.map { $0 == "503" })

            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(base)/__admin/")!)
            try driver.wait(until: ##"Number(document.body.dataset.renders) >= 1 && document.querySelectorAll("#journal tr.entry").length === 8"##)
            let marks = ##"Array.from(document.querySelectorAll("#journal tbody tr.entry")).map((row) => [row.dataset.status, row.querySelector(".drawn") ? row.querySelector(".drawn").textContent : ""])"##
            let shown = try XCTUnwrap(driver.evaluate(marks) as? [[String]])
            XCTAssertEqual(shown, codes.reversed().map { [$0, $0 == "503" ? "drew status" : ""] }, "newest first")

            // A request made while the page is open is marked as it arrives.
            var next = ""
            for index in 8..<40 where next != "503" {
                next = try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/flaky.png?n=\(index)"]).text
                codes.append(next)
            }
            XCTAssertEqual(next, "503")
            try driver.wait(until: "document.querySelectorAll('#journal tr.entry').length === \(codes.count)")
            XCTAssertEqual(try XCTUnwrap(driver.evaluate(marks) as? [[String]]).first, ["503", "drew status"])
        }
    }

    func testMarkupInARequestIsShownAsTextNeverRun() async throws {
        try requireEncoding(.webp)
        let stubs = try stubs()
        try await withServer(stubs) { server in
            let base = server.baseURL.absoluteString
            let hostile = "/img/%3Cimg%20id=injected%20src=x%20onerror=document.title='ran'%3E.png"
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "--path-as-is", base + hostile]).text, "404")

            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(base)/__admin/")!)
            try driver.wait(until: ##"document.querySelectorAll("#unmatched .miss").length === 1"##)
            let miss = try XCTUnwrap(driver.evaluate(##"document.querySelector("#unmatched .miss").textContent"##) as? String)
            XCTAssertTrue(miss.contains("<img id=injected src=x onerror=document.title='ran'>"), "the near miss shows the decoded path as text: \(miss)")
            XCTAssertEqual(try driver.evaluate(##"document.getElementById("injected") === null && document.title === "Understudy""##) as? Bool, true)
        }
    }

    func testWithATokenThePageShowsNoJournalUntilTheTokenIsGiven() async throws {
        try requireEncoding(.webp)
        let stubs = try stubs()
        var configuration = StubServer.Configuration()
        configuration.adminToken = "s3cret-token"
        try await withServer(stubs, configuration: configuration) { server in
            let base = server.baseURL.absoluteString
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/secret-path.png"]).text, "404")

            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(base)/__admin/")!)
            try driver.wait(until: ##"document.body.dataset.state === "needs-token""##)
            XCTAssertEqual(try driver.evaluate(##"document.getElementById("content").hidden"##) as? Bool, true)
            XCTAssertEqual(try driver.evaluate(##"document.querySelectorAll("#journal tr.entry, #unmatched .miss").length"##) as? Int, 0)
            let html = try XCTUnwrap(driver.evaluate("document.documentElement.outerHTML") as? String)
            XCTAssertFalse(html.contains("secret-path"), "nothing of the journal reaches a page without the token")

            // A wrong token is refused; the right one opens the journal.
            _ = try driver.evaluate(##"document.getElementById("token-input").value = "wrong"; document.querySelector("#token-form button").click()"##)
            try driver.wait(until: ##"document.getElementById("token-error").textContent.includes("refused")"##)
            XCTAssertEqual(try driver.evaluate(##"document.querySelectorAll("#journal tr.entry").length"##) as? Int, 0)
            _ = try driver.evaluate(##"document.getElementById("token-input").value = "s3cret-token"; document.querySelector("#token-form button").click()"##)
            try driver.wait(until: ##"document.body.dataset.state === "live" && document.querySelectorAll("#journal tr.entry").length === 1"##)
            XCTAssertEqual(try rows(driver).first?["url"] as? String, "\(base)/img/secret-path.png")
            XCTAssertEqual(try driver.evaluate("sessionStorage.getItem('understudy-admin-token')") as? String, "s3cret-token")
            // Live through the token too: the event stream sends it in a header.
            XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/img/wide.png"]).text, "200")
            try driver.wait(until: ##"""
                document.querySelectorAll("#journal tr.entry").length === 2 && document.body.dataset.stream === "open"
                  && document.querySelector("#journal tr.entry img.thumb").dataset.naturalWidth !== "pending"
                """##)
            XCTAssertEqual(try rows(driver).first?["thumb"] as? String, "41")
        }
    }

    /// An address pasted with `?token=...` opens the page, which says the query is not read and
    /// asks for the token in its form; the token in the address is not used.
    func testAPastedQueryIsExplainedOnThePageNotUsed() async throws {
        try requireEncoding(.webp)
        let stubs = try stubs()
        var configuration = StubServer.Configuration()
        configuration.adminToken = "s3cret-token"
        try await withServer(stubs, configuration: configuration) { server in
            let driver = try ChromiumDriver(directory: directory)
            defer { driver.quit() }
            try driver.navigate(URL(string: "\(server.baseURL.absoluteString)/__admin/?token=s3cret-token")!)
            try driver.wait(until: ##"document.body.dataset.state === "needs-token""##)
            XCTAssertEqual(try driver.evaluate(##"document.getElementById("query-note").hidden"##) as? Bool, false)
            let note = try XCTUnwrap(driver.evaluate(##"document.getElementById("query-note").textContent"##) as? String)
            XCTAssertTrue(note.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("the query ?token is ignored"), note)
            XCTAssertNil(try driver.evaluate("sessionStorage.getItem('understudy-admin-token')") as? String)
        }
    }
}
