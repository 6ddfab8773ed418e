import Foundation
import Understudy

/// A coding key for any name: reads the members a HAR type does not know, so they survive a
/// round trip.
struct AnyKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Members of this object whose names are not in `known`, as JSON values.
    func extras(known: Set<String>) throws -> [String: JSONValue] {
        let container = try container(keyedBy: AnyKey.self)
        var extras: [String: JSONValue] = [:]
        for key in container.allKeys where !known.contains(key.stringValue) {
            extras[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        return extras
    }
}

extension Encoder {
    /// Writes `extras` beside the members already encoded.
    func encodeExtras(_ extras: [String: JSONValue]) throws {
        guard !extras.isEmpty else { return }
        var container = container(keyedBy: AnyKey.self)
        for (name, value) in extras {
            try container.encode(value, forKey: AnyKey(name))
        }
    }
}

extension KeyedDecodingContainer {
    /// A number written as an integer or a decimal (`12`, `12.0`, `-1`); `fallback` when absent or null.
    func lenientInt(_ key: Key, default fallback: Int) throws -> Int {
        guard contains(key), try !decodeNil(forKey: key) else { return fallback }
        if let value = try? decode(Int.self, forKey: key) { return value }
        let double = try decode(Double.self, forKey: key)
        guard double.isFinite, abs(double) < 9e15 else {
            throw HARError.invalid(codingPath + [key], "expected a whole number, found \(double)")
        }
        return Int(double.rounded())
    }

    /// A number; `fallback` when absent or null.
    func lenientDouble(_ key: Key, default fallback: Double) throws -> Double {
        guard contains(key), try !decodeNil(forKey: key) else { return fallback }
        return try decode(Double.self, forKey: key)
    }

    /// A string; `fallback` when absent or null.
    func string(_ key: Key, default fallback: String) throws -> String {
        try decodeIfPresent(String.self, forKey: key) ?? fallback
    }

    /// An array; empty when absent or null.
    func array<T: Decodable>(_ key: Key, of type: T.Type = T.self) throws -> [T] {
        try decodeIfPresent([T].self, forKey: key) ?? []
    }
}
