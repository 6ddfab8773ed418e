internal import Crypto
import Foundation
import UnderstudySupport

/// Transcodes images between PNG, WebP and JPEG (resizing and damaging them on request), with
/// a cache bounded in bytes.
///
/// The cache key is the SHA-256 digest of the source bytes (for a file: its path, size,
/// modification time and inode, so a hit neither reads nor hashes it; for a generated image: its
/// description) plus the target and its options, the resize and the damage, so a second request for the same transcode returns
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
        /// Images generated from a pattern (an animation counts once).
        public var generations = 0
        /// Images resized (an animation counts once).
        public var resizes = 0
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
            case generated(ImageSource)  // .generated or .animated: its description is its identity
            case file(FileStamp)  // a file as it is now, so a hit neither reads nor hashes it
        }
        var source: Source
        var target: ImageFormat
        var resize: ImageResize?
        var damage: ImageDamage?
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

    /// Transcodes PNG, WebP, JPEG, GIF, AVIF or HEIC bytes, from the cache when it can.
    ///
    /// ```swift
    /// let thumbnail = try await transcoder.transcode(photo, to: .webp(quality: 80), resize: ImageResize(width: 320))
    /// ```
    /// - Parameters:
    ///   - data: A PNG, WebP, JPEG, GIF, AVIF or HEIC image (an animation gives its first frame).
    ///   - target: The encoding wanted.
    ///   - resize: A size to scale to first, if any; the result must be within ``pixelLimit``.
    ///   - damage: A defect to put into the encoded bytes, if any (see ``ImageDamage``).
    /// - Returns: The encoded image.
    /// - Throws: ``ImageError`` from decoding, resizing or encoding; errors are not cached.
    public func transcode(
        _ data: Data, to target: ImageFormat, resize: ImageResize? = nil, damage: ImageDamage? = nil
    ) async throws -> Data {
        try await cached(key(data, target, resize, damage)) {
            try self.transcodeUncached(data, to: target, resize: resize, damage: damage)
        }
    }

    /// Transcodes PNG, WebP, JPEG, GIF, AVIF or HEIC bytes, from the cache when it can, on the calling thread.
    /// Unlike ``transcode(_:to:resize:damage:)`` it does not wait for the same work under way
    /// elsewhere.
    /// - Parameters:
    ///   - data: A PNG, WebP, JPEG, GIF, AVIF or HEIC image.
    ///   - target: The encoding wanted.
    ///   - resize: A size to scale to first, if any.
    ///   - damage: A defect to put into the encoded bytes, if any.
    /// - Throws: ``ImageError``.
    public func transcodeSync(
        _ data: Data, to target: ImageFormat, resize: ImageResize? = nil, damage: ImageDamage? = nil
    ) throws -> Data {
        try cachedSync(key(data, target, resize, damage)) {
            try self.transcodeUncached(data, to: target, resize: resize, damage: damage)
        }
    }

    /// Produces an image source in an encoding: transcodes a file or data, or draws and encodes
    /// a generated image or animation (cached by its description).
    ///
    /// An animation becomes an animated WebP, AVIF sequence or GIF (each looping) for a WebP,
    /// AVIF or GIF target, its first frame for PNG, JPEG or HEIC.
    ///
    /// ```swift
    /// let png = try await transcoder.render(.generated(width: 64, height: 64, pattern: .gradient), as: .png)
    /// ```
    /// - Parameters:
    ///   - source: The image.
    ///   - target: The encoding wanted.
    ///   - resize: A size to scale to first (each frame of an animation), if any.
    ///   - damage: A defect to put into the encoded bytes, if any.
    /// - Throws: ``ImageError``, including `.unreadableFile`.
    public func render(
        _ source: ImageSource, as target: ImageFormat, resize: ImageResize? = nil, damage: ImageDamage? = nil
    ) async throws -> Data {
        switch source {
        case .file(let url):
            guard let stamp = FileStamp(url) else {
                return try await transcode(ImageSource.read(url), to: target, resize: resize, damage: damage)
            }
            return try await cached(Key(source: .file(stamp), target: target.normalized, resize: resize, damage: damage)) {
                try self.transcodeUncached(ImageSource.read(url), to: target, resize: resize, damage: damage)
            }
        case .data(let data):
            return try await transcode(data, to: target, resize: resize, damage: damage)
        case .generated, .animated:
            try checkGenerated(source)
            let key = Key(source: .generated(source), target: target.normalized, resize: resize, damage: damage)
            return try await cached(key) {
                try self.generateUncached(source, as: target, resize: resize, damage: damage)
            }
        }
    }

    /// ``render(_:as:resize:damage:)`` on the calling thread, without waiting for the same work
    /// elsewhere.
    /// - Parameters:
    ///   - source: The image.
    ///   - target: The encoding wanted.
    ///   - resize: A size to scale to first, if any.
    ///   - damage: A defect to put into the encoded bytes, if any.
    /// - Throws: ``ImageError``.
    public func renderSync(
        _ source: ImageSource, as target: ImageFormat, resize: ImageResize? = nil, damage: ImageDamage? = nil
    ) throws -> Data {
        switch source {
        case .file(let url):
            guard let stamp = FileStamp(url) else {
                return try transcodeSync(ImageSource.read(url), to: target, resize: resize, damage: damage)
            }
            return try cachedSync(Key(source: .file(stamp), target: target.normalized, resize: resize, damage: damage)) {
                try self.transcodeUncached(ImageSource.read(url), to: target, resize: resize, damage: damage)
            }
        case .data(let data):
            return try transcodeSync(data, to: target, resize: resize, damage: damage)
        case .generated, .animated:
            try checkGenerated(source)
            let key = Key(source: .generated(source), target: target.normalized, resize: resize, damage: damage)
            return try cachedSync(key) {
                try self.generateUncached(source, as: target, resize: resize, damage: damage)
            }
        }
    }

    private func key(_ data: Data, _ target: ImageFormat, _ resize: ImageResize?, _ damage: ImageDamage?) -> Key {
        Key(source: .digest(Data(SHA256.hash(data: data))), target: target.normalized, resize: resize, damage: damage)
    }

    /// Checks a generated source's size against the pixel limit without drawing anything.
    private func checkGenerated(_ source: ImageSource) throws {
        switch source {
        case .generated(let width, let height, _):
            try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
        case .animated(let width, let height, _, let frames, _):
            try RGBAImage.checkSize(width: width, height: height, pixelLimit: pixelLimit)
            let (total, overflow) = (width * height).multipliedReportingOverflow(by: max(frames, 1))
            if overflow || total > pixelLimit {
                throw ImageError(
                    .tooLarge,
                    "an animation of \(frames) frames of \(width)x\(height) is over the limit of \(pixelLimit) pixels in all; use fewer or smaller frames"
                )
            }
        case .file, .data:
            break
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

    private func transcodeUncached(
        _ data: Data, to target: ImageFormat, resize: ImageResize?, damage: ImageDamage?
    ) throws -> Data {
        state.withLock { $0.statistics.decodes += 1 }
        let image: RGBAImage
        if let resize {
            state.withLock { $0.statistics.resizes += 1 }
            image = try ImageCodecs.decode(data, resizedTo: resize, pixelLimit: pixelLimit)
        } else {
            image = try RGBAImage(decoding: data, pixelLimit: pixelLimit)
        }
        state.withLock { $0.statistics.encodes += 1 }
        let encoded = try image.encoded(as: target)
        return damage?.apply(to: encoded) ?? encoded
    }

    private func generateUncached(
        _ source: ImageSource, as target: ImageFormat, resize: ImageResize?, damage: ImageDamage?
    ) throws -> Data {
        state.withLock { $0.statistics.generations += 1 }
        var frames: [RGBAImage]
        var animation: Duration?
        switch source {
        case .generated(let width, let height, let pattern):
            frames = [try ImageGenerator.generate(width: width, height: height, pattern: pattern, pixelLimit: pixelLimit)]
        case .animated(let width, let height, let pattern, let count, let frameDuration):
            if target.animates { animation = frameDuration }  // otherwise the first frame only
            frames = animation == nil
                ? [try ImageGenerator.firstFrame(width: width, height: height, pattern: pattern, count: count, pixelLimit: pixelLimit)]
                : try ImageGenerator.frames(width: width, height: height, pattern: pattern, count: count, pixelLimit: pixelLimit)
        case .file, .data:
            preconditionFailure("only generated sources are drawn")
        }
        if let resize {
            state.withLock { $0.statistics.resizes += 1 }
            frames = try frames.map { try $0.resized(resize, pixelLimit: pixelLimit) }
        }
        state.withLock { $0.statistics.encodes += 1 }
        let encoded: Data
        if let frameDuration = animation {
            encoded = try ImageCodecs.encodeAnimation(frames, frameDuration: frameDuration, as: target)
        } else {
            encoded = try frames[0].encoded(as: target)
        }
        return damage?.apply(to: encoded) ?? encoded
    }
}
