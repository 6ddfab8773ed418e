import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import UnderstudyServer
import XCTest

/// A tiny HTTPS server for the TLS pieces alone: `TLSContextProvider.addTLS` in front of an HTTP/1.1
/// responder that answers every request `200 tls ok: HOST PATH` and closes. It stands in for
/// the stub server's pipeline, which is wired to the provider separately.
final class TLSTestServer {
    let group: MultiThreadedEventLoopGroup
    let channel: Channel
    var port: Int { channel.localAddress!.port! }

    init(provider: TLSContextProvider, defaultHost: String = "127.0.0.1") throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try provider.addTLS(to: channel.pipeline.syncOperations, defaultHost: defaultHost)
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(TLSTestResponder())
                    }
                }
                .bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Answers each request `200` with `tls ok: HOST PATH` and closes the connection.
private final class TLSTestResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            let host = head?.headers.first(name: "Host") ?? "-"
            let body = ByteBuffer(string: "tls ok: \(host) \(head?.uri ?? "-")")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Runs a command-line client to completion with stdin closed (openssl s_client waits on it);
/// each caller bounds its own run time (curl --max-time, s_client ends at EOF).
func runClient(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    process.standardInput = FileHandle.nullDevice
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
}

/// A Python `urllib` GET of `url` trusting only `caFile`, with `host` resolved to 127.0.0.1;
/// prints `STATUS BODY`, or `ERROR <the exception>` and exits 1.
func pythonGet(_ url: String, caFile: String, host: String, port: Int) throws -> ProcessResult {
    let script = """
        import socket, ssl, sys, urllib.request
        real = socket.getaddrinfo
        def resolve(host, *args, **kwargs):
            return real("127.0.0.1" if host == sys.argv[3] else host, *args, **kwargs)
        socket.getaddrinfo = resolve
        context = ssl.create_default_context(cafile=sys.argv[2])
        try:
            with urllib.request.urlopen(sys.argv[1], context=context, timeout=10) as response:
                print(response.status, response.read().decode())
        except Exception as error:
            print("ERROR", error)
            sys.exit(1)
        """
    return try runClient("python3", ["-c", script, url, caFile, host, String(port)])
}
