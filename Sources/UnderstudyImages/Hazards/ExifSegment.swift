/// The payload of an EXIF APP1 segment ("Exif\0\0" and a big-endian TIFF structure), written
/// by hand: libjpeg-turbo writes the marker (`jpeg_write_marker`) but knows nothing of TIFF.
enum ExifSegment {
    /// IFD0 carries `orientation` (tag 0x0112) and ResolutionUnit; when `thumbnailOrientation`
    /// is given, IFD1 (the thumbnail's directory, linked from IFD0) carries that one instead.
    static func payload(orientation: Int?, thumbnailOrientation: Int? = nil) -> [UInt8] {
        let orientationTag: UInt16 = 0x0112
        let resolutionUnitTag: UInt16 = 0x0128
        var ifd0: [(UInt16, UInt16)] = []
        if let orientation { ifd0.append((orientationTag, UInt16(orientation))) }
        ifd0.append((resolutionUnitTag, 2))
        var ifd1: [(UInt16, UInt16)] = []
        if let thumbnailOrientation { ifd1 = [(orientationTag, UInt16(thumbnailOrientation)), (resolutionUnitTag, 2)] }
        // The TIFF header is 8 bytes; IFD0 follows it, IFD1 follows IFD0.
        let ifd0Size = 2 + ifd0.count * 12 + 4
        let ifd1Offset = ifd1.isEmpty ? 0 : 8 + ifd0Size
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + be32(8)
        tiff += directory(ifd0, next: UInt32(ifd1Offset))
        if !ifd1.isEmpty { tiff += directory(ifd1, next: 0) }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// Entries of type SHORT, count 1, the value left-justified in the 4-byte field.
    private static func directory(_ entries: [(UInt16, UInt16)], next: UInt32) -> [UInt8] {
        var bytes = be16(UInt16(entries.count))
        for (tag, value) in entries {
            bytes += be16(tag) + be16(3) + be32(1) + be16(value) + [0, 0]
        }
        return bytes + be32(next)
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) } }
}
