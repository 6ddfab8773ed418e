import NIOCore
import NIOEmbedded
@testable import UnderstudyServer
import XCTest

/// The flushes of one event loop's turn: held until the tasks queued during the turn run, then
/// made once each, in the order asked, for every connection of the loop; ``TurnFlushes/flushNow(_:)``
/// takes one connection's out of the batch.
final class TurnFlushesTests: XCTestCase {
    /// Counts the flushes that reach the socket end of the pipeline.
    private final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var flushes = 0
        var onFlush: () -> Void = {}

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            onFlush()
            context.flush()
        }
    }

    /// Stands for the handler that writes a response; its context is the one handed to ``TurnFlushes``.
    private final class Writer: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
    }

    /// A connection on `loop` with `text` written but not flushed, and the writer's context.
    private struct Connection {
        let channel: EmbeddedChannel
        let counter: FlushCounter
        let context: ChannelHandlerContext

        init(on loop: EmbeddedEventLoop, writing text: String) throws {
            counter = FlushCounter()
            let writer = Writer()
            channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandlers(counter, writer)
            context = try channel.pipeline.syncOperations.context(handler: writer)
            context.write(NIOAny(ByteBuffer(string: text)), promise: nil)
        }

        /// What reached the socket, as text.
        func sent() throws -> [String] {
            var sent: [String] = []
            while let bytes = try channel.readOutbound(as: ByteBuffer.self) { sent.append(String(buffer: bytes)) }
            return sent
        }
    }

    func testAFlushWaitsForTheEndOfTheTurnAndIsMadeOnce() throws {
        let loop = EmbeddedEventLoop()
        let connection = try Connection(on: loop, writing: "response")
        defer { _ = try? connection.channel.finish() }
        let flushes = TurnFlushes()

        flushes.flushAtTurnEnd(connection.context)
        XCTAssertEqual(try connection.sent(), [], "nothing leaves before the turn ends")
        XCTAssertEqual(connection.counter.flushes, 0)
        loop.run()
        XCTAssertEqual(try connection.sent(), ["response"])
        XCTAssertEqual(connection.counter.flushes, 1)
        loop.run()
        XCTAssertEqual(connection.counter.flushes, 1, "a flush is made once, not at every turn after")
    }

    func testEveryConnectionOfTheLoopIsFlushedAtTheEndOfTheTurnInTheOrderAsked() throws {
        let loop = EmbeddedEventLoop()
        let names = ["a", "b", "c"]
        let connections = try names.map { try Connection(on: loop, writing: $0) }
        defer { for connection in connections { _ = try? connection.channel.finish() } }
        var order: [String] = []
        for (connection, name) in zip(connections, names) {
            connection.counter.onFlush = { order.append(name) }
        }
        let flushes = TurnFlushes()
        for index in [2, 0, 1] {
            flushes.flushAtTurnEnd(connections[index].context)
        }
        XCTAssertEqual(order, [], "nothing leaves before the turn ends")
        loop.run()
        XCTAssertEqual(order, ["c", "a", "b"])
        XCTAssertEqual(try connections.map { try $0.sent() }, [["a"], ["b"], ["c"]])
    }

    func testFlushNowFlushesThatConnectionAtOnceAndOnlyOnce() throws {
        let loop = EmbeddedEventLoop()
        let ending = try Connection(on: loop, writing: "last words")
        let other = try Connection(on: loop, writing: "other")
        defer {
            _ = try? ending.channel.finish()
            _ = try? other.channel.finish()
        }
        let flushes = TurnFlushes()
        flushes.flushAtTurnEnd(ending.context)
        flushes.flushAtTurnEnd(other.context)

        flushes.flushNow(ending.channel)
        XCTAssertEqual(try ending.sent(), ["last words"], "at once, before the turn ends")
        XCTAssertEqual(ending.counter.flushes, 1)
        XCTAssertEqual(try other.sent(), [], "the others still wait for the end of the turn")
        flushes.flushNow(ending.channel)
        XCTAssertEqual(ending.counter.flushes, 1, "nothing is left to flush for it")

        loop.run()
        XCTAssertEqual(try other.sent(), ["other"])
        XCTAssertEqual(other.counter.flushes, 1)
        XCTAssertEqual(ending.counter.flushes, 1, "not flushed again at the end of the turn")
    }

    func testFlushNowForAConnectionWithNothingPendingDoesNothing() throws {
        let loop = EmbeddedEventLoop()
        let idle = try Connection(on: loop, writing: "unflushed")
        defer { _ = try? idle.channel.finish() }
        let flushes = TurnFlushes()
        flushes.flushNow(idle.channel)
        XCTAssertEqual(idle.counter.flushes, 0)
        XCTAssertEqual(try idle.sent(), [], "its writes wait for a flush someone asks for")
    }

    func testTheNextTurnBatchesItsOwnFlushes() throws {
        let loop = EmbeddedEventLoop()
        let connection = try Connection(on: loop, writing: "first")
        defer { _ = try? connection.channel.finish() }
        let flushes = TurnFlushes()
        flushes.flushAtTurnEnd(connection.context)
        loop.run()
        XCTAssertEqual(try connection.sent(), ["first"])

        connection.context.write(NIOAny(ByteBuffer(string: "second")), promise: nil)
        flushes.flushAtTurnEnd(connection.context)
        XCTAssertEqual(try connection.sent(), [], "held until the end of this turn too")
        loop.run()
        XCTAssertEqual(try connection.sent(), ["second"])
        XCTAssertEqual(connection.counter.flushes, 2, "one in each turn")
    }
}
