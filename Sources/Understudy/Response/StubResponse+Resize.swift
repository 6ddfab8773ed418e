import Foundation
import UnderstudyImages

extension StubResponse {
    /// How an image response is resized, as image CDNs do: fixed sizes, or
    /// sizes taken from the request's query.
    ///
    /// ```swift
    /// .image(.file(photo), as: .jpeg(quality: 85), resize: .init(width: .query("w"), height: .query("h"), fit: .cover))
    /// .image(.file(photo), as: .png, resize: .init(width: 320))
    /// ```
    /// A query value that is absent or empty leaves that side free (both free: no resize); one
    /// that is not a positive integer, or a size over the pixel limit, answers 400 naming the
    /// parameter.
    public struct Resize: Sendable, Hashable, CustomStringConvertible {
        /// A width or height: pixels, or the value of a query parameter.
        public enum Dimension: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
            /// A fixed number of pixels, at least 1.
            case pixels(Int)
            /// The request's query parameter of this name (`w` for `?w=320`).
            case query(String)

            /// `320` is `.pixels(320)`.
            public init(integerLiteral value: Int) { self = .pixels(value) }

            /// `320` or `{query.w}`, as written in stub files.
            public var description: String {
                switch self {
                case .pixels(let value): "\(value)"
                case .query(let name): "{query.\(name)}"
                }
            }
        }

        /// The width wanted; `nil` to follow the height.
        public var width: Dimension?
        /// The height wanted; `nil` to follow the width.
        public var height: Dimension?
        /// How the image meets a box of both width and height.
        public var fit: ImageResize.Fit

        /// Creates a resize.
        /// - Parameters:
        ///   - width: pixels or a query parameter; `nil` to follow the height.
        ///   - height: pixels or a query parameter; `nil` to follow the width.
        ///   - fit: `contain` (default), `cover` or `fill`.
        public init(width: Dimension? = nil, height: Dimension? = nil, fit: ImageResize.Fit = .contain) {
            self.width = width
            self.height = height
            self.fit = fit
        }

        /// `{width: {query.w}, height: 240, fit: cover}`.
        public var description: String {
            let parts = [width.map { "width: \($0)" }, height.map { "height: \($0)" }, "fit: \(fit.rawValue)"]
            return "{" + parts.compactMap { $0 }.joined(separator: ", ") + "}"
        }

        /// The resize for `request`, or `nil` when neither side is given, with where its values
        /// came from for messages: `query parameters w=320, h=240` or `width 320`.
        /// - Throws: ``RenderError`` (400) naming a query parameter that is not a positive
        ///   integer, or a size over `pixelLimit`.
        func resolved(for request: StubRequest, pixelLimit: Int) throws -> (resize: ImageResize, origin: String)? {
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            var fromQuery: [String] = []
            var fixed: [String] = []
            func value(_ dimension: Dimension?, side: String) throws -> Int? {
                switch dimension {
                case nil:
                    return nil
                case .pixels(let value):
                    fixed.append("\(side) \(value)")
                    return value
                case .query(let name):
                    guard let text = query.first(where: { $0.name == name })?.value, !text.isEmpty else { return nil }
                    guard let value = Int(text), value >= 1, text.allSatisfy(\.isASCII) else {
                        throw RenderError(
                            status: 400,
                            "400 Bad Request: query parameter '\(name)' (the resize \(side)) is '\(text)'; expected a positive integer\n"
                        )
                    }
                    guard value <= pixelLimit else {
                        throw RenderError(
                            status: 400,
                            "400 Bad Request: query parameter '\(name)' (the resize \(side)) is \(value), over the pixel limit of \(pixelLimit)\n"
                        )
                    }
                    fromQuery.append("\(name)=\(value)")
                    return value
                }
            }
            let resolvedWidth = try value(width, side: "width")
            let resolvedHeight = try value(height, side: "height")
            if resolvedWidth == nil, resolvedHeight == nil { return nil }
            var origins = fixed
            if !fromQuery.isEmpty {
                origins.append((fromQuery.count == 1 ? "query parameter " : "query parameters ") + fromQuery.joined(separator: ", "))
            }
            let origin = origins.joined(separator: ", ")
            if let resolvedWidth, let resolvedHeight {
                let (pixels, overflow) = resolvedWidth.multipliedReportingOverflow(by: resolvedHeight)
                if overflow || pixels > pixelLimit {
                    throw RenderError(
                        status: 400,
                        "400 Bad Request: a resize to \(resolvedWidth)x\(resolvedHeight) (\(origin)) is over the pixel limit of \(pixelLimit) pixels\n"
                    )
                }
            }
            return (ImageResize(width: resolvedWidth, height: resolvedHeight, fit: fit), origin)
        }
    }
}
