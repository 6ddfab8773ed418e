import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy

/// Sends HTTP/1.1 requests under `/__admin/` to the ``AdminAPI`` through an ``AdminExchange``
/// (the code HTTP/2 streams use too); every other request goes on to the stubs. Admin requests
/// are never matched against stubs nor journaled.
final class AdminRouteHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ServerRequest
    typealias InboundOut = ServerRequest

    private let admin: AdminAPI
    private var writer: HTTP1ResponseWriter?
    private var exchange: AdminExchange?

    init(admin: AdminAPI) {
        self.admin = admin
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Admin bodies are in memory: never sent from a file.
        writer = HTTP1ResponseWriter(context: context, sendsFiles: false)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        exchange?.cancel()
        exchange = nil
        // The writer holds the context, which holds this handler.
        writer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .request(let head, let body, _) = unwrapInboundIn(data), AdminExchange.isAdmin(head.uri), let writer else {
            return context.fireChannelRead(data)
        }
        exchange = AdminExchange.start(head, body: body, admin: admin, writer: writer)
    }

    func channelInactive(context: ChannelHandlerContext) {
        exchange?.cancel()
        exchange = nil
        context.fireChannelInactive()
    }
}
