/// An error from decoding, encoding, generating or transcoding an image.
///
/// The ``description`` is written for the person who supplied the image: it says what was found,
/// what was expected and, for codec failures, what libpng, libjpeg, libwebp, libavif, libheif or giflib reported. Compare errors by
/// ``code``; the message text may gain detail over time.
///
/// ```swift
/// do {
///     _ = try RGBAImage(decoding: bytes)
/// } catch let error as ImageError where error.code == .truncated {
///     print(error)   // "truncated PNG: the data ends after 57 bytes, before the image is complete"
/// }
/// ```
public struct ImageError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is. New codes may be added, so switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The data ends before the image does.
        public static let truncated = Code("truncated")
        /// The data does not start with the signature of any image format this module knows.
        public static let notAnImage = Code("notAnImage")
        /// The data is an image in a format that cannot be decoded here (CMYK JPEG variants with
        /// an unusual number of components).
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The codec rejected the data; the message carries libpng's or libjpeg's message or
        /// libwebp's code.
        public static let corrupt = Code("corrupt")
        /// The image has more pixels than the limit allows.
        public static let tooLarge = Code("tooLarge")
        /// A width or height below 1, or beyond what the target format can store.
        public static let invalidDimensions = Code("invalidDimensions")
        /// The encoder failed; the message carries the codec's code.
        public static let encodingFailed = Code("encodingFailed")
        /// An image file could not be read.
        public static let unreadableFile = Code("unreadableFile")
        /// A resize asks for a width or height below 1 pixel, or a result over the pixel limit.
        public static let invalidResize = Code("invalidResize")
        /// A value (colour, pixel buffer, quality) is malformed.
        public static let invalidArgument = Code("invalidArgument")

        /// The code's name, e.g. `truncated`.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public let code: Code
    /// The message: what went wrong and what to do about it.
    public let description: String

    /// Creates an error with a code and a message.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: What went wrong, for a person to act on.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.description = message
    }
}

extension ImageError {
    static func truncated(_ format: String, byteCount: Int) -> ImageError {
        ImageError(.truncated, "truncated \(format): the data ends after \(byteCount) bytes, before the image is complete")
    }

    static func notAnImage(_ data: some Collection<UInt8>) -> ImageError {
        if data.isEmpty {
            return ImageError(.notAnImage, "not an image: the data is empty")
        }
        let prefix = data.prefix(8).map { hex($0) }.joined(separator: " ")
        return ImageError(
            .notAnImage,
            "not an image: the data (\(data.count) bytes) starts with \(prefix), which is not the signature of PNG, WebP, JPEG, GIF, AVIF or HEIC"
        )
    }

    static func tooLarge(width: Int, height: Int, limit: Int) -> ImageError {
        let pixels = width.multipliedReportingOverflow(by: height)
        let count = pixels.overflow ? "more than \(Int.max)" : "\(pixels.partialValue)"
        return ImageError(
            .tooLarge,
            "image of \(width)x\(height) = \(count) pixels is over the limit of \(limit) pixels; raise pixelLimit to allow it"
        )
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
