import Foundation
internal import NIOCore
import Understudy

/// A request whose head is in and whose body may still be arriving, collected the same way by
/// HTTP/1.1 and HTTP/2, under the same limit on its size.
struct ArrivingRequest {
    let head: RequestHead
    /// The body so far, `nil` while none has come.
    private(set) var body: ByteBuffer?
    /// When the head arrived (the journal entry's start time).
    let start: Date
    /// The loop's clock then.
    let headTime: NIODeadline
    /// Past how many bytes of body the rest is not read (``StubRegistry/BodyHandling/cutAfter``).
    var cutAfter: Int?

    /// What became of a piece of the body.
    enum Intake {
        /// Added; more may come.
        case taken
        /// Not added: the body would go over the limit.
        case overLimit
        /// Added, and the body is now past ``cutAfter``: the rest is not read.
        case cut
    }

    init(_ head: RequestHead, at headTime: NIODeadline) {
        self.head = head
        self.start = Date()
        self.headTime = headTime
    }

    /// Adds `chunk` to the body, unless the body would go over `limit` bytes.
    mutating func append(_ chunk: ByteBuffer, limit: Int) -> Intake {
        guard (body?.readableBytes ?? 0) + chunk.readableBytes <= limit else { return .overLimit }
        if body == nil {
            body = chunk
        } else {
            var chunk = chunk
            body!.writeBuffer(&chunk)
        }
        if let cutAfter, body!.readableBytes > cutAfter { return .cut }
        return .taken
    }

    /// When it arrived, whole at `endTime`.
    func arrival(endingAt endTime: NIODeadline) -> ServerRequest.Arrival {
        ServerRequest.Arrival(start: start, headTime: headTime, endTime: endTime)
    }

    /// The request, whole at `endTime`: its head and body moved into it, not copied (a copy
    /// retained and released each part of the head).
    consuming func whole(at endTime: NIODeadline, bodyUnread: Bool = false) -> ServerRequest {
        .request(head, body: body, arrival: arrival(endingAt: endTime), bodyUnread: bodyUnread)
    }
}

extension StubAnswer {
    /// 413: the request's body is (or says it is) over `limit` bytes.
    static func bodyOverLimit(_ limit: Int) -> StubAnswer {
        .refused(status: 413, "request body over the limit of \(limit) bytes")
    }

    /// 408: the request's body did not arrive within `timeout` of its head.
    static func bodyTimedOut(_ timeout: TimeAmount) -> StubAnswer {
        .refused(status: 408, "request body not received within \(timeout.prettyPrint)")
    }
}
