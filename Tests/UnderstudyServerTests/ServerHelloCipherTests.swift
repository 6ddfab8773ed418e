import NIOCore
@testable import UnderstudyServer
import XCTest

/// Reading the suite from the server's hello: a hello as BoringSSL writes one, and bytes that
/// are not one (an alert, a cut record), which give no suite rather than a wrong one.
final class ServerHelloCipherTests: XCTestCase {
    private func hello(sessionID: [UInt8], suite: UInt16) -> ByteBuffer {
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 0xAB, count: 32) + [UInt8(sessionID.count)] + sessionID
        body += [UInt8(suite >> 8), UInt8(suite & 0xFF), 0x00]
        let handshake: [UInt8] = [0x02, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        return ByteBuffer(bytes: [0x16, 0x03, 0x03, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)] + handshake)
    }

    func testTheSuiteIsReadAfterTheSessionID() {
        XCTAssertEqual(ServerHelloCipher.cipherSuite(inServerHello: hello(sessionID: Array(repeating: 7, count: 32), suite: 0x1302)), 0x1302)
        XCTAssertEqual(ServerHelloCipher.cipherSuite(inServerHello: hello(sessionID: [], suite: 0xC02F)), 0xC02F)
        XCTAssertEqual(ServerHelloCipher.name(of: 0x1302), "TLS_AES_256_GCM_SHA384")
        XCTAssertEqual(ServerHelloCipher.name(of: 0xC02F), "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")
        XCTAssertEqual(ServerHelloCipher.name(of: 0x00FF), "0xFF")
    }

    func testBytesThatAreNotAHelloGiveNoSuite() {
        XCTAssertNil(ServerHelloCipher.cipherSuite(inServerHello: ByteBuffer(bytes: TLSContextProvider.handshakeFailureAlert)))
        var cut = hello(sessionID: [1, 2, 3], suite: 0x1301)
        cut.moveWriterIndex(to: 40)
        XCTAssertNil(ServerHelloCipher.cipherSuite(inServerHello: cut))
        XCTAssertNil(ServerHelloCipher.cipherSuite(inServerHello: ByteBuffer()))
    }
}
