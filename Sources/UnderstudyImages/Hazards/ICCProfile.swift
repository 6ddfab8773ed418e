import Foundation

/// A matrix/TRC RGB display profile (ICC v4), written byte by byte: no codec library writes
/// profiles, and these two are small enough to state in full. The colorants are the space's
/// primaries adapted to D50 with Bradford, as ICC requires and as Apple's and Adobe's own
/// profiles give them.
struct ICCProfile {
    /// The transfer curve: a pure gamma (Adobe RGB) or sRGB's piecewise curve (Display P3).
    enum Curve {
        case gamma(Double)
        case sRGB

        /// Linear light (0...1) to the encoded value (0...1).
        func encode(_ linear: Double) -> Double {
            let value = min(max(linear, 0), 1)
            switch self {
            case .gamma(let gamma): return pow(value, 1 / gamma)
            case .sRGB: return value <= 0.0031308 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
            }
        }

        /// The encoded value (0...1) to linear light.
        func decode(_ encoded: Double) -> Double {
            switch self {
            case .gamma(let gamma): return pow(encoded, gamma)
            case .sRGB: return encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
            }
        }
    }

    typealias Matrix = [[Double]]

    let description: String
    /// RGB (linear) to XYZ under D65, rows X, Y, Z.
    let toXYZ: Matrix
    let curve: Curve

    /// Display P3: DCI-P3 primaries, D65, sRGB's curve.
    static let displayP3 = ICCProfile(
        description: "Display P3 (Understudy)",
        toXYZ: [[0.4865709, 0.2656677, 0.1982173], [0.2289746, 0.6917385, 0.0792869], [0.0, 0.0451134, 1.0439444]],
        curve: .sRGB
    )

    /// Adobe RGB (1998): its primaries, D65, gamma 563/256.
    static let adobeRGB = ICCProfile(
        description: "Adobe RGB (1998) (Understudy)",
        toXYZ: [[0.5767309, 0.1855540, 0.1881852], [0.2973769, 0.6273491, 0.0752741], [0.0270343, 0.0706872, 0.9911085]],
        curve: .gamma(563.0 / 256.0)
    )

    /// sRGB's primaries under D65, for converting sRGB colours into this space.
    static let sRGBToXYZ: Matrix = [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]

    /// Bradford adaptation from D65 to D50 (ICC's connection space).
    static let bradfordD65ToD50: Matrix = [[1.0478112, 0.0228866, -0.0501270], [0.0295424, 0.9904844, -0.0170491], [-0.0092345, 0.0150436, 0.7521316]]

    /// The 8-bit values in this space of an sRGB colour (relative colorimetric, clipped):
    /// what the pixels of a profile hazard store so that a client honouring the profile shows
    /// `colour`, and one that ignores it shows these numbers instead.
    func values(ofSRGB colour: [UInt8]) -> [UInt8] {
        let linear = colour.prefix(3).map { ICCProfile.Curve.sRGB.decode(Double($0) / 255) }
        let xyz = Self.multiply(Self.sRGBToXYZ, linear)
        let own = Self.multiply(Self.inverse(toXYZ), xyz)
        return own.map { UInt8((curve.encode($0) * 255).rounded()) }
    }

    /// The profile's bytes: header, tag table, then desc, cprt, wtpt, rXYZ/gXYZ/bXYZ and one
    /// curve shared by rTRC, gTRC and bTRC.
    var data: Data {
        let colorants = Self.multiply(Self.bradfordD65ToD50, toXYZ)
        let column = { (index: Int) in Self.xyzTag(colorants.map { $0[index] }) }
        let curveTag: [UInt8] = switch curve {
        case .gamma(let gamma): Self.ascii("curv") + [0, 0, 0, 0] + Self.be32(1) + Self.be16(UInt16((gamma * 256).rounded())) + [0, 0]
        case .sRGB:
            Self.ascii("para") + [0, 0, 0, 0] + Self.be16(3) + [0, 0]
                + [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045].flatMap(Self.s15Fixed16)
        }
        let tags: [(String, [UInt8])] = [
            ("desc", Self.mluc(description)),
            ("cprt", Self.mluc("No copyright, use freely")),
            ("wtpt", Self.xyzTag([0.9642, 1.0, 0.8249])),
            ("rXYZ", column(0)), ("gXYZ", column(1)), ("bXYZ", column(2)),
            ("rTRC", curveTag), ("gTRC", curveTag), ("bTRC", curveTag),
        ]
        var table = [UInt8]()
        var body = [UInt8]()
        let bodyStart = 128 + 4 + tags.count * 12
        var curveOffset: Int?
        for (signature, bytes) in tags {
            var offset = bodyStart + body.count
            if signature.hasSuffix("TRC"), let shared = curveOffset {
                offset = shared
            } else {
                if signature == "rTRC" { curveOffset = offset }
                body += bytes
                while body.count % 4 != 0 { body.append(0) }
            }
            table += Self.ascii(signature) + Self.be32(UInt32(offset)) + Self.be32(UInt32(bytes.count))
        }
        let size = bodyStart + body.count
        var header = Self.be32(UInt32(size)) + [0, 0, 0, 0] + [4, 0x30, 0, 0] + Self.ascii("mntr") + Self.ascii("RGB ") + Self.ascii("XYZ ")
        header += [2026, 1, 1, 0, 0, 0].flatMap { Self.be16(UInt16($0)) }
        header += Self.ascii("acsp") + [UInt8](repeating: 0, count: 24) + Self.be32(0)
        header += [0.9642, 1.0, 0.8249].flatMap(Self.s15Fixed16)
        header += [UInt8](repeating: 0, count: 128 - header.count)
        return Data(header + Self.be32(UInt32(tags.count)) + table + body)
    }

    private static func mluc(_ text: String) -> [UInt8] {
        let utf16 = text.utf16.flatMap { be16($0) }
        return ascii("mluc") + [0, 0, 0, 0] + be32(1) + be32(12) + ascii("enUS") + be32(UInt32(utf16.count)) + be32(28) + utf16
    }

    private static func xyzTag(_ xyz: [Double]) -> [UInt8] {
        ascii("XYZ ") + [0, 0, 0, 0] + xyz.flatMap(s15Fixed16)
    }

    private static func s15Fixed16(_ value: Double) -> [UInt8] {
        be32(UInt32(bitPattern: Int32((value * 65536).rounded())))
    }

    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xFF) } }

    static func multiply(_ matrix: Matrix, _ vector: [Double]) -> [Double] {
        matrix.map { row in zip(row, vector).reduce(0) { $0 + $1.0 * $1.1 } }
    }

    static func multiply(_ a: Matrix, _ b: Matrix) -> Matrix {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func inverse(_ m: Matrix) -> Matrix {
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        let cofactors: Matrix = [
            [m[1][1] * m[2][2] - m[1][2] * m[2][1], m[0][2] * m[2][1] - m[0][1] * m[2][2], m[0][1] * m[1][2] - m[0][2] * m[1][1]],
            [m[1][2] * m[2][0] - m[1][0] * m[2][2], m[0][0] * m[2][2] - m[0][2] * m[2][0], m[0][2] * m[1][0] - m[0][0] * m[1][2]],
            [m[1][0] * m[2][1] - m[1][1] * m[2][0], m[0][1] * m[2][0] - m[0][0] * m[2][1], m[0][0] * m[1][1] - m[0][1] * m[1][0]],
        ]
        return cofactors.map { row in row.map { $0 / det } }
    }
}
