import Foundation
import UnderstudyImages

extension StubRegistry {
    /// Serves SPEC 20's whole hazard catalogue under `mount`: `GET <mount>/` the catalogue as
    /// JSON (``HazardCatalogue``), `<mount>/<name>` each hazard (`extension-mismatch` at its
    /// `.jpg`), `<mount>/<name>/expected.png` each expected image, and the login page
    /// `captive-portal` redirects to.
    ///
    /// The stubs come back after ``reset()``, which also starts the cache hazards' request
    /// counts again.
    ///
    /// ```swift
    /// let stubs = StubRegistry()
    /// stubs.stubHazards(under: "/hazards")
    /// // GET /hazards/orientation-6 → a JPEG with EXIF Orientation 6
    /// ```
    /// - Parameter mount: The path prefix, `/hazards` by default.
    public func stubHazards(under mount: String = "/hazards") {
        load(Self.hazardStubs(under: mount), from: .hazards(mount: mount))
    }

    /// The stubs ``stubHazards(under:)`` adds, named `hazard:<name>` and the like.
    static func hazardStubs(under mount: String) -> [Stub] {
        let base = mount.hasSuffix("/") ? String(mount.dropLast()) : mount
        var stubs: [Stub] = []
        let catalogue = StubResponse.data(HazardCatalogue(mount: base).jsonData, contentType: "application/json")
        stubs.append(Stub(named: "hazards:catalogue", matching: .method("GET") && (.path(base + "/") || .path(base)), response: catalogue))
        for hazard in Hazard.allCases {
            stubs.append(Stub(named: "hazard:\(hazard.name)", matching: .path(hazard.path(under: base)), response: .hazard(hazard)))
            if let expected = hazard.expected {
                let response: StubResponse
                do {
                    response = .data(try expected.pngData(), contentType: "image/png")
                } catch {
                    response = StubResponse.text("expected image of \(hazard.name): \(error)").status(500)
                }
                stubs.append(Stub(named: "hazard:\(hazard.name):expected", matching: .path("\(base)/\(hazard.name)/expected.png"), response: response))
            }
        }
        let login = StubResponse.data(
            Data(StubResponse.hazardPage("Sign in to the Wi-Fi", "A captive portal's login page, where an image was asked for.").utf8),
            contentType: "text/html; charset=utf-8"
        )
        stubs.append(Stub(named: "hazard:captive-portal:login", matching: .path("\(base)/captive-portal/login"), response: login))
        return stubs
    }
}

extension StubRegistry.State {
    /// The answer of a stateful hazard to `request`, counting it among its URL's requests.
    mutating func answer(_ hazard: Hazard, for request: StubRequest) -> StubResponse {
        let key = request.urlString
        let number = (hazardRequests[key] ?? 0) + 1
        hazardRequests[key] = number
        do {
            return try StubResponse.statefulHazard(hazard, number: number, request: request)
        } catch {
            return StubResponse.text("hazard \(hazard.name): \(error)").status(500)
        }
    }
}
