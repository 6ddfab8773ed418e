import Foundation
internal import NIOCore
internal import NIOHTTP1
import Understudy
import UnderstudyImages
import UnderstudySupport

/// A prepared response as bytes for the wire: its head framed once (status line and validated
/// header lines) and its body in a `ByteBuffer`, made once per rendering and shared by every
/// connection of an event loop that sends it. A `ByteBuffer` slice shares storage, so sending
/// the same file twice copies nothing, and the usual head (HTTP/1.1, keep-alive) is written
/// as it is, so answering a canned stub encodes nothing per request.
///
/// NIOHTTP1 parses every request; the response side is framed here because NIO's encoder
/// would serialise the same headers anew for each response. Framing follows NIO's encoder:
/// `Content-Length` wins over `Transfer-Encoding`, and 1xx, 204 and 304 carry neither.
///
/// A class: immutable once framed, it is handed from the cache to the writer and kept there
/// for each response, and as a struct of seven references each of those copies would retain
/// and release every one.
final class WireResponse: Sendable {
    /// Why a response cannot go on the wire as given.
    struct InvalidHeader: Error, Sendable {
        let message: String
    }

    let status: HTTPResponseStatus
    /// The stub that answers with it, for the faults' own heads.
    let stubName: String?
    let body: ByteBuffer
    /// The body's file, open, when the body may be sent from it (see ``WireResponseCache``).
    let file: OpenFile?
    /// Where in ``file`` the body starts (a range's first byte).
    let fileOffset: Int
    /// Every header line but `Connection`, each ending in CRLF.
    private let fields: ByteBuffer
    /// The stub's own `Connection` value, sent when nothing overrides it.
    private let connection: String?
    /// The whole head for an HTTP/1.1 keep-alive exchange, the common case.
    private let keepAliveHead: ByteBuffer
    /// ``keepAliveHead`` and the whole body in one buffer, for a small body in memory: an
    /// answer sent at once goes down the pipeline and into the socket as one write.
    let keepAliveResponse: ByteBuffer?

    /// The largest body kept a second time in ``keepAliveResponse``.
    static let joinedBodyLimit = 16 * 1024

