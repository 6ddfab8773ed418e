import Foundation

/// Header lines as the journal keeps them: every name and value, in order, in one byte array
/// (each preceded by its length), unpacked into ``HeaderFields`` only when an entry is read.
///
/// ``HeaderFields`` holds an array of fields whose names and values longer than 15 bytes are
/// each a separate allocation, so a request with a `traceparent` or a cookie takes several
/// allocations of its own per entry. Packed, it is one, of about the size of the header lines on
/// the wire. The bytes are the strings' UTF-8, so unpacking gives back exactly what was packed.
struct PackedHeaders: Sendable, Equatable {
    private(set) var bytes: [UInt8]

    init(_ headers: HeaderFields) {
        guard !headers.isEmpty else {
            bytes = []
            return
        }
        var count = 0
        for field in headers.fields {
            count += field.name.utf8.count + field.value.utf8.count + 4
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for field in headers.fields {
            Self.append(field.name, to: &bytes)
            Self.append(field.value, to: &bytes)
        }
        self.bytes = bytes
    }

    /// A length as 7-bit groups, low first (one byte below 128), then the UTF-8.
    private static func append(_ string: String, to bytes: inout [UInt8]) {
        var length = string.utf8.count
        while length >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: length) | 0x80)
            length >>= 7
        }
        bytes.append(UInt8(length))
        // Copied as one block (a native string's UTF-8 is contiguous), not a byte at a time.
        var string = string
        string.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Compared with `memcmp`: the journal compares each request's headers with the recent
    /// ones under its lock, and for headers that differ per request (a `traceparent`) an
    /// element-by-element comparison is a large part of a request's cost.
    static func == (lhs: PackedHeaders, rhs: PackedHeaders) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let l = left.baseAddress, let r = right.baseAddress else { return true }
                return memcmp(l, r, left.count) == 0
            }
        }
    }

    /// The header lines as they were packed.
    var headers: HeaderFields {
        guard !bytes.isEmpty else { return [:] }
        var fields: [HeaderFields.Field] = []
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            func next() -> String {
                var length = 0, shift = 0
                while true {
                    let byte = buffer[offset]
                    offset += 1
                    length |= Int(byte & 0x7F) << shift
                    if byte < 0x80 { break }
                    shift += 7
                }
                defer { offset += length }
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[offset..<offset + length]), as: UTF8.self)
            }
            while offset < buffer.count {
                let name = next()
                fields.append(HeaderFields.Field(name: name, value: next()))
            }
        }
        return HeaderFields(fields)
    }

    /// The memory these bytes take: an array's header and its elements, nothing when empty.
    var heapBytes: Int {
        bytes.isEmpty ? 0 : 32 + bytes.capacity
    }
}
