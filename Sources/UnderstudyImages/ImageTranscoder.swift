import Crypto
import Foundation

/// Transcodes images between PNG and WebP, with a cache bounded in bytes.
///
/// The cache key is the SHA-256 digest of the source bytes (or the description of a generated
/// image) plus the target and its options, so a second request for the same transcode returns
/// the cached bytes without any codec work. Least recently used entries are evicted once the
/// cached bytes would exceed ``capacity``. Concurrent `async` requests for the same key share
/// one piece of codec work.
///
/// Every transcode decodes and re-encodes, even PNG to PNG, so the output is always this
/// module's encoding (fast PNG; see ``RGBAImage/pngData()``).
///
/// ```swift
/// let transcoder = ImageTranscoder()
/// let png = try await transcoder.transcode(webpBytes, to: .png)
/// let again = try await transcoder.transcode(webpBytes, to: .png)   // from the cache
/// ```
public final class ImageTranscoder: Sendable {
    /// Counters, for tests and for the server's health report.
    public struct Statistics: Sendable, Equatable {
        /// Requests answered from the cache.
        public var hits = 0
        /// Requests that started codec work.
        public var misses = 0
        /// Requests that waited for the same work already under way for another request.
        public var coalesced = 0
        /// Images decoded.
        public var decodes = 0
        /// Images encoded.
        public var encodes = 0
        /// Images generated from a pattern.
        public var generations = 0
        /// Entries evicted to make room.
        public var evictions = 0
        /// Entries in the cache now.
        public var entryCount = 0
        /// Bytes of cached output now.
        public var bytesCached = 0

        /// Decodes plus encodes: the codec work done so far.
        public var codecCalls: Int { decodes + encodes }
    }

    /// 64 MiB.
    public static let defaultCapacity = 64 * 1024 * 1024

    /// The most bytes of output the cache holds.
    public let capacity: Int
    /// The most pixels a source image (or generated image) may have.
    public let pixelLimit: Int

    private struct Key: Hashable, Sendable {
        enum Source: Hashable, Sendable {
            case digest(Data)  // SHA-256 of the source bytes
            case generated(width: Int, height: Int, pattern: ImagePattern)
        }
        var source: Source
        var target: TranscodeTarget
    }

    private struct State {
        var cache: ByteLRUCache<Key>
        var inFlight: [Key: Task<Data, any Error>] = [:]
        var statistics = Statistics()
    }

    private let state: LockedState<State>

    /// Creates a transcoder with an empty cache.
    /// - Parameters:
    ///   - capacity: The most bytes of output to cache (64 MiB by default); 0 disables caching.
    ///   - pixelLimit: The most pixels a source image may have (64 Mpx by default).
    public init(capacity: Int = ImageTranscoder.defaultCapacity, pixelLimit: Int = RGBAImage.defaultPixelLimit) {
        self.capacity = max(0, capacity)
        self.pixelLimit = pixelLimit
        self.state = LockedState(State(cache: ByteLRUCache(capacity: capacity)))
    }

