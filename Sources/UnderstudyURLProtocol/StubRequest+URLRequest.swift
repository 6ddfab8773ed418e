import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubRequest {
    /// The request a URL protocol was given, with its body read from `httpBody` or, failing
    /// that, from `httpBodyStream`.
    ///
    /// Upload tasks on Linux hand their body to the transport, not to the request, so stubs
    /// see no body for them; data tasks with `httpBody` or a body stream are seen in full.
    init(_ request: URLRequest) {
        var headers = HeaderFields()
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            headers.add(name: name, value: value)
        }
        let body = request.httpBody ?? request.httpBodyStream.map(Self.readAll)
        self.init(
            method: request.httpMethod ?? "GET",
            url: request.url ?? URL(string: "about:blank")!,
            headers: headers,
            body: body,
            timeoutInterval: request.timeoutInterval
        )
    }

    /// The request as URLSession and its delegates see it.
    var urlRequest: URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeoutInterval)
        request.httpMethod = method
        request.httpBody = body
        for field in headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
        return request
    }

    private static func readAll(_ stream: InputStream) -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
