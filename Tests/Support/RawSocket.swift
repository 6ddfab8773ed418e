import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The platform's spelling of a stream socket, and how a send avoids SIGPIPE when the peer has
// gone: a flag on each send on Linux, a socket option (`SO_NOSIGPIPE`) on Darwin.
#if os(Linux)
private let streamType = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)
private func suppressSIGPIPE(_ fd: Int32) {}
#elseif canImport(Darwin)
private let streamType = SOCK_STREAM
private let sendFlags: Int32 = 0
private func suppressSIGPIPE(_ fd: Int32) {
    var on: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
}
#endif

/// A TCP socket of this platform, with SIGPIPE off for its sends.
private func makeStreamSocket() -> Int32 {
    let fd = socket(AF_INET, streamType, 0)
    if fd >= 0 { suppressSIGPIPE(fd) }
    return fd
}

/// `127.0.0.1:port` as the socket API takes it.
private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    #if canImport(Darwin)
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// Sends on `fd` (at file scope, where `send` is the C function, not `RawSocket.send`).
private func sendBytes(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    send(fd, buffer.baseAddress, buffer.count, sendFlags)
}

/// A port nothing listens on now on 127.0.0.1: bound with port 0, read back, released (for a
/// tool that cannot be told to pick a port itself).
public func freeLoopbackPort() throws -> Int {
    let fd = makeStreamSocket()
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts connections on 127.0.0.1:`port` now.
public func acceptsConnections(port: Int) -> Bool {
    (try? RawSocket(port: port)) != nil
}

/// A raw TCP client on loopback, for what real clients will not send and for telling how the
/// server ended a connection: a close (FIN), a reset (RST), or nothing at all.
public final class RawSocket {
    /// What a read received, and why it stopped.
    public struct Received: Equatable, CustomStringConvertible {
        /// The bytes read.
        public let bytes: [UInt8]
        /// Why the read stopped.
        public let ending: Ending

        /// The bytes as UTF-8.
        public var text: String { String(decoding: bytes, as: UTF8.self) }
        public var description: String { "\(ending) after \(bytes.count) bytes: \(text.debugDescription)" }
    }

    /// Why a read stopped. A receive timeout is never taken for the end of the stream: a
    /// connection the server left open must not pass a check that it closed.
    public enum Ending: Equatable, CustomStringConvertible {
        /// What the read waited for arrived (a marker, a count); the connection may be open.
        case satisfied
        /// The peer closed (`recv` returned 0: FIN).
        case closed
        /// The peer reset the connection (`ECONNRESET`: RST).
        case reset
        /// Nothing arrived within the receive timeout (`EAGAIN`): the connection is still open.
        case timedOut
        /// `recv` failed with another `errno`.
        case failed(Int32)

        public var description: String {
            switch self {
            case .satisfied: return "satisfied"
            case .closed: return "closed (FIN)"
            case .reset: return "reset (RST)"
            case .timedOut: return "timed out, still open"
            case .failed(let code): return "failed: \(String(cString: strerror(code)))"
            }
        }
    }

    /// The socket's descriptor.
    public let fd: Int32

    /// Connects to 127.0.0.1:`port`; a read gives up after `receiveTimeout` seconds of silence.
    public init(port: Int, receiveTimeout: Int = 5) throws {
        fd = makeStreamSocket()
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = loopbackAddress(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends `text` as UTF-8.
    public func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Sends bytes; false when the peer has gone.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { sendBytes(fd, $0) } == bytes.count
    }

    /// Reads until `marker` has arrived (``Ending/satisfied``), or the peer closes or resets,
    /// or nothing arrives for the receive timeout. Without a marker, reads to the end.
    public func read(until marker: String? = nil) -> Received {
        let pattern = marker.map { Array($0.utf8) }
        return read(stoppingWhen: { bytes in pattern.map { Self.count(of: $0, in: bytes) > 0 } ?? false })
    }

    /// Reads until `count` occurrences of `marker` have arrived, or the peer closes or resets,
    /// or nothing arrives for the receive timeout.
    public func read(occurrences count: Int, of marker: String) -> Received {
        let pattern = Array(marker.utf8)
        return read(stoppingWhen: { Self.count(of: pattern, in: $0) >= count })
    }

    /// Reads until `isEnough` says so, or the stream ends one way or another.
    public func read(stoppingWhen isEnough: ([UInt8]) -> Bool) -> Received {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            if isEnough(data) { return Received(bytes: data, ending: .satisfied) }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                data += buffer[0..<count]
                continue
            }
            if count == 0 { return Received(bytes: data, ending: .closed) }
            switch errno {
            case EINTR: continue
            case ECONNRESET: return Received(bytes: data, ending: .reset)
            case EAGAIN, EWOULDBLOCK: return Received(bytes: data, ending: .timedOut)
            case let code: return Received(bytes: data, ending: .failed(code))
            }
        }
    }

    /// Non-overlapping occurrences of `pattern` in `bytes`.
    public static func count(of pattern: [UInt8], in bytes: [UInt8]) -> Int {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return 0 }
        var found = 0
        var index = 0
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) {
                found += 1
                index += pattern.count
            } else {
                index += 1
            }
        }
        return found
    }

    /// Where `pattern` first occurs in `bytes`.
    public static func firstIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        return (0...(bytes.count - pattern.count)).first { bytes[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }

    deinit {
        close(fd)
    }
}
