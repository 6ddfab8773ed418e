internal import NIOCore

/// Reads the cipher suite a TLS handshake settled from the server's own hello on its way out,
/// for the journal (swift-nio-ssl does not report it). It sits in front of the TLS handler only
/// during the handshake: ``ServerConnection/accepted(_:shared:applicationProtocol:)`` takes the
/// suite and removes it, so that no request passes through it.
final class ServerHelloCipher: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The suite's IANA name (`TLS_AES_128_GCM_SHA256`), once the hello went out.
    private(set) var cipherSuite: String?
    private var looked = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !looked {
            looked = true
            cipherSuite = Self.cipherSuite(inServerHello: unwrapOutboundIn(data)).map(Self.name(of:))
        }
        context.write(data, promise: promise)
    }

    /// The cipher suite of the ServerHello at the start of `bytes`: a handshake record whose
    /// first message is a ServerHello, the suite after its version, random and session id.
    static func cipherSuite(inServerHello bytes: ByteBuffer) -> UInt16? {
        var bytes = bytes
        guard bytes.readInteger(as: UInt8.self) == 0x16,  // handshake record
              bytes.readSlice(length: 4) != nil,  // version, length
              bytes.readInteger(as: UInt8.self) == 0x02,  // ServerHello
              bytes.readSlice(length: 3 + 2 + 32) != nil,  // length, version, random
              let sessionIDLength = bytes.readInteger(as: UInt8.self),
              bytes.readSlice(length: Int(sessionIDLength)) != nil
        else { return nil }
        return bytes.readInteger(as: UInt16.self)
    }

    /// The IANA name of the suites BoringSSL offers; `0x1301` for others.
    static func name(of suite: UInt16) -> String {
        names[suite] ?? "0x" + String(suite, radix: 16, uppercase: true)
    }

    private static let names: [UInt16: String] = [
        0x1301: "TLS_AES_128_GCM_SHA256",
        0x1302: "TLS_AES_256_GCM_SHA384",
        0x1303: "TLS_CHACHA20_POLY1305_SHA256",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256",
        0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA",
        0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
    ]
}
