import Foundation

extension URL {
    /// This URL aimed at `base`: scheme, host and port from `base`, its path put in front of
    /// this URL's path, query and fragment kept. Both paths stay percent-encoded, so `%2F` in
    /// either survives. Used by `.forward(to:)` and by recording through a reverse proxy.
    package func rebased(onto base: URL) -> URL {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true),
              let baseComponents = URLComponents(url: base, resolvingAgainstBaseURL: true)
        else { return self }
        components.scheme = baseComponents.scheme
        components.host = baseComponents.host
        components.port = baseComponents.port
        let basePath = baseComponents.percentEncodedPath
        components.percentEncodedPath = (basePath.hasSuffix("/") ? String(basePath.dropLast()) : basePath) + components.percentEncodedPath
        return components.url ?? self
    }
}
