import Foundation

/// The dashboard at `GET /__admin/`: one page, its style and its script, shipped in the binary
/// (no CDN, no build step). The page holds no data: the script fetches it from the admin API,
/// with the token the page asks for once (kept in `sessionStorage`, sent as a Bearer header),
/// and follows `GET /__admin/events` by a streaming `fetch` (an `EventSource` cannot send the
/// header). The Content-Security-Policy allows this server only, so nothing is inline.
///
/// The files are in `Admin/Dashboard/`, each in its own language, and Package.swift declares
/// them `.embedInCode`: SwiftPM compiles their bytes into the module (`PackageResources`), so
/// the server stays one relocatable file, with no resource bundle to find at run time.
enum DashboardAssets {
    /// `dashboard.html`, the page.
    static let page = Data(PackageResources.dashboard_html)

    /// `favicon.svg`, the page's icon (without one, the browser's `/favicon.ico` would be
    /// journaled as unmatched).
    static let icon = Data(PackageResources.favicon_svg)

    /// `dashboard.css`, the page's style, served as its own admin path (the CSP allows no
    /// inline style).
    static let style = Data(PackageResources.dashboard_css)

    /// `dashboard.js`, the page's script, served as its own admin path (the CSP allows no
    /// inline script).
    static let script = Data(PackageResources.dashboard_js)
}
