import Foundation

/// DEFLATE decompression in Swift, for the PNG codec of builds without zlib's C
/// library: stored, fixed and dynamic Huffman blocks, codes decoded canonically bit by bit.
struct Inflate {
    /// Why a stream could not be inflated.
    struct Failure: Error {
        let reason: String
    }

    private let input: [UInt8]
    private var position = 0
    private var bitBuffer = 0
    private var bitCount = 0
    private var output: [UInt8] = []
    private let outputLimit: Int

    /// Inflates a raw DEFLATE stream, at most `limit` bytes of output.
    static func decompress(_ input: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var inflate = Inflate(input: input, outputLimit: limit)
        try inflate.run()
        return inflate.output
    }

    private init(input: [UInt8], outputLimit: Int) {
        self.input = input
        self.outputLimit = outputLimit
    }

    /// A canonical Huffman code: how many codes of each length, and the symbols in code order.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) throws(Failure) {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var left = 1
            for length in 1..<16 {
                left = left * 2 - counts[length]
                if left < 0 { throw Failure(reason: "an over-subscribed Huffman code") }
            }
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private mutating func bits(_ count: Int) throws(Failure) -> Int {
        while bitCount < count {
            guard position < input.count else { throw Failure(reason: "the compressed data ends early") }
            bitBuffer |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    private mutating func decode(_ code: Huffman) throws(Failure) -> Int {
        var value = 0, first = 0, index = 0
        for length in 1..<16 {
            value |= try bits(1)
            let count = code.counts[length]
            if value - first < count { return code.symbols[index + value - first] }
            index += count
            first = (first + count) << 1
            value <<= 1
        }
        throw Failure(reason: "an invalid Huffman code")
    }

    private mutating func run() throws(Failure) {
        var last = false
        while !last {
            last = try bits(1) == 1
            switch try bits(2) {
            case 0: try stored()
            case 1: try codes(Self.fixed.literals, Self.fixed.distances)
            case 2:
                let (literals, distances) = try dynamicCodes()
                try codes(literals, distances)
            default: throw Failure(reason: "a block of the reserved type 3")
            }
        }
    }

    private mutating func stored() throws(Failure) {
        bitBuffer = 0
        bitCount = 0
        guard position + 4 <= input.count else { throw Failure(reason: "the compressed data ends early") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard length == ~complement & 0xFFFF else { throw Failure(reason: "a stored block whose length does not match its complement") }
        position += 4
        guard position + length <= input.count else { throw Failure(reason: "the compressed data ends early") }
        guard output.count + length <= outputLimit else { throw Failure(reason: "more data than the image holds") }
        output.append(contentsOf: input[position..<position + length])
        position += length
    }

    private static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static let fixed: (literals: Huffman, distances: Huffman) = {
        var lengths = [Int](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        // Both codes are complete by construction: neither can throw.
        return (try! Huffman(lengths: lengths), try! Huffman(lengths: [Int](repeating: 5, count: 30)))
    }()

    private mutating func codes(_ literals: Huffman, _ distances: Huffman) throws(Failure) {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                guard output.count < outputLimit else { throw Failure(reason: "more data than the image holds") }
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < Self.lengthBase.count else { throw Failure(reason: "an invalid length code") }
                let length = Self.lengthBase[index] + (try bits(Self.lengthExtra[index]))
                let code = try decode(distances)
                guard code < Self.distanceBase.count else { throw Failure(reason: "an invalid distance code") }
                let distance = Self.distanceBase[code] + (try bits(Self.distanceExtra[code]))
                guard distance <= output.count else { throw Failure(reason: "a distance back past the start of the data") }
                guard output.count + length <= outputLimit else { throw Failure(reason: "more data than the image holds") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    private mutating func dynamicCodes() throws(Failure) -> (Huffman, Huffman) {
        let literalCount = try bits(5) + 257, distanceCount = try bits(5) + 1, codeCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw Failure(reason: "too many literal or distance codes") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeCount { codeLengths[order[index]] = try bits(3) }
        let lengthCode = try Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(lengthCode)
            switch symbol {
            case 0..<16: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Failure(reason: "a repeat with no length before it") }
                lengths += repeatElement(previous, count: 3 + (try bits(2)))
            case 17: lengths += repeatElement(0, count: 3 + (try bits(3)))
            default: lengths += repeatElement(0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw Failure(reason: "code lengths that run past their count") }
        guard lengths[256] != 0 else { throw Failure(reason: "no end-of-block code") }
        return (try Huffman(lengths: Array(lengths[..<literalCount])), try Huffman(lengths: Array(lengths[literalCount...])))
    }
}