    /// The counters now.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.evictions = state.cache.evictions
            statistics.entryCount = state.cache.count
            statistics.bytesCached = state.cache.totalBytes
            return statistics
        }
    }

    /// Empties the cache; the counters keep counting.
    public func removeAll() {
        state.withLock { $0.cache.removeAll() }
    }

    /// Transcodes PNG or WebP bytes, from the cache when it can.
    /// - Parameters:
    ///   - data: A PNG or WebP image.
    ///   - target: The encoding wanted.
    /// - Returns: The encoded image.
    /// - Throws: ``ImageError`` from decoding or encoding; errors are not cached.
    public func transcode(_ data: Data, to target: TranscodeTarget) async throws -> Data {
        try await cached(Key(source: .digest(Data(SHA256.hash(data: data))), target: target.normalized)) {
            try self.transcodeUncached(data, to: target)
        }
    }

    /// Transcodes PNG or WebP bytes, from the cache when it can, on the calling thread.
    /// Unlike ``transcode(_:to:)`` it does not wait for the same work under way elsewhere.
    /// - Parameters:
    ///   - data: A PNG or WebP image.
    ///   - target: The encoding wanted.
    /// - Throws: ``ImageError``.
    public func transcodeSync(_ data: Data, to target: TranscodeTarget) throws -> Data {
        try cachedSync(Key(source: .digest(Data(SHA256.hash(data: data))), target: target.normalized)) {
            try self.transcodeUncached(data, to: target)
        }
    }

    /// Produces an image source in an encoding: transcodes a file or data, or draws and encodes
    /// a generated image (cached by its size and pattern).
    ///
    /// ```swift
    /// let png = try await transcoder.render(.generated(width: 64, height: 64, pattern: .gradient), as: .png)
    /// ```
    /// - Parameters:
    ///   - source: The image.
    ///   - target: The encoding wanted.
    /// - Throws: ``ImageError``, including `.unreadableFile`.
    public func render(_ source: ImageSource, as target: TranscodeTarget) async throws -> Data {
        switch source {
        case .file(let url):
            return try await transcode(ImageSource.read(url), to: target)
        case .data(let data):
            return try await transcode(data, to: target)
        case .generated(let width, let height, let pattern):
            try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
            let key = Key(source: .generated(width: width, height: height, pattern: pattern), target: target.normalized)
            return try await cached(key) {
                try self.generateUncached(width: width, height: height, pattern: pattern, as: target)
            }
        }
    }

    /// ``render(_:as:)`` on the calling thread, without waiting for the same work elsewhere.
    /// - Parameters:
    ///   - source: The image.
    ///   - target: The encoding wanted.
    /// - Throws: ``ImageError``.
    public func renderSync(_ source: ImageSource, as target: TranscodeTarget) throws -> Data {
        switch source {
        case .file(let url):
            return try transcodeSync(ImageSource.read(url), to: target)
        case .data(let data):
            return try transcodeSync(data, to: target)
        case .generated(let width, let height, let pattern):
            try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
            let key = Key(source: .generated(width: width, height: height, pattern: pattern), target: target.normalized)
            return try cachedSync(key) {
                try self.generateUncached(width: width, height: height, pattern: pattern, as: target)
            }
        }
    }

    // MARK: Cache

    private func cached(_ key: Key, work: @escaping @Sendable () throws -> Data) async throws -> Data {
        enum Lookup {
            case hit(Data)
            case wait(Task<Data, any Error>)
        }
        let lookup: Lookup = state.withLock { state in
            if let data = state.cache.value(for: key) {
                state.statistics.hits += 1
                return .hit(data)
            }
            if let task = state.inFlight[key] {
                state.statistics.coalesced += 1
                return .wait(task)
            }
            state.statistics.misses += 1
            // The task cannot finish (and take the lock) before it is registered: we hold the lock.
            let task = Task<Data, any Error> {
                do {
                    let data = try work()
                    self.finish(key, storing: data)
                    return data
                } catch {
                    self.finish(key, storing: nil)
                    throw error
                }
            }
            state.inFlight[key] = task
            return .wait(task)
        }
        switch lookup {
        case .hit(let data):
            return data
        case .wait(let task):
            return try await task.value
        }
    }

    private func finish(_ key: Key, storing data: Data?) {
        state.withLock { state in
            state.inFlight[key] = nil
            if let data { _ = state.cache.insert(data, for: key) }
        }
    }

    private func cachedSync(_ key: Key, work: () throws -> Data) throws -> Data {
        let hit: Data? = state.withLock { state in
            if let data = state.cache.value(for: key) {
                state.statistics.hits += 1
                return data
            }
            state.statistics.misses += 1
            return nil
        }
        if let hit { return hit }
        let data = try work()
        _ = state.withLock { $0.cache.insert(data, for: key) }
        return data
    }

    // MARK: Codec work

    private func transcodeUncached(_ data: Data, to target: TranscodeTarget) throws -> Data {
        state.withLock { $0.statistics.decodes += 1 }
        let image = try RGBAImage(decoding: data, pixelLimit: pixelLimit)
        state.withLock { $0.statistics.encodes += 1 }
        return try image.encoded(as: target)
    }

    private func generateUncached(width: Int, height: Int, pattern: ImagePattern, as target: TranscodeTarget) throws -> Data {
        state.withLock { $0.statistics.generations += 1 }
        let image = try ImageGenerator.generate(width: width, height: height, pattern: pattern, pixelLimit: pixelLimit)
        state.withLock { $0.statistics.encodes += 1 }
        return try image.encoded(as: target)
    }
}
