import Foundation
import NIOCore
import NIOHTTP1
import Understudy
@testable import UnderstudyServer
import XCTest

/// The HTTP/1.1 reading state machine on its own: for each event, the actions it asks for, in
/// order. The same behaviour on the wire is in `HTTP1ConnectionHandlerTests`, `PipeliningTests`,
/// `RequestBodyOnHeadTests` and the timeout suites.
final class HTTP1RequestReaderTests: XCTestCase {
    private static let settings = HTTP1Settings(
        maxBodySize: 100, maxHeaderCount: 50, requestHeadTimeout: .seconds(10), bodyTimeout: .seconds(5), scheme: "http",
        listener: { "127.0.0.1:80" }
    )
    private let t0 = NIODeadline.uptimeNanoseconds(1_000_000_000)

    /// The actions, written out: `answer GET /a`, `refuse 413`, `timer +5s`, `read`.
    private func drain(_ reader: inout HTTP1RequestReader) -> [String] {
        var written: [String] = []
        while let action = reader.nextAction() {
            switch action {
            case .answer(.request(let head, let body, _, let unread)):
                written.append("answer \(head.method) \(head.target)" + (body.map { " body \($0.readableBytes)" } ?? "") + (unread ? " unread" : ""))
            case .answer(.refused):
                written.append("answer refused")
            case .refuse(let answer, .request(let request)):
                written.append("refuse \(answer.response.status) \(request.head.target)")
            case .refuse(let answer, .partialHead(let bytes)):
                written.append("refuse \(answer.response.status) partial \(bytes.readableBytes)")
            case .setTimer(let deadline):
                written.append("timer +\((deadline - t0).nanoseconds / 1_000_000)ms")
            case .cancelTimer: written.append("cancel timer")
            case .read: written.append("read")
            case .close: written.append("close")
            case .renewParser: written.append("renew parser")
            }
        }
        return written
    }

