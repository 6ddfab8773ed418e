/// A `Range: bytes=…` header, parsed: a list of the three forms of byte range,
/// resolved against a body's length.
///
/// ```swift
/// RangeRequest("bytes=0-99, -100")?.satisfiable(length: 1000)   // [0..<100, 900..<1000]
/// ```
package struct RangeRequest: Sendable, Hashable {
    /// One range as the client wrote it.
    package enum Specifier: Sendable, Hashable {
        /// `first-last`, both inclusive.
        case closed(first: Int, last: Int)
        /// `first-`: from `first` to the end.
        case from(Int)
        /// `-count`: the last `count` bytes.
        case suffix(Int)
    }

    /// The most ranges one request may ask for; more are answered with the whole body, as
    /// nginx does (`max_ranges`), so a request cannot make the server build huge multiparts.
    package static let maximumRanges = 64

    /// The ranges in the order given.
    package let specifiers: [Specifier]

    /// The header value parsed; `nil` when it is not a `bytes` range set HTTP accepts
    /// (another unit, or bad syntax): such a header is ignored and the whole body sent.
    package init?(_ value: String) {
        // Read as bytes, by index: every ranged request a server answers parses this, and
        // walking `Character`s breaks graphemes at every step, which a header's ASCII never needs.
        var value = value
        guard let specifiers = value.withUTF8(Self.specifiers(in:)), !specifiers.isEmpty else { return nil }
        self.specifiers = specifiers
    }

    /// The specifiers of a `bytes=` range set, or `nil` when it is not one.
    private static func specifiers(in bytes: UnsafeBufferPointer<UInt8>) -> [Specifier]? {
        var index = 0
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        let unit = "bytes="
        guard bytes.count - index > unit.utf8.count else { return nil }
        for expected in unit.utf8 {
            guard lowercased(bytes[index]) == expected else { return nil }
            index += 1
        }
        var specifiers: [Specifier] = []
        while index <= bytes.count {
            // One list item: up to the next comma or the end, without the spaces around it.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
            var first = index, last = end
            while first < last, isSpace(bytes[first]) { first += 1 }
            while last > first, isSpace(bytes[last - 1]) { last -= 1 }
            index = end + 1
            if first == last { continue }  // `#` lists allow empty elements
            guard let dash = (first..<last).first(where: { bytes[$0] == UInt8(ascii: "-") }) else { return nil }
            switch (number(bytes, first..<dash), number(bytes, (dash + 1)..<last)) {
            case (.value(let first), .value(let last)):
                guard first <= last else { return nil }
                specifiers.append(.closed(first: first, last: last))
            case (.value(let first), .empty):
                specifiers.append(.from(first))
            case (.empty, .value(let count)):
                specifiers.append(.suffix(count))
            default:
                return nil  // empty on both sides, not digits, or digits too long for an Int
            }
        }
        return specifiers
    }

    private enum Number {
        case empty, value(Int), invalid
    }

    /// ASCII digits as a number; `.invalid` for anything else or an `Int` overflow.
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Number {
        if range.isEmpty { return .empty }
        var result = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return .invalid }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return .invalid }
            result = sum
        }
        return .value(result)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// The byte ranges of a body of `length` bytes this request asks for, in order, the
    /// unsatisfiable ones left out (a range starting past the end, a suffix of zero bytes).
    package func satisfiable(length: Int) -> [Range<Int>] {
        specifiers.compactMap { specifier -> Range<Int>? in
            switch specifier {
            case .closed(let first, let last):
                return first < length ? first..<(min(last, length - 1) + 1) : nil
            case .from(let first):
                return first < length ? first..<length : nil
            case .suffix(let count):
                return count > 0 && length > 0 ? max(0, length - count)..<length : nil
            }
        }
    }
}
