import UnderstudyImages
import Foundation
import Understudy
import UnderstudyServer
import XCTest
import UnderstudyTestSupport

/// The dashboard's thumbnails: `?as=thumbnail` serves a HEIC body (which only Safari draws) as
/// PNG, and every other body as it was sent.
final class DashboardThumbnailTests: XCTestCase {
    private func send(_ admin: AdminAPI, _ method: String, _ target: String) async -> AdminResponse {
        await admin.handle(AdminRequest(method: method, target: target, headers: [:]))
    }

    func testHEICBodiesAreThumbnailedAsPNGAndOthersAsSent() async throws {
        try requireEncoding(.heic, .avif)
        let registry = StubRegistry()
        registry.stub(.path("/p.heic"), named: "heic", response: .image(.generated(width: 21, height: 13, pattern: .photo), as: .heic(quality: 60)))
        registry.stub(.path("/p.avif"), named: "avif", response: .image(.generated(width: 17, height: 11, pattern: .photo), as: .avif(quality: 60, speed: 10)))
        var sent: [String: Data] = [:]
        try await withServer(registry) { server in
            sent["heic"] = try curl(["\(server.baseURL.absoluteString)/p.heic"]).stdout
            sent["avif"] = try curl(["\(server.baseURL.absoluteString)/p.avif"]).stdout
        }
        let admin = AdminAPI(registry: registry, token: nil)
        let heic = await send(admin, "GET", "/__admin/requests/1/body?as=thumbnail")
        XCTAssertEqual(heic.status, 200)
        XCTAssertEqual(heic.headers["Content-Type"], "image/png")
        XCTAssertEqual(heic.headers["X-Understudy-Thumbnail-Of"], "image/heic")
        XCTAssertEqual(heic.headers["Content-Length"], String(heic.body.count))
        XCTAssertEqual(try RGBAImage(decoding: heic.body), try RGBAImage(decoding: try XCTUnwrap(sent["heic"])), "the pixels the client got")
        let asSent = await send(admin, "GET", "/__admin/requests/1/body")
        XCTAssertEqual(asSent.headers["Content-Type"], "image/heic")
        XCTAssertEqual(asSent.body, sent["heic"])
        let avif = await send(admin, "GET", "/__admin/requests/2/body?as=thumbnail")
        XCTAssertEqual(avif.headers["Content-Type"], "image/avif", "browsers draw AVIF")
        XCTAssertEqual(avif.body, sent["avif"])
        let wrong = await send(admin, "GET", "/__admin/requests/1/body?as=jpeg")
        XCTAssertEqual(wrong.status, 400)
        XCTAssertEqual(String(decoding: wrong.body, as: UTF8.self), #"{"error":"unknown value 'jpeg' for 'as'; expected thumbnail (or no 'as' for the body as sent)","field":"as"}"# + "\n")
    }
}
