import Foundation
import UnderstudyImages

extension StubResponse {
    /// A hazard of SPEC 20's catalogue: the bytes and headers that break image clients, served
    /// on purpose (see `Hazard` in UnderstudyImages).
    ///
    /// Pixel and memory hazards serve their image bytes; header hazards their status, headers
    /// and body as the catalogue describes. Cache hazards (and `negotiated-without-vary`)
    /// depend on the request: the registry chooses each answer when it matches, counting the
    /// requests for each URL (the count starts again at ``StubRegistry/reset()``), and each
    /// image shows its request's number.
    ///
    /// ```swift
    /// stubs.stub(.path("/avatar.jpg"), response: .hazard(.orientation6))
    /// stubs.stub(.path("/feed.png"), response: .hazard(.changesNoCache))
    /// ```
    /// - Parameter hazard: The hazard to serve.
    /// - Returns: The response; a 500 saying why when this build cannot encode the hazard's
    ///   format (SPEC 18), such as a JPEG hazard without the C codecs.
    public static func hazard(_ hazard: Hazard) -> StubResponse {
        if hazard.isStateful {
            var response = StubResponse(body: .empty)
            response.statefulHazard = hazard
            return response
        }
        do {
            return try fixedHazard(hazard)
        } catch {
            return StubResponse.text("hazard \(hazard.name): \(error)").status(500)
        }
    }

    /// The answer of a hazard that depends on nothing but itself.
    static func fixedHazard(_ hazard: Hazard) throws -> StubResponse {
        let image = try hazard.imageData()
        switch hazard.group {
        case .pixels, .memory:
            return .data(image)
        case .headers, .cache:
            break
        }
        switch hazard {
        case .contentTypeMissing: return StubResponse.data(image).withoutInferredContentType()
        case .contentTypeOctetStream: return .data(image, contentType: "application/octet-stream")
        case .contentTypeWrong: return .data(image, contentType: "image/jpeg")
        case .extensionMismatch: return .data(image, contentType: "image/webp")
        case .html200: return .data(Data(Self.hazardPage("Not an image", "This page answers an image URL with 200.").utf8), contentType: "text/html; charset=utf-8")
        case .captivePortal: return .redirect(to: "captive-portal/login", status: 302)
        case .gzipEncoded:
            return StubResponse.data(ContentCoding.gzip.encode(image), contentType: "image/png")
                .headers(["Content-Encoding": "gzip"]).ranges(false)
        case .gzipUnlabelled: return StubResponse.data(ContentCoding.gzip.encode(image), contentType: "image/png").ranges(false)
        case .lengthLongerThanBody: return StubResponse.data(image).truncated(after: image.count / 2)
        case .empty200: return .data(Data(), contentType: "image/png")
        default: return .data(image)
        }
    }

    /// The answer to the `number`th request (from 1) for one URL of a stateful hazard.
    static func statefulHazard(_ hazard: Hazard, number: Int, request: StubRequest) throws -> StubResponse {
        let numbered = { () throws -> StubResponse in
            StubResponse.data(try Hazard.numberedImage(number).pngData(), contentType: "image/png")
                .cache(.none).headers(["X-Understudy-Request": "\(number)"])
        }
        switch hazard {
        case .changesNoCache: return try numbered().headers(["Cache-Control": "no-cache"])
        case .changesMaxAge0: return try numbered().headers(["Cache-Control": "max-age=0"])
        case .changesNoStore: return try numbered().headers(["Cache-Control": "no-store"])
        case .changesMustRevalidate: return try numbered().headers(["Cache-Control": "max-age=0, must-revalidate"])
        case .changesPragmaNoCache: return try numbered().headers(["Pragma": "no-cache"])
        case .changesExpired: return try numbered().headers(["Expires": "Thu, 01 Jan 1970 00:00:00 GMT"])
        case .notModifiedWithoutValidator:
            return StubResponse.status(304).headers(["X-Understudy-Request": "\(number)"])
        case .errorAfterImage:
            guard number > 1 else { return try numbered().headers(["Cache-Control": "no-cache"]) }
            return StubResponse.data(Data(hazardPage("Service unavailable", "The image server is down.").utf8), contentType: "text/html; charset=utf-8")
                .status(503).cache(.none).headers(["X-Understudy-Request": "\(number)"])
        case .truncatedThenWhole:
            let whole = try numbered().headers(["Cache-Control": "max-age=3600"])
            guard number > 1 else {
                let size = try Hazard.numberedImage(number).pngData().count
                return whole.truncated(after: size / 2)
            }
            return whole
        case .negotiatedWithoutVary:
            let webp = AcceptHeader(request.headers["Accept"]).admits("image/webp")
            let image = try Hazard.figure(encodedAs: webp ? .webpLossless : .png)
            return StubResponse.data(image, contentType: webp ? "image/webp" : "image/png").headers(["Cache-Control": "max-age=3600"])
        default:
            return try fixedHazard(hazard)
        }
    }

    /// The same response with its body wrapped in `coding`, as `encoding:` in stub files does:
    /// with `Content-Encoding` when `labelled` (a client must decode it), without it when not
    /// (the `gzip-unlabelled` hazard: a client sees gzip bytes under the body's own type).
    ///
    /// ```swift
    /// .file(avatarPNG).encoded(.gzip)                    // gzip-encoded
    /// .file(avatarPNG).encoded(.gzip, labelled: false)   // gzip-unlabelled
    /// ```
    /// - Parameters:
    ///   - coding: gzip or deflate.
    ///   - labelled: Whether `Content-Encoding` names the coding.
    public func encoded(_ coding: ContentCoding, labelled: Bool = true) -> StubResponse {
        var copy = self.ranges(false)
        copy.contentCoding = (coding, labelled)
        return copy
    }

    /// The login page of `captive-portal`, and the bodies of the HTML hazards.
    static func hazardPage(_ title: String, _ text: String) -> String {
        "<!doctype html>\n<html><head><title>\(title)</title></head><body><h1>\(title)</h1><p>\(text)</p></body></html>\n"
    }
}

extension Hazard {
    /// Whether each answer depends on the request or on its URL's earlier requests.
    var isStateful: Bool { group == .cache || self == .negotiatedWithoutVary }
}
