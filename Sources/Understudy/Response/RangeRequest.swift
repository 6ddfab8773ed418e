/// A `Range: bytes=…` header (RFC 9110 §14.2), parsed: a list of the three forms of byte range,
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

    /// The header value parsed; `nil` when it is not a `bytes` range set RFC 9110 accepts
    /// (another unit, or bad syntax): such a header is ignored and the whole body sent.
    package init?(_ value: String) {
        var text = Substring(value)
        text = text.drop(while: { $0 == " " })
        guard text.count > 6, text.prefix(6).lowercased() == "bytes=" else { return nil }
        var specifiers: [Specifier] = []
        for part in text.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingSpaces()
            if item.isEmpty { continue }  // `#` lists allow empty elements
            guard let dash = item.firstIndex(of: "-") else { return nil }
            let first = item[..<dash], last = item[item.index(after: dash)...]
            guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit) else { return nil }
            switch (Int(first), Int(last)) {
            case (let first?, let last?):
                guard first <= last else { return nil }
                specifiers.append(.closed(first: first, last: last))
            case (let first?, nil) where last.isEmpty:
                specifiers.append(.from(first))
            case (nil, let count?) where first.isEmpty:
                specifiers.append(.suffix(count))
            default:
                return nil  // empty on both sides, or digits too long for an Int
            }
        }
        guard !specifiers.isEmpty else { return nil }
        self.specifiers = specifiers
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

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
