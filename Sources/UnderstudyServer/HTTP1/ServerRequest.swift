import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// What ``HTTP1ConnectionHandler`` passes on to its ``HTTP1Answerer``: a whole request, or the
/// refusal of one it would not take. Exactly one response follows each, and the next is passed
/// on only after the one before has ended.
enum ServerRequest {
    /// A request to answer: its head and body, and when they arrived. `bodyUnread` when the
    /// rest of its body is not read (``StubRegistry/BodyHandling``): the connection closes
    /// after its answer.
    case request(RequestHead, body: ByteBuffer?, arrival: Arrival, bodyUnread: Bool = false)
    /// A request refused before any stub saw it, with what was read of it.
    case refused(StubAnswer, StubRequest, arrival: Arrival)

    /// When a request's head and its end arrived, for the journal's timings.
    struct Arrival {
        /// When the head arrived (the entry's start time).
        let start: Date
        /// The loop's clock then.
        let headTime: NIODeadline
        /// When the whole request was in.
        let endTime: NIODeadline
        /// The connection it came on and its place there, once its exchange has it.
        var connection: ConnectionFacts?

        /// A request in whole now, on `eventLoop`. The entry's start is taken before the loop's
        /// clock, so that the timings counted on the loop's clock fall within the entry's
        /// duration, counted from its start (a HAR entry's time is the sum of its timings).
        static func whole(on eventLoop: any EventLoop) -> Arrival {
            let start = Date()
            let now = eventLoop.now
            return Arrival(start: start, headTime: now, endTime: now)
        }
    }
}

extension StubRequest {
    /// The request `head` (and `body`) asks, as the stubs see it: an absolute-form target (a
    /// forward proxy's request) is matched on its own scheme and host; an origin-form one on
    /// `scheme` and the `Host` header, or `listener` when there is none.
    init(head: RequestHead, body: ByteBuffer?, scheme: String, listener: () -> String) {
        let headers = HeaderFields(head.fields)
        let bodyData = body.map { Data($0.readableBytesView) }
        let method = head.method
        let isOriginForm = head.target.utf8.first == UInt8(ascii: "/")
        if !isOriginForm {
            let lowered = head.target.prefix(8).lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), let absolute = URL(string: head.target) {
                self.init(method: method, url: absolute, headers: headers, body: bodyData)
                return
            }
        }
        let authority = head.fields.first(name: "host") ?? listener()
        let target = isOriginForm ? head.target : "/" + head.target
        if let request = StubRequest(method: method, scheme: scheme, authority: authority, target: target, headers: headers, body: bodyData) {
            self = request
        } else {
            self.init(method: method, url: URL(string: "\(scheme)://\(listener())/")!, headers: headers, body: bodyData)
        }
    }

    /// What can be made of the start of a head that was refused or never finished: the method
    /// and target of its request line and the header lines read whole, so the journal shows
    /// what the client sent.
    init(partialHead bytes: ByteBuffer, scheme: String, listener: String) {
        let text = String(decoding: bytes.readableBytesView.prefix(8 * 1024), as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        if lines.count == 1 { lines = text.components(separatedBy: "\n") }
        let requestLine = lines.first?.split(separator: " ", omittingEmptySubsequences: true) ?? []
        let method = requestLine.first.map(String.init).flatMap { $0.utf8.allSatisfy { (0x21...0x7E).contains($0) } ? $0 : nil } ?? "UNKNOWN"
        var headers = HeaderFields()
        for line in lines.dropFirst().dropLast() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { continue }
            headers.add(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let target = requestLine.count > 1 ? String(requestLine[1]) : "/"
        let authority = headers["Host"] ?? listener
        if target.hasPrefix("/"), let request = StubRequest(method: method, scheme: scheme, authority: authority, target: target, headers: headers, body: nil) {
            self = request
        } else {
            self.init(method: method, url: URL(string: target).flatMap { $0.scheme == nil ? nil : $0 } ?? URL(string: "\(scheme)://\(listener)/")!, headers: headers, body: nil)
        }
    }
}
