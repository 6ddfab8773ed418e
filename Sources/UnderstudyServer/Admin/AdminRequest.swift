import Foundation
import Understudy

/// A request to the admin API, as the server's HTTP handler hands it over.
///
/// ```swift
/// let request = AdminRequest(method: "GET", target: "/__admin/requests?unmatched=true&limit=10")
/// let response = await admin.handle(request)
/// ```
package struct AdminRequest: Sendable {
    /// The method, uppercased.
    package var method: String
    /// The percent-decoded path, e.g. `/__admin/stubs/cat`.
    package var path: String
    /// The query parameters, percent-decoded; for a repeated name the last value.
    package var query: [String: String]
    /// The header lines.
    package var headers: HeaderFields
    /// The body (empty when none was sent).
    package var body: Data

    /// Creates a request from its parts.
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - path: the percent-decoded path.
    ///   - query: the query parameters.
    ///   - headers: the header lines.
    ///   - body: the body.
    package init(method: String, path: String, query: [String: String] = [:], headers: HeaderFields = [:], body: Data = Data()) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Creates a request from a request target as it appears on the request line: origin-form
    /// (`/__admin/requests?limit=2`) or absolute-form (`http://host/__admin/health`).
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - target: the request target; the path and query are percent-decoded.
    ///   - headers: the header lines.
    ///   - body: the body.
    package init(method: String, target: String, headers: HeaderFields = [:], body: Data = Data()) {
        let components = URLComponents(string: target)
        let rawPath: String
        if let components {
            rawPath = components.percentEncodedPath
        } else {
            rawPath = String(target.prefix { $0 != "?" && $0 != "#" })
        }
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        self.init(
            method: method, path: rawPath.removingPercentEncoding ?? rawPath, query: query, headers: headers, body: body
        )
    }
}