    /// Checks and frames `prepared`.
    /// - Throws: ``InvalidHeader`` naming a header that cannot be sent (not a token, or a value
    ///   with CR, LF or NUL), which would otherwise split the response.
    init(_ prepared: PreparedResponse, allocator: ByteBufferAllocator, file: OpenFile? = nil) throws(InvalidHeader) {
        let hasNoBody = PreparedResponse.hasNoBody(status: prepared.status)
        let hasLength = prepared.headers["Content-Length"] != nil
        var fields = allocator.buffer(capacity: 256)
        var connection: String?
        for field in prepared.headers {
            if let problem = Self.problem(name: field.name, value: field.value) {
                throw InvalidHeader(message: problem)
            }
            if field.name.utf8.count == 10, field.name.lowercased() == "connection" {
                connection = field.value
                continue
            }
            let framing = field.name.lowercased()
            if hasNoBody, framing == "content-length" || framing == "transfer-encoding" { continue }
            if hasLength, framing == "transfer-encoding" { continue }
            fields.writeString(field.name)
            fields.writeStaticString(": ")
            fields.writeString(field.value)
            fields.writeStaticString("\r\n")
        }
        self.status = HTTPResponseStatus(statusCode: prepared.status)
        self.stubName = prepared.stubName
        self.file = file
        self.fileOffset = file == nil ? 0 : prepared.sourceFile?.offset ?? 0
        self.fields = fields
        self.connection = connection
        let keepAliveHead = Self.frame(status: status, version: .http1_1, fields: fields, connection: connection, allocator: allocator)
        if file == nil, !hasNoBody, prepared.body.count <= Self.joinedBodyLimit,
           Self.held(keepAliveHead.readableBytes + prepared.body.count) <= Self.held(keepAliveHead.readableBytes) + Self.held(prepared.body.count) {
            // One buffer, of which the head and the body are slices: one allocation kept per
            // rendering (shared by the event loops) rather than two, unless the two hold less
            // (a body that fills its own buffer exactly would double the joined one).
            let headLength = keepAliveHead.readableBytes
            let joined = Self.buffer(count: headLength + prepared.body.count, allocator: allocator) { memory in
                keepAliveHead.withUnsafeReadableBytes { memory.copyMemory(from: $0) }
                prepared.body.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: memory[headLength...]))
            }
            keepAliveResponse = joined
            self.keepAliveHead = joined.getSlice(at: joined.readerIndex, length: headLength)!
            self.body = joined.getSlice(at: joined.readerIndex + headLength, length: prepared.body.count)!
        } else {
            keepAliveResponse = nil
            self.keepAliveHead = keepAliveHead
            self.body = Self.buffer(count: prepared.body.count, allocator: allocator) { prepared.body.copyBytes(to: $0) }
        }
    }

    /// The bytes a buffer of `count` bytes holds: NIO gives every buffer a power of two.
    static func held(_ count: Int) -> Int {
        count <= 1 ? count : 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    }

    /// A buffer of `count` bytes, filled by `fill`.
    static func buffer(count: Int, allocator: ByteBufferAllocator, _ fill: (UnsafeMutableRawBufferPointer) -> Void) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: count)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { memory in
            fill(UnsafeMutableRawBufferPointer(rebasing: memory[..<count]))
            return count
        }
        return buffer
    }

    /// Whether `head(version:keepAlive:closing:allocator:)` would give ``keepAliveHead``.
    func sendsKeepAliveHead(version: HTTPVersion, keepAlive: Bool, closing: Bool) -> Bool {
        keepAlive && !closing && version == .http1_1
    }

    /// The status line and headers for a client speaking `version`.
    /// - Parameters:
    ///   - version: the request's HTTP version, echoed in the status line.
    ///   - keepAlive: whether the client asked to keep the connection.
    ///   - closing: whether the server closes after this response (truncation, faults).
    ///   - allocator: for the heads that are not the usual one.
    func head(version: HTTPVersion, keepAlive: Bool, closing: Bool, allocator: ByteBufferAllocator) -> ByteBuffer {
        if !keepAlive || closing {
            return Self.frame(status: status, version: version, fields: fields, connection: "close", allocator: allocator)
        }
        if sendsKeepAliveHead(version: version, keepAlive: keepAlive, closing: closing) {
            return keepAliveHead
        }
        let value = version.major == 1 && version.minor == 0 ? "keep-alive" : connection
        return Self.frame(status: status, version: version, fields: fields, connection: value, allocator: allocator)
    }

    private static func frame(
        status: HTTPResponseStatus, version: HTTPVersion, fields: ByteBuffer, connection: String?, allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        var head = allocator.buffer(capacity: fields.readableBytes + 64)
        head.writeString("HTTP/\(version.major).\(version.minor) \(status.code) \(status.reasonPhrase)\r\n")
        var fields = fields
        head.writeBuffer(&fields)
        if let connection {
            head.writeStaticString("Connection: ")
            head.writeString(connection)
            head.writeStaticString("\r\n")
        }
        head.writeStaticString("\r\n")
        return head
    }

    /// What is wrong with a header line, or `nil` when it can be sent.
    static func problem(name: String, value: String) -> String? {
        if !HTTPFieldSyntax.isToken(name) {
            return "header name \"\(name)\" is not an HTTP token"
        }
        if !HTTPFieldSyntax.isValidValue(value) {
            return "header \(name)'s value contains CR, LF or NUL"
        }
        return nil
    }
}

/// A file kept open to send a body from with `sendfile(2)`, closed when the last response
/// using it and the last write of its bytes are gone: a queued write (NIO's `FileRegion`) is
/// written with a promise whose callback holds this object (``HTTP1ResponseWriter``).
final class OpenFile: Sendable {
    let handle: NIOFileHandle

    /// Opens `source` if it is still the version the body was read from; `nil` otherwise.
    init?(_ source: PreparedResponse.SourceFile) {
        guard let handle = try? NIOFileHandle(_deprecatedPath: source.path) else { return nil }
        let current = try? handle.withUnsafeFileDescriptor { FileStamp(descriptor: $0) }
        guard current == source.stamp else {
            try? handle.close()
            return nil
        }
        self.handle = handle
    }

