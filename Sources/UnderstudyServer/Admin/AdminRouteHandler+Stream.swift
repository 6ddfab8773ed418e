import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

extension AdminRouteHandler {
    /// Sends a streamed admin response (server-sent events): the head without a length, then
    /// each chunk as the stream yields it, one at a time (the next waits for the last to be
    /// written), until the stream ends or the client goes away; then the connection closes.
    func startStream(_ response: AdminResponse, _ stream: AsyncStream<Data>, version: HTTPVersion, sendsBody: Bool, context: ChannelHandlerContext) {
        let channel = context.channel
        var head = "HTTP/\(version.major).\(version.minor) \(response.status) \(HTTPResponseStatus(statusCode: response.status).reasonPhrase)\r\n"
        for header in response.headers where header.name.lowercased() != "content-length" {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        let loop = context.eventLoop
        let bound = NIOLoopBound(context, eventLoop: loop)
        context.writeAndFlush(NIOAny(IOData.byteBuffer(channel.allocator.buffer(string: head))), promise: nil)
        guard sendsBody else {
            channel.close(promise: nil)
            return
        }
        let task = Task {
            for await chunk in stream {
                let written = loop.flatSubmit {
                    bound.value.writeAndFlush(NIOAny(IOData.byteBuffer(channel.allocator.buffer(bytes: chunk))))
                }
                guard (try? await written.get()) != nil else { break }
            }
            channel.close(promise: nil)
        }
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }
}
