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
    /// Each container has its own walk, in ``frameWalks``: animated WebP (`ANMF` chunks), GIF
    /// (image descriptors and their data sub-blocks) and AVIF sequences (the sample tables of
    /// `moov`). Another container joins by adding its function there.
    package static func frameEnds(_ data: Data) -> [Int]? {
        guard let kind = ImageKind.detect(data), let walk = frameWalks[kind] else { return nil }
        return walk([UInt8](data))
    }

    /// The containers whose frames can be found, each with its walk.
    package static let frameWalks: [ImageKind: @Sendable ([UInt8]) -> [Int]?] = [
        .webp: webpFrameEnds,
        .gif: gifFrameEnds,
        .avif: avifFrameEnds,
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

    /// The end of each frame of an AVIF sequence (`avis`): frame *n* ends where the last byte of
    /// sample *n* of any of its tracks (colour, and alpha when it has one) lies, read from each
    /// track's sample table (`stsz`, `stsc`, `stco`/`co64`) in `moov`. A still AVIF (no `moov`)
    /// is one frame.
    static func avifFrameEnds(_ bytes: [UInt8]) -> [Int]? {
        let file = ISOBMFF(bytes: bytes)
        func readUInt(_ at: Int, _ width: Int) -> Int? { file.uint(at: at, width: width) }
        func child(_ type: String, of range: Range<Int>) -> Range<Int>? { file.child(type, of: range) }
        /// The end offset of each sample of one track, from its `stbl`.
        func sampleEnds(_ stbl: Range<Int>) -> [Int]? {
            guard let stsz = child("stsz", of: stbl), let stsc = child("stsc", of: stbl),
                  let fixedSize = readUInt(stsz.lowerBound + 4, 4), let sampleCount = readUInt(stsz.lowerBound + 8, 4),
                  sampleCount <= bytes.count
            else { return nil }
            var sizes: [Int] = []
            for index in 0..<sampleCount {
                if fixedSize != 0 { sizes.append(fixedSize); continue }
                guard let size = readUInt(stsz.lowerBound + 12 + 4 * index, 4) else { return nil }
                sizes.append(size)
            }
            var chunkOffsets: [Int] = []
            if let stco = child("stco", of: stbl), let count = readUInt(stco.lowerBound + 4, 4), count <= bytes.count {
                for index in 0..<count {
                    guard let offset = readUInt(stco.lowerBound + 8 + 4 * index, 4) else { return nil }
                    chunkOffsets.append(offset)
                }
            } else if let co64 = child("co64", of: stbl), let count = readUInt(co64.lowerBound + 4, 4), count <= bytes.count {
                for index in 0..<count {
                    guard let offset = readUInt(co64.lowerBound + 8 + 8 * index, 8) else { return nil }
                    chunkOffsets.append(offset)
                }
            } else {
                return nil
            }
            // stsc: runs of chunks (first chunk, 1-based) with the same number of samples each.
            guard let runCount = readUInt(stsc.lowerBound + 4, 4), runCount <= bytes.count else { return nil }
            var runs: [(firstChunk: Int, samplesPerChunk: Int)] = []
            for index in 0..<runCount {
                guard let first = readUInt(stsc.lowerBound + 8 + 12 * index, 4),
                      let perChunk = readUInt(stsc.lowerBound + 12 + 12 * index, 4)
                else { return nil }
                runs.append((first, perChunk))
            }
            var ends: [Int] = []
            var sample = 0
            for (chunkIndex, chunkOffset) in chunkOffsets.enumerated() where sample < sizes.count {
                let chunkNumber = chunkIndex + 1
                let perChunk = runs.last { $0.firstChunk <= chunkNumber }?.samplesPerChunk ?? 0
                var position = chunkOffset
                for _ in 0..<perChunk where sample < sizes.count {
                    position += sizes[sample]
                    guard position <= bytes.count else { return nil }
                    ends.append(position)
                    sample += 1
                }
            }
            return ends.count == sizes.count ? ends : nil
        }

        guard let top = file.topLevel else { return nil }
        guard let moov = top.first(where: { $0.0 == "moov" })?.1 else { return [bytes.count] }
        var tracks: [[Int]] = []
        for (type, trak) in file.boxes(in: moov) ?? [] where type == "trak" {
            guard let mdia = child("mdia", of: trak), let minf = child("minf", of: mdia),
                  let stbl = child("stbl", of: minf), let ends = sampleEnds(stbl)
            else { return nil }
            tracks.append(ends)
        }
        let frameCount = tracks.map(\.count).max() ?? 0
        guard frameCount > 0 else { return nil }
        return (0..<frameCount).map { frame in tracks.compactMap { frame < $0.count ? $0[frame] : nil }.max()! }
    }
}
