import Foundation

/// Where the parts of an encoded image begin and end, read from its container without decoding
/// a pixel: the scans of a progressive JPEG and the frames of an animation. Delivery in pieces
/// (`pieces: { by: scans }`, `{ by: frames }`) cuts a body at these offsets.
package enum ImageBoundaries {
    /// The offset of each SOS (start of scan, `FF DA`) marker of a JPEG, in order: one per scan
    /// (a baseline JPEG has one, a progressive one several). `nil` when the bytes are not a
    /// JPEG whose markers can be walked.
    package static func jpegScanStarts(_ data: Data) -> [Int]? {
        let bytes = [UInt8](data)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var starts: [Int] = []
        var position = 2
        while position + 1 < bytes.count {
            guard bytes[position] == 0xFF else { return starts.isEmpty ? nil : starts }
            let markerStart = position
            while position < bytes.count, bytes[position] == 0xFF { position += 1 }  // fill bytes
            guard position < bytes.count else { break }
            let marker = bytes[position]
            position += 1
            switch marker {
            case 0xD9:
                return starts
            case 0x01, 0xD0...0xD7:
                continue
            default:
                break
            }
            guard position + 1 < bytes.count else { break }
            let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            guard length >= 2 else { return nil }
            position += length
            guard marker == 0xDA else { continue }
            starts.append(markerStart)
            // Entropy-coded data runs to the next marker that is not a stuffed FF 00 or a restart.
            while position + 1 < bytes.count {
                if bytes[position] == 0xFF, bytes[position + 1] != 0x00, !(0xD0...0xD7).contains(bytes[position + 1]) { break }
                position += 1
            }
        }
        return starts.isEmpty ? nil : starts
    }

    /// The offset just past each frame of an animation, in order, or `nil` when the bytes are
    /// no container whose frames are known here. A still image is one frame.
    ///
    /// Each container has its own walk, in ``frameWalks``: animated WebP (`ANMF` chunks) and
    /// GIF (image descriptors and their data sub-blocks). Another container joins by adding
    /// its function there.
    package static func frameEnds(_ data: Data) -> [Int]? {
        guard let kind = ImageKind.detect(data), let walk = frameWalks[kind] else { return nil }
        return walk([UInt8](data))
    }

    /// The containers whose frames can be found, each with its walk.
    package static let frameWalks: [ImageKind: @Sendable ([UInt8]) -> [Int]?] = [
        .webp: webpFrameEnds,
        .gif: gifFrameEnds,
    ]

    /// The end of each `ANMF` chunk of a WebP (RIFF) file; a still WebP is one frame.
    static func webpFrameEnds(_ bytes: [UInt8]) -> [Int]? {
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] else { return nil }
        var ends: [Int] = []
        var position = 12
        while position + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[position..<position + 4], as: UTF8.self)
            let size = Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8 | Int(bytes[position + 6]) << 16 | Int(bytes[position + 7]) << 24
            let next = position + 8 + size + (size & 1)
            guard next <= bytes.count + (size & 1) else { return nil }
            if fourCC == "ANMF" { ends.append(min(next, bytes.count)) }
            position = next
        }
        return ends.isEmpty ? [bytes.count] : ends
    }

    /// The end of each image (descriptor, colour table and data sub-blocks) of a GIF.
    static func gifFrameEnds(_ bytes: [UInt8]) -> [Int]? {
        guard bytes.count >= 13, bytes[0..<3] == [0x47, 0x49, 0x46] else { return nil }
        func colourTable(_ packed: UInt8) -> Int { packed & 0x80 == 0 ? 0 : 3 << (Int(packed & 0x07) + 1) }
        /// Skips data sub-blocks from `position` to just past their terminator; `nil` if cut off.
        func skipSubBlocks(_ position: Int) -> Int? {
            var position = position
            while position < bytes.count {
                let size = Int(bytes[position])
                position += 1
                if size == 0 { return position }
                position += size
            }
            return nil
        }
        var ends: [Int] = []
        var position = 13 + colourTable(bytes[10])
        while position < bytes.count {
            switch bytes[position] {
            case 0x21:  // extension: introducer, label, sub-blocks
                guard let next = skipSubBlocks(position + 2) else { return nil }
                position = next
            case 0x2C:  // image: descriptor (10 bytes), local table, LZW code size, sub-blocks
                guard position + 10 < bytes.count else { return nil }
                guard let next = skipSubBlocks(position + 10 + colourTable(bytes[position + 9]) + 1) else { return nil }
                ends.append(next)
                position = next
            case 0x3B:  // trailer
                return ends.isEmpty ? nil : ends
            default:
                return ends.isEmpty ? nil : ends
            }
        }
        return ends.isEmpty ? nil : ends
    }
}
