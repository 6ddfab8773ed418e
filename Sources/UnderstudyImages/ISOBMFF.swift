/// Reads the boxes of an ISO base media file (AVIF, HEIC) without trusting a length: every read
/// is bounds-checked, and a box cut off is `nil`, never a crash.
struct ISOBMFF {
    let bytes: [UInt8]

    /// The big-endian unsigned integer of `width` bytes at `at`, if the data holds it.
    func uint(at: Int, width: Int) -> Int? {
        guard at >= 0, at + width <= bytes.count else { return nil }
        var value = 0
        for index in at..<at + width { value = value << 8 | Int(bytes[index]) }
        return value
    }

    /// The boxes directly inside `range`: (type, payload range), or `nil` when one is cut off
    /// (with `upToCutOff`, the boxes before it).
    func boxes(in range: Range<Int>, upToCutOff: Bool = false) -> [(type: String, payload: Range<Int>)]? {
        var found: [(type: String, payload: Range<Int>)] = []
        var position = range.lowerBound
        while position + 8 <= range.upperBound {
            guard var size = uint(at: position, width: 4) else { return upToCutOff ? found : nil }
            let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
            var header = 8
            if size == 1 {
                guard let large = uint(at: position + 8, width: 8) else { return upToCutOff ? found : nil }
                size = large
                header = 16
            } else if size == 0 {
                size = range.upperBound - position
            }
            guard size >= header, size <= range.upperBound - position else { return upToCutOff ? found : nil }
            found.append((type, position + header..<position + size))
            position += size
        }
        return found
    }

    /// The payload of the first box of `type` directly inside `range`.
    func child(_ type: String, of range: Range<Int>) -> Range<Int>? {
        boxes(in: range)?.first { $0.type == type }?.payload
    }

    /// The top-level boxes, when the file starts with `ftyp` and none is cut off.
    var topLevel: [(type: String, payload: Range<Int>)]? {
        guard let top = boxes(in: 0..<bytes.count), top.first?.type == "ftyp" else { return nil }
        return top
    }

    /// A box this reader cannot trust: where it starts, and what is wrong with it.
    struct MalformedBox: Error {
        let offset: Int
        let problem: String
    }

    /// The references of the `meta` box (`iref`) that decoding an item follows: a derived
    /// item's inputs (`dimg`: the tiles of a grid, the image an overlay or a transform is made
    /// from), and an item's auxiliary images (`auxl`, written from the alpha or depth image to
    /// the one it belongs to, which decodes it too). Empty when the file has no `meta` or
    /// `iref`. Strict: decoders read a malformed `iref` leniently, each in its own way, so a
    /// reference box cut off, overrunning the `iref` or too short for its fields is thrown
    /// rather than guessed at, as are a second `meta` box and a second box of those that say
    /// what the items are (`iinf`, `iloc`, `iprp`, `iref`, ...).
    func decodingReferences() throws(MalformedBox) -> (inputs: [Int: [Int]], auxiliaries: [Int: [Int]]) {
        // meta and iref are full boxes: a version byte and three flag bytes before their boxes.
        guard let top = boxes(in: 0..<bytes.count, upToCutOff: true), top.first?.type == "ftyp" else { return ([:], [:]) }
        // One meta box, with one of each box that says what the items are: decoders given two
        // pick one each in their own way, and this reader could not know which.
        let metas = top.filter { $0.type == "meta" }
        if metas.count > 1 {
            throw MalformedBox(offset: metas[1].payload.lowerBound - 8, problem: "the file has \(metas.count) meta boxes at its top level, where HEIF has one")
        }
        guard let meta = metas.first?.payload, meta.count >= 4,
              let children = boxes(in: meta.lowerBound + 4..<meta.upperBound, upToCutOff: true)
        else { return ([:], [:]) }
        for type in ["hdlr", "pitm", "iloc", "iinf", "iprp", "iref", "idat"] {
            let found = children.filter { $0.type == type }
            if found.count > 1 {
                throw MalformedBox(offset: found[1].payload.lowerBound - 8, problem: "the meta box has \(found.count) \(type) boxes, where HEIF has one")
            }
        }
        guard let iref = children.first(where: { $0.type == "iref" })?.payload else { return ([:], [:]) }
        guard iref.count >= 4, let version = uint(at: iref.lowerBound, width: 1) else {
            throw MalformedBox(offset: iref.lowerBound - 8, problem: "the iref box is too short for its version and flags")
        }
        let idWidth = version == 0 ? 2 : 4
        var inputs: [Int: [Int]] = [:], auxiliaries: [Int: [Int]] = [:]
        var position = iref.lowerBound + 4
        while position < iref.upperBound {
            guard position + 8 <= iref.upperBound, let size = uint(at: position, width: 4) else {
                throw MalformedBox(offset: position, problem: "a reference box of the iref box is cut off")
            }
            guard size >= 8 + idWidth + 2, size <= iref.upperBound - position else {
                throw MalformedBox(offset: position, problem: "a reference box of the iref box declares \(size) bytes, where \(8 + idWidth + 2) to \(iref.upperBound - position) fit")
            }
            let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
            let from = uint(at: position + 8, width: idWidth)!
            let count = uint(at: position + 8 + idWidth, width: 2)!
            guard 8 + idWidth + 2 + count * idWidth == size else {
                throw MalformedBox(offset: position, problem: "the \(type) reference box of the iref box lists \(count) items in \(size) bytes")
            }
            let targets = (0..<count).map { uint(at: position + 10 + idWidth + $0 * idWidth, width: idWidth)! }
            if type == "dimg" { inputs[from, default: []] += targets }
            if type == "auxl" { for master in targets { auxiliaries[master, default: []].append(from) } }
            position += size
        }
        return (inputs, auxiliaries)
    }
}
