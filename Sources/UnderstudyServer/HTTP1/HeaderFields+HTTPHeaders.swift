internal import NIOHTTP1
import Understudy

extension HeaderFields {
    /// NIO's header lines as the core's, in order: the one conversion of a request's headers,
    /// for the stubs and the admin API, on HTTP/1.1 and on HTTP/2 (whose requests become an
    /// `HTTPRequestHead` first).
    init(_ headers: HTTPHeaders) {
        // Made at its final size: appended one by one, a browser's dozen lines grew the array
        // four times.
        var fields: [Field] = []
        fields.reserveCapacity(headers.count)
        for header in headers {
            fields.append(Field(name: header.name, value: header.value))
        }
        self.init(fields)
    }
}
