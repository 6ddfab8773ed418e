import Foundation
import Understudy

extension AdminAPI {
    /// The dashboard's paths below ``AdminAPI/prefix``: the page and its script and style (no
    /// data in them, so they load without the token: the page asks for it), and the two data
    /// endpoints only the dashboard uses (which need the token like every other).
    enum DashboardRoute: Sendable, Equatable {
        /// `/__admin/` and `/__admin`: the page.
        case page
        /// `dashboard.js`.
        case script
        /// `dashboard.css`.
        case style
        /// `favicon.svg`.
        case icon
        /// `hazards`: the hazard gallery (``HazardGallery``).
        case hazards
        /// `hazards.js`: the gallery's script.
        case hazardsScript
        /// `events`: a server-sent event whenever the journal changes.
        case events
        /// `requests/{id}/body`: the response body entry `id` sent (canned answers' from the
        /// registry's renderings, images and transcoded bodies rendered again, others when the
        /// journal keeps bodies).
        case body(Int)

        init?(path: String) {
            guard path.hasPrefix(AdminAPI.prefix) else {
                guard path == String(AdminAPI.prefix.dropLast()) else { return nil }
                self = .page
                return
            }
            let rest = path.dropFirst(AdminAPI.prefix.count)
            switch rest {
            case "": self = .page
            case "dashboard.js": self = .script
            case "dashboard.css": self = .style
            case "favicon.svg": self = .icon
            case "hazards": self = .hazards
            case "hazards.js": self = .hazardsScript
            case "events": self = .events
            default:
                let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 3, parts[0] == "requests", parts[2] == "body", let id = Int(parts[1]) else { return nil }
                self = .body(id)
            }
        }
    }

    /// What the dashboard's page and scripts may load: this server only (`blob:` images are
    /// thumbnails the page's own script made from bodies it fetched here with the token).
    static let dashboardPolicy =
        "default-src 'self'; img-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Answers a dashboard path.
    func dashboard(_ request: AdminRequest, _ route: DashboardRoute) async throws -> AdminResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        guard method == "GET" else {
            let message = "method \(request.method) is not allowed on \(request.path); expected GET"
            if route == .page || route == .hazards {
                // A page for people answers in words, never JSON.
                let body = Data((message + "\n").utf8)
                return AdminResponse(status: 405, headers: [
                    "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count), "Allow": "GET",
                    "X-Content-Type-Options": "nosniff",
                ], body: body)
            }
            throw AdminFailure(
                405, "method \(request.method) is not allowed on \(request.path); expected GET",
                field: "method", extraHeaders: ["Allow": "GET"]
            )
        }
        // The page is for people, who paste addresses with queries (`?token=...`): it ignores
        // them and says so. The rest refuse them, as the API does; thumbnails take `as`.
        if case .body = route {
            try checkQuery(request, allowed: ["as"])
        } else if route != .page && route != .hazards {
            try checkQuery(request, allowed: [])
        }
        switch route {
        case .page: return Self.asset(DashboardAssets.page, type: "text/html; charset=utf-8")
        case .script: return Self.asset(DashboardAssets.script, type: "text/javascript; charset=utf-8")
        case .style: return Self.asset(DashboardAssets.style, type: "text/css; charset=utf-8")
        case .icon: return Self.asset(DashboardAssets.icon, type: "image/svg+xml")
        case .hazards: return Self.asset(HazardGallery.page(), type: "text/html; charset=utf-8")
        case .hazardsScript: return Self.asset(HazardGallery.script, type: "text/javascript; charset=utf-8")
        case .events:
            try authorize(request)
            return AdminResponse(
                status: 200,
                headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"],
                body: Data(), stream: JournalEvents(journal: registry.journal).stream()
            )
        case .body(let id):
            try authorize(request)
            switch request.query["as"] {
            case nil: return try await responseBody(of: id)
            case "thumbnail": return try await responseBody(of: id, drawable: true)
            case let other?:
                throw AdminFailure(400, "unknown value '\(other)' for 'as'; expected thumbnail (or no 'as' for the body as sent)", field: "as")
            }
        }
    }

    private static func asset(_ body: Data, type: String) -> AdminResponse {
        AdminResponse(status: 200, headers: [
            "Content-Type": type, "Content-Length": String(body.count), "Cache-Control": "no-store",
            "Content-Security-Policy": dashboardPolicy, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
        ], body: body)
    }

    /// The image formats browsers cannot draw, which `?as=thumbnail` serves as PNG: HEIC (only
    /// Safari decodes it).
    static let undrawableImageKinds: Set<ImageKind> = [.heic]

    /// `GET /__admin/requests/{id}/body`, for the dashboard's thumbnails. The body is served
    /// with its recorded `Content-Type` in a sandbox: a stub's HTML opened here runs nothing.
    /// With `drawable` (`?as=thumbnail`) an image the page cannot draw (HEIC) is transcoded to
    /// PNG through the registry's transcoder (cached), marked `X-Understudy-Thumbnail-Of`.
    private func responseBody(of id: Int, drawable: Bool = false) async throws -> AdminResponse {
        guard let interaction = registry.journal.interaction(id: id) else {
            throw AdminFailure(404, "no request \(id) in the journal (it holds \(registry.journal.count))", field: "id")
        }
        guard let body = await registry.fillingRenderedBodies([interaction]).first?.responseBody else {
            throw AdminFailure(
                404, "the body request \(id) was sent is not kept; without keepsBodies the journal has only those of canned answers, images and transcoded bodies",
                field: "id"
            )
        }
        var headers: HeaderFields = [
            "Content-Type": interaction.responseHeaders["Content-Type"] ?? "application/octet-stream",
            "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
        ]
        var served = Data(body)
        if drawable, let kind = ImageKind.detect(served), Self.undrawableImageKinds.contains(kind),
           let png = try? await registry.transcoder.transcode(served, to: .png) {
            served = png
            headers["Content-Type"] = "image/png"
            headers["X-Understudy-Thumbnail-Of"] = kind.mimeType
        }
        headers["Content-Length"] = String(served.count)
        return AdminResponse(status: 200, headers: headers, body: served)
    }
}
