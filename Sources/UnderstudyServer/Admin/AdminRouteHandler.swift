import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// Sends requests under `/__admin/` to the ``AdminAPI`` and writes its answers; every other
/// request goes on to the stubs. Admin requests are never matched against stubs nor journaled.
final class AdminRouteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ServerRequest
    typealias InboundOut = ServerRequest

    private let admin: AdminAPI
    private var context: ChannelHandlerContext?

    init(admin: AdminAPI) {
        self.admin = admin
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A byte test first: every request passes here, and few are for the admin API.
        guard case .request(let head, let body, _) = unwrapInboundIn(data),
              head.uri.utf8.starts(with: "/__admin".utf8), AdminAPI.isAdminPath(String(head.uri.prefix { $0 != "?" }))
        else {
            return context.fireChannelRead(data)
        }
        answer(head, body: body, context: context)
    }

    private func answer(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        var headers = HeaderFields()
        for header in head.headers {
            headers.add(name: header.name, value: header.value)
        }
        let request = AdminRequest(
            method: head.method.rawValue, target: head.uri, headers: headers, body: body.map { Data($0.readableBytesView) } ?? Data()
        )
        let admin = self.admin
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let promise = context.eventLoop.makePromise(of: AdminResponse.self)
        promise.completeWithTask { await admin.handle(request) }
        let keepAlive = head.isKeepAlive
        let version = head.version
        let sendsBody = head.method != .HEAD
        promise.futureResult.whenSuccess { response in
            guard let context = handler.value.context else { return }
            if let stream = response.stream {
                handler.value.startStream(response, stream, version: version, sendsBody: sendsBody, context: context)
            } else {
                handler.value.write(response, version: version, keepAlive: keepAlive, sendsBody: sendsBody, context: context)
            }
        }
    }

    private func write(_ response: AdminResponse, version: HTTPVersion, keepAlive: Bool, sendsBody: Bool, context: ChannelHandlerContext) {
        let allocator = context.channel.allocator
        let wire: WireResponse
        do throws(WireResponse.InvalidHeader) {
            wire = try WireResponse(PreparedResponse(status: response.status, headers: response.headers, body: response.body), allocator: allocator)
        } catch {
            wire = try! WireResponse(.text(status: 500, "admin response cannot be sent: \(error.message)\n"), allocator: allocator)
        }
        context.write(NIOAny(IOData.byteBuffer(wire.head(version: version, keepAlive: keepAlive, closing: false, allocator: allocator))), promise: nil)
        if sendsBody, wire.body.readableBytes > 0 {
            context.write(NIOAny(IOData.byteBuffer(wire.body)), promise: nil)
        }
        if keepAlive {
            context.flush()
            context.triggerUserOutboundEvent(ResponseEnded(), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(NIOAny(IOData.byteBuffer(allocator.buffer(capacity: 0)))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
