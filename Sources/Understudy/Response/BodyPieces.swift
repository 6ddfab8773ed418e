import Foundation
import UnderstudyImages

/// Delivery in pieces (`pieces:` in stub files), for clients that decode as bytes arrive: the
/// body is cut at chosen offsets, after each scan of a progressive JPEG or after each frame of
/// an animation, and ``interval`` passes between pieces. The bytes are those served whole.
///
/// ```swift
/// .file(progressiveJPEG).inPieces(.scans, interval: .milliseconds(200))
/// .file(animatedWebP).inPieces(.frames, interval: .milliseconds(100))
/// .file(photo).inPieces(.at([1024, 8192]), interval: .milliseconds(200))
/// ```
public struct BodyPieces: Sendable, Hashable {
    /// Where the body is cut.
    public enum Cut: Sendable, Hashable {
        /// At these byte offsets of the whole body.
        case at([Int])
        /// Before each SOS marker of a JPEG but the first, so each piece ends with one more scan.
        case scans
        /// After each frame of an animated WebP, GIF or AVIF (a still image is one piece).
        case frames
    }

    /// Where the body is cut.
    public var cut: Cut
    /// The pause between two pieces.
    public var interval: Duration

    /// Creates pieces.
    /// - Parameters:
    ///   - cut: where the body is cut.
    ///   - interval: the pause between two pieces.
    public init(_ cut: Cut, interval: Duration) {
        self.cut = cut
        self.interval = max(.zero, interval)
    }

    /// The offsets where `body` is cut, ascending, each inside the body.
    /// - Throws: ``RenderError`` when the body is not what the cut needs (scans of a non-JPEG,
    ///   frames of a body that is no animation container).
    package func offsets(in body: Data) throws -> [Int] {
        let cuts: [Int]
        switch cut {
        case .at(let offsets):
            cuts = offsets
        case .scans:
            guard let starts = ImageBoundaries.jpegScanStarts(body) else {
                throw RenderError("pieces by scans needs a JPEG body; this body (\(body.count) bytes) is \(Self.describe(body))")
            }
            cuts = Array(starts.dropFirst())
        case .frames:
            guard let ends = ImageBoundaries.frameEnds(body) else {
                let kinds = ImageBoundaries.frameWalks.keys.map(\.rawValue).sorted()
                let named = kinds.dropLast().joined(separator: ", ") + (kinds.count > 1 ? " or " : "") + (kinds.last ?? "")
                throw RenderError("pieces by frames needs an animated \(named) body; this body (\(body.count) bytes) is \(Self.describe(body))")
            }
            cuts = Array(ends.dropLast())
        }
        return Array(Set(cuts.filter { $0 > 0 && $0 < body.count })).sorted()
    }

    private static func describe(_ body: Data) -> String {
        ImageKind.detect(body).map { "\($0.rawValue)" } ?? "not an image"
    }
}

extension PreparedResponse {
    /// A body's cuts, resolved against the bytes served.
    package struct Pieces: Sendable, Hashable {
        /// Ascending offsets inside the body.
        package var offsets: [Int]
        /// The pause between two pieces.
        package var interval: Duration

        package init(offsets: [Int], interval: Duration) {
            self.offsets = offsets
            self.interval = interval
        }
    }
}
