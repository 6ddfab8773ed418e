extension ISOBMFF {
    /// Every image size a HEIF file declares before any pixel is decoded: each `ispe` property
    /// (an image item's width and height) and each grid's output size (its `ImageGrid`
    /// descriptor, in `idat` or in the file where `iloc` says). A decoder allocates by these,
    /// the grid's output included, whatever the primary image's own `ispe` says. Read leniently:
    /// what cannot be read is left out (the decoder then refuses the file itself).
    func declaredImageSizes() -> [(what: String, width: Int, height: Int)] {
        guard let top = boxes(in: 0..<bytes.count, upToCutOff: true), top.first?.type == "ftyp",
              let meta = top.first(where: { $0.type == "meta" })?.payload, meta.count >= 4,
              let children = boxes(in: meta.lowerBound + 4..<meta.upperBound, upToCutOff: true)
        else { return [] }
        var sizes: [(what: String, width: Int, height: Int)] = []
        if let iprp = children.first(where: { $0.type == "iprp" })?.payload,
           let ipco = boxes(in: iprp, upToCutOff: true)?.first(where: { $0.type == "ipco" })?.payload {
            for property in boxes(in: ipco, upToCutOff: true) ?? [] where property.type == "ispe" {
                if let width = uint(at: property.payload.lowerBound + 4, width: 4),
                   let height = uint(at: property.payload.lowerBound + 8, width: 4) {
                    sizes.append(("an ispe property", width, height))
                }
            }
        }
        let idat = children.first { $0.type == "idat" }?.payload
        for item in gridItems(in: children) {
            guard let location = itemData(item, in: children, idat: idat),
                  let flags = uint(at: location.lowerBound + 1, width: 1)
            else { continue }
            // ImageGrid: version, flags, rows - 1, columns - 1, then the output width and height,
            // of 32 bits each when flags bit 0 is set, else 16.
            let fieldWidth = flags & 1 == 1 ? 4 : 2
            let start = location.lowerBound + 4
            guard start + 2 * fieldWidth <= location.upperBound,
                  let width = uint(at: start, width: fieldWidth), let height = uint(at: start + fieldWidth, width: fieldWidth)
            else { continue }
            sizes.append(("grid item \(item)", width, height))
        }
        return sizes
    }

    /// The IDs of the items of type `grid` (`iinf`, item info entries of version 2 or 3).
    private func gridItems(in meta: [(type: String, payload: Range<Int>)]) -> [Int] {
        guard let iinf = meta.first(where: { $0.type == "iinf" })?.payload, let version = uint(at: iinf.lowerBound, width: 1) else { return [] }
        let entries = iinf.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard entries <= iinf.upperBound else { return [] }
        var grids: [Int] = []
        for entry in boxes(in: entries..<iinf.upperBound, upToCutOff: true) ?? [] where entry.type == "infe" {
            guard let entryVersion = uint(at: entry.payload.lowerBound, width: 1), entryVersion >= 2 else { continue }
            let idWidth = entryVersion == 2 ? 2 : 4
            let typeStart = entry.payload.lowerBound + 4 + idWidth + 2
            guard let id = uint(at: entry.payload.lowerBound + 4, width: idWidth), typeStart + 4 <= entry.payload.upperBound else { continue }
            if String(decoding: bytes[typeStart..<typeStart + 4], as: UTF8.self) == "grid" { grids.append(id) }
        }
        return grids
    }

    /// Where item `id`'s data is (its first extent, from `iloc`): in the file (construction
    /// method 0) or in `idat` (method 1); `nil` otherwise, or when it cannot be read.
    private func itemData(_ id: Int, in meta: [(type: String, payload: Range<Int>)], idat: Range<Int>?) -> Range<Int>? {
        guard let iloc = meta.first(where: { $0.type == "iloc" })?.payload,
              let version = uint(at: iloc.lowerBound, width: 1), version <= 2,
              let sizes = uint(at: iloc.lowerBound + 4, width: 2)
        else { return nil }
        let offsetSize = sizes >> 12, lengthSize = sizes >> 8 & 0xF, baseOffsetSize = sizes >> 4 & 0xF
        let indexSize = version == 0 ? 0 : sizes & 0xF
        let idWidth = version == 2 ? 4 : 2
        var position = iloc.lowerBound + 6
        guard let count = uint(at: position, width: idWidth) else { return nil }
        position += idWidth
        for _ in 0..<min(count, bytes.count) {
            guard let item = uint(at: position, width: idWidth) else { return nil }
            position += idWidth
            var method = 0
            if version > 0 {
                guard let field = uint(at: position, width: 2) else { return nil }
                method = field & 0xF
                position += 2
            }
            position += 2   // data_reference_index
            let baseOffset = baseOffsetSize == 0 ? 0 : uint(at: position, width: baseOffsetSize)
            position += baseOffsetSize
            guard let baseOffset, let extents = uint(at: position, width: 2) else { return nil }
            position += 2
            var first: (offset: Int, length: Int)?
            for _ in 0..<extents {
                position += indexSize
                let offset = offsetSize == 0 ? 0 : uint(at: position, width: offsetSize)
                let length = lengthSize == 0 ? 0 : uint(at: position + offsetSize, width: lengthSize)
                guard let offset, let length else { return nil }
                position += offsetSize + lengthSize
                if first == nil { first = (offset, length) }
            }
            guard item == id, let first else { continue }
            let origin: Int
            switch method {
            case 0: origin = 0
            case 1:
                guard let idat else { return nil }
                origin = idat.lowerBound
            default: return nil
            }
            // Offsets and lengths of up to 8 bytes: added without trapping on overflow.
            let (partial, overflowA) = origin.addingReportingOverflow(baseOffset)
            let (start, overflowB) = partial.addingReportingOverflow(first.offset)
            let (sum, overflowC) = start.addingReportingOverflow(first.length)
            let end = first.length == 0 ? (method == 1 ? idat!.upperBound : bytes.count) : sum
            guard !overflowA, !overflowB, !overflowC, start >= 0, start <= end, end <= bytes.count else { return nil }
            return start..<end
        }
        return nil
    }
}