    /// Keeps the file open until `written`, a write of its bytes, is done or failed.
    func keepOpen(until written: EventLoopFuture<Void>) {
        written.whenComplete { _ in withExtendedLifetime(self) {} }
    }

    deinit {
        try? handle.close()
    }
}

/// The ``WireResponse``s of one event loop, by rendering: touched only on that loop, so
/// looking one up takes no lock (with a shared cache, the loops would take turns on one).
///
/// A rendering's bytes are made once for the whole server, not once per loop: a loop that has
/// not sent a rendering yet takes it from the ``SharedWireResponses`` (one lock, once per
/// rendering and loop) and keeps it; `ByteBuffer`s are copy-on-write and only read once made,
/// so every loop sends the same storage, where each loop framing its own copy would hold
/// every rendering once per loop.
///
/// A large body read from a file is sent from the file itself with `sendfile(2)`, as nginx
/// does: copying it into the socket would be a large share of such a response's CPU. Files
/// are kept open for at most ``maxOpenFiles`` renderings per loop; beyond that, and for small
/// bodies, the bytes are copied. A ``BoundedCache`` of ``maxEntries`` renderings: renderings are
/// replaced when files change, and the least recently sent go first (their files close once
/// their last write is done, ``OpenFile``).
final class WireResponseCache {
    /// Bodies from this size on are sent from their file.
    static let sendfileThreshold = 64 * 1024
    /// Whether large bodies go from their files at all; the `UNDERSTUDY_PORTABLE` build copies
    /// every body, as a platform without `sendfile(2)` would.
    #if UNDERSTUDY_PORTABLE
    static let sendsFromFiles = false
    #else
    static let sendsFromFiles = true
    #endif
    /// The most files one loop keeps open.
    static let maxOpenFiles = 64
    /// The most renderings one loop keeps framed.
    static let maxEntries = 4096

    private let shared: SharedWireResponses
    private var entries = BoundedCache<UInt64, WireResponse>(countLimit: WireResponseCache.maxEntries)
    private var openFiles = 0

    init(shared: SharedWireResponses = SharedWireResponses()) {
        self.shared = shared
    }

    /// The wire form of `prepared`, made once per rendering (``PreparedResponse/renderID``).
    func response(for prepared: PreparedResponse, allocator: ByteBufferAllocator) throws(WireResponse.InvalidHeader) -> WireResponse {
        guard let id = prepared.renderID else { return try WireResponse(prepared, allocator: allocator) }
        if let cached = entries.value(for: id) { return cached }
        let wire: WireResponse
        if Self.sendsFromFiles, let source = prepared.sourceFile, prepared.body.count >= Self.sendfileThreshold, openFiles < Self.maxOpenFiles,
           let file = OpenFile(source) {
            // Per loop: the open files are counted per loop, and such a body is sent from its file.
            openFiles += 1
            wire = try WireResponse(prepared, allocator: allocator, file: file)
        } else {
            wire = try shared.response(for: prepared, id: id, allocator: allocator)
        }
        entries.insert(wire, for: id) { evicted in
            if evicted.file != nil { self.openFiles -= 1 }
        }
        return wire
    }
}

/// The ``WireResponse``s (without an open file) of every event loop, by rendering: each made
/// once for the server, so its bytes live once however many loops send it. Locked, but asked
/// only when a loop's own ``WireResponseCache`` has not seen a rendering yet.
final class SharedWireResponses: Sendable {
    private let entries = LockedState(BoundedCache<UInt64, WireResponse>(countLimit: WireResponseCache.maxEntries))

    /// The wire form of `prepared` (rendering `id`), made by the first loop that asks.
    func response(for prepared: PreparedResponse, id: UInt64, allocator: ByteBufferAllocator) throws(WireResponse.InvalidHeader) -> WireResponse {
        if let cached = entries.withLock({ $0.value(for: id) }) { return cached }
        // Framed outside the lock; when two loops race, both keep the first one stored.
        let made = try WireResponse(prepared, allocator: allocator)
        return entries.withLock { entries in
            if let cached = entries.value(for: id) { return cached }
            entries.insert(made, for: id)
            return made
        }
    }
}