    private func head(_ method: HTTPMethod = .GET, _ uri: String, _ fields: [(String, String)] = [("Host", "img.test")]) -> HTTPServerRequestPart {
        .head(HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: HTTPHeaders(fields)))
    }

    private func reader(decide: @escaping (RequestHead) -> Int?? = { _ in .some(nil) }) -> HTTP1RequestReader {
        HTTP1RequestReader(settings: Self.settings, decideBody: decide)
    }

    func testARequestIsPassedOnAtItsEndAndReadingWaitsForItsAnswer() {
        var reader = reader()
        reader.opened(at: t0)
        XCTAssertEqual(drain(&reader), ["timer +10000ms"])
        reader.partRead(head(.GET, "/a.png"), at: t0)
        XCTAssertEqual(drain(&reader), ["timer +5000ms"], "the body's timeout is the sooner")
        reader.partRead(.end(nil), at: t0)
        XCTAssertEqual(drain(&reader), ["answer GET /a.png"])
        reader.readRequested()
        XCTAssertEqual(drain(&reader), [], "no read while the answer is going")
        reader.responseEnded(at: t0 + .seconds(1))
        XCTAssertEqual(drain(&reader), ["read"])
    }

    func testPipelinedRequestsWaitTheirTurnInOrder() {
        var reader = reader()
        reader.opened(at: t0)
        _ = drain(&reader)
        for part in [head(.GET, "/a"), .end(nil), head(.GET, "/b"), .end(nil), head(.GET, "/c"), .end(nil)] {
            reader.partRead(part, at: t0)
        }
        XCTAssertEqual(drain(&reader), ["timer +5000ms", "answer GET /a"])
        reader.readRequested()
        reader.responseEnded(at: t0)
        XCTAssertEqual(drain(&reader), ["answer GET /b"])
        reader.responseEnded(at: t0)
        XCTAssertEqual(drain(&reader), ["answer GET /c"])
        reader.responseEnded(at: t0)
        XCTAssertEqual(drain(&reader), ["read"], "the read asked for meanwhile, once the queue is empty")
    }

    func testRefusalsDropWhatFollows() {
        var reader = reader()
        reader.opened(at: t0)
        _ = drain(&reader)
        reader.partRead(head(.POST, "/big", [("Host", "img.test"), ("Content-Length", "101")]), at: t0)
        XCTAssertEqual(drain(&reader), ["cancel timer", "refuse 413 /big"])
        reader.partRead(.body(ByteBuffer(string: "x")), at: t0)
        reader.partRead(.end(nil), at: t0)
        reader.partRead(head(.GET, "/next"), at: t0)
        reader.responseEnded(at: t0)
        XCTAssertEqual(drain(&reader), [], "nothing after a refusal: the connection lingers and closes")

        var hostless = self.reader()
        hostless.partRead(head(.GET, "/a", []), at: t0)
        XCTAssertEqual(drain(&hostless), ["refuse 400 /a"])

        var growing = self.reader()
        growing.partRead(head(.POST, "/up", [("Host", "img.test"), ("Transfer-Encoding", "chunked")]), at: t0)
        growing.partRead(.body(ByteBuffer(repeating: 0x61, count: 60)), at: t0)
        growing.partRead(.body(ByteBuffer(repeating: 0x61, count: 60)), at: t0)
        XCTAssertEqual(drain(&growing), ["timer +5000ms", "cancel timer", "refuse 413 /up"])

        var garbled = self.reader()
        garbled.readArriving(ByteBuffer(string: "G\u{1}T / HTTP/1.1\r\n"))
        garbled.parseFailed(.invalidMethod, at: t0)
        XCTAssertEqual(drain(&garbled), ["refuse 400 partial 16"], "journaled with the bytes read of it")
        var left = self.reader()
        left.parseFailed(.invalidEOFState, at: t0)
        XCTAssertEqual(drain(&left), ["close"], "a client that left mid-request has no one to answer")
    }

    func testAParseErrorAfterAnAnsweredRequestWaitsItsTurn() {
        var reader = reader()
        reader.partRead(head(.GET, "/a"), at: t0)
        reader.partRead(.end(nil), at: t0)
        _ = drain(&reader)
        reader.readArriving(ByteBuffer(repeating: 0x61, count: 100))
        reader.parseFailed(.headerOverflow, at: t0)
        XCTAssertEqual(drain(&reader), [], "the answer to /a goes first")
        reader.responseEnded(at: t0)
        XCTAssertEqual(drain(&reader), ["cancel timer", "refuse 431 partial 100"])
    }

    func testTimeoutsForHeadAndBody() {
        var idle = reader()
        idle.opened(at: t0)
        _ = drain(&idle)
        idle.timerFired(at: t0 + .seconds(10))
        XCTAssertEqual(drain(&idle), ["close"], "an idle connection closes without a journal entry")

        var slowloris = reader()
        slowloris.opened(at: t0)
        _ = drain(&slowloris)
        slowloris.readArriving(ByteBuffer(string: "GET /slow HT"))
        slowloris.readComplete()
        XCTAssertEqual(drain(&slowloris), [])
        slowloris.timerFired(at: t0 + .seconds(10))
        XCTAssertEqual(drain(&slowloris), ["refuse 408 partial 12"], "a head begun is journaled, with what was read")

        var slowBody = reader()
        slowBody.opened(at: t0)
        _ = drain(&slowBody)
        slowBody.partRead(head(.POST, "/up", [("Host", "img.test"), ("Content-Length", "50")]), at: t0 + .seconds(8))
        XCTAssertEqual(drain(&slowBody), [], "the head timer, at 10s, fires before the body's would")
        slowBody.timerFired(at: t0 + .seconds(10))
        XCTAssertEqual(drain(&slowBody), ["timer +13000ms"], "set again for the body's own timeout")
        slowBody.timerFired(at: t0 + .seconds(13))
        XCTAssertEqual(drain(&slowBody), ["refuse 408 /up"])

        var answering = reader()
        answering.opened(at: t0)
        answering.partRead(head(.GET, "/slow"), at: t0)
        answering.partRead(.end(nil), at: t0)
        _ = drain(&answering)
        answering.timerFired(at: t0 + .seconds(30))
        XCTAssertEqual(drain(&answering), [], "a request being answered is the stub's to time")
        answering.responseEnded(at: t0 + .seconds(30))
        XCTAssertEqual(drain(&answering), ["timer +40000ms"], "the head timeout counts again from the answer's end")
    }

    func testTheExchangeDecidesABodyBeforeItIsRead() {
        var asked: [String] = []
        var refusing = reader { head in asked.append(head.target); return nil }
        refusing.partRead(head(.GET, "/no-body"), at: t0)
        refusing.partRead(.end(nil), at: t0)
        _ = drain(&refusing)
        XCTAssertEqual(asked, [], "a request without a body is not asked about")
        refusing.responseEnded(at: t0)
        _ = drain(&refusing)
        refusing.partRead(head(.POST, "/up", [("Host", "img.test"), ("Content-Length", "50"), ("Expect", "100-continue")]), at: t0)
        XCTAssertEqual(drain(&refusing), ["cancel timer", "answer POST /up unread"])
        XCTAssertEqual(asked, ["/up"])
        refusing.partRead(.body(ByteBuffer(repeating: 0x61, count: 50)), at: t0)
        refusing.partRead(.end(nil), at: t0)
        refusing.responseEnded(at: t0)
        XCTAssertEqual(drain(&refusing), [], "the unread body and anything after it is dropped")

        var cutting = reader { _ in .some(10) }
        cutting.partRead(head(.POST, "/up", [("Host", "img.test"), ("Content-Length", "50")]), at: t0)
        cutting.partRead(.body(ByteBuffer(repeating: 0x61, count: 8)), at: t0)
        XCTAssertEqual(drain(&cutting), ["timer +5000ms"])
        cutting.partRead(.body(ByteBuffer(repeating: 0x61, count: 8)), at: t0)
        XCTAssertEqual(drain(&cutting), ["cancel timer", "answer POST /up body 16 unread"])
    }

    func testAnUpgradeRequestRenewsTheParserAfterItsAnswer() {
        var reader = reader()
        reader.partRead(head(.GET, "/a", [("Host", "img.test"), ("Connection", "Upgrade, HTTP2-Settings"), ("Upgrade", "h2c")]), at: t0)
        reader.partRead(.end(nil), at: t0)
        XCTAssertEqual(drain(&reader), ["timer +5000ms", "answer GET /a"])
        reader.responseEnded(at: t0)
        XCTAssertEqual(drain(&reader), ["renew parser"])
    }

    func testInputThatMakesNothingPastTheLimitClosesTheConnection() {
        var flood = reader()
        flood.opened(at: t0)
        flood.partRead(head(.POST, "/up", [("Host", "img.test"), ("Transfer-Encoding", "chunked")]), at: t0)
        _ = drain(&flood)
        let read = ByteBuffer(repeating: 0x3B, count: 16_384)
        var sent = 0
        while sent + read.readableBytes <= SilentInput.limit {
            flood.readArriving(read)
            flood.readComplete()
            sent += read.readableBytes
            XCTAssertEqual(drain(&flood), [], "at the limit or under it after \(sent) bytes")
        }
        flood.readArriving(read)
        flood.readComplete()
        XCTAssertEqual(drain(&flood), ["close"], "chunk extensions without end close the connection")

        var body = reader()
        body.opened(at: t0)
        body.partRead(head(.POST, "/up", [("Host", "img.test"), ("Transfer-Encoding", "chunked")]), at: t0)
        _ = drain(&body)
        for _ in 0...(2 * SilentInput.limit / read.readableBytes) {
            body.readArriving(read)
            body.partRead(.body(ByteBuffer(repeating: 0x61, count: 1)), at: t0)
            body.readComplete()
        }
        XCTAssertFalse(drain(&body).contains("close"), "input that makes parts is never counted against the limit")
    }
}
