import Foundation
import Understudy
import UnderstudyServer
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects through both transports: every 3xx a stub can send, with the method and body the
/// next hop carries, relative and absolute locations, chains and loops. Over the wire URLSession
/// follows them itself; in-process the URL protocol does (on Linux), and each hop is a journal
/// entry on both.
final class ConformanceRedirectTests: XCTestCase {
    /// The method the next hop uses, as Apple's URLSession does it (and the URL protocol
    /// in-process, which follows redirects itself on Linux): 301 and 302 turn POST into GET, 303
    /// turns every method but HEAD into GET, 307 and 308 keep method and body.
    ///
    /// URLSession over the wire on Linux (swift-corelibs-foundation) differs, and is held to
    /// what it does: a 303 turns HEAD into GET too, and no redirect resends the body (PUT after
    /// 301/302 and POST or PUT after 307/308 arrive empty).
    static func nextHop(after status: Int, _ method: String, transport: TransportPair.Transport) -> (method: String, keepsBody: Bool) {
        #if canImport(FoundationNetworking)
        let corelibsWire = transport == .server
        #else
        let corelibsWire = false
        #endif
        let next: String
        switch status {
        case 301, 302: next = method == "POST" ? "GET" : method
        case 303: next = method == "HEAD" && !corelibsWire ? "HEAD" : "GET"
        default: next = method
        }
        let hasBody = method == "POST" || method == "PUT"
        return (next, hasBody && next == method && !corelibsWire)
    }

    func testEveryRedirectStatusWithEveryMethod() async throws {
        let statuses = [301, 302, 303, 307, 308]
        let methods = ["GET", "POST", "PUT", "HEAD"]
        let observations = try await TransportPair.observe({ stubs in
            for status in statuses {
                stubs.stub(.path("/r\(status)"), named: "r\(status)", response: .redirect(to: "/echo", status: status))
            }
            stubs.stub(.path("/echo"), named: "echo") { request in
                .text("\(request.method) \(String(decoding: request.body ?? Data(), as: UTF8.self))")
            }
        }) { client in
            for status in statuses {
                for method in methods {
                    let body = method == "POST" || method == "PUT" ? Data("payload".utf8) : nil
                    await client.fetch("/r\(status)", method: method, body: body)
                }
            }
        }
        for observed in observations {
            let name = observed.transport.rawValue
            var results = observed.results.makeIterator()
            var expectedJournal: [String] = []
            for status in statuses {
                for method in methods {
                    let next = Self.nextHop(after: status, method, transport: observed.transport)
                    let echo = "\(next.method) \(next.keepsBody ? "payload" : "")"
                    let result = results.next()
                    XCTAssertEqual(result?.status, 200, "\(name) \(method) \(status): \(String(describing: result))")
                    XCTAssertEqual(result?.text, next.method == "HEAD" ? "" : echo, "\(name) \(method) \(status)")
                    expectedJournal.append("\(method) /r\(status) -> stub \"r\(status)\" \(status) 0 bytes, completed")
                    expectedJournal.append("\(next.method) /echo -> stub \"echo\" 200 \(next.method == "HEAD" ? 0 : echo.utf8.count) bytes, completed")
                }
            }
            XCTAssertEqual(observed.journal.map(\.description), expectedJournal, name)
        }
    }

    func testRelativeLocationsInAChain() async throws {
        var base = ""
        let observed = try await conform("locations", ignoringHeaders: TransportPair.madeAtRequestTime, { stubs in
            stubs.stub(.path("/a"), named: "a", response: .redirect(to: "/b", status: 301))
            stubs.stub(.path("/b"), named: "b", response: .redirect(to: "c?from=b", status: 307))
            stubs.stub(.path("/c"), named: "c") { request in .text("end \(request.url.query ?? "")") }
            // Locations relative to a directory other than the root are left out: URLSession over
            // the wire on Linux resolves "y" from /dir/x to /y, not /dir/y.
        }) { client in
            base = client.base.absoluteString
            await client.fetch("/a")
        }
        XCTAssertEqual(observed.results.map(\.text), ["end from=b"])
        if case .response(let url, _, _, _) = observed.results[0] {
            XCTAssertEqual(url, base + "/c?from=b", "the response's URL is the last hop's")
        }
        XCTAssertEqual(observed.journal.map(\.stubName), ["a", "b", "c"])
        XCTAssertEqual(observed.journal.map(\.status), [301, 307, 200])
        XCTAssertEqual(observed.journal.map(\.bodyBytesSent), [0, 0, 10])
    }

    func testAnAbsoluteLocationOnTheSameHost() async throws {
        let observed = try await conform("absolute location", ignoringHeaders: TransportPair.madeAtRequestTime, { stubs in
            stubs.stub(.path("/old"), named: "old") { request in
                .redirect(to: "http://\(request.host):\(request.port ?? 80)/new", status: 308)
            }
            stubs.stub(.path("/new"), named: "new", response: .text("new"))
        }) { client in
            await client.fetch("/old")
        }
        XCTAssertEqual(observed.results.first?.text, "new")
        XCTAssertEqual(observed.journal.map(\.stubName), ["old", "new"])
    }

    /// A redirect loop ends in `URLError(.httpTooManyRedirects)`: in-process after 16 hops, as
    /// Apple's URLSession; URLSession over the wire on Linux follows 20.
    func testARedirectLoopEndsWithTooManyRedirects() async throws {
        let observations = try await TransportPair.observe({ stubs in
            stubs.stub(.path("/loop"), named: "loop", response: .redirect(to: "/loop", status: 302))
        }) { client in
            await client.fetch("/loop")
        }
        for observed in observations {
            #if canImport(FoundationNetworking)
            let hops = observed.transport == .server ? 20 : 16
            #else
            let hops = 16
            #endif
            XCTAssertEqual(observed.results.first?.errorCode, .httpTooManyRedirects, observed.transport.rawValue)
            XCTAssertEqual(observed.journal.map(\.description), Array(repeating: #"GET /loop -> stub "loop" 302 0 bytes, completed"#, count: hops + 1),
                           "\(observed.transport): the first request and \(hops) redirects followed")
        }
    }
}
