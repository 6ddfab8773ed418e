import Foundation

/// The WireMock mapping a stub was read from, as the WireMock admin API shows and saves it.
///
/// Only the WireMock parser makes one, with the memberwise initializer.
package struct WireMockMapping: Sendable {
    /// The mapping's `id`: the one it gave, or one made up when it gave none.
    package var id: UUID
    /// The mapping as given, with `id` and `uuid` set to its id, as WireMock writes them.
    package var json: JSONValue
    /// Whether it was posted with `persistent: true`.
    package var persistent: Bool
    /// Whether it came from the root's `mappings/` (else from the admin API).
    package var fromFile: Bool

    /// The id a stub that is not a WireMock mapping shows in the WireMock admin API: the same
    /// for the same name, so that `GET` and `DELETE /__admin/mappings/{id}` find it again.
    package static func id(forStubNamed name: String) -> UUID {
        // Two FNV-1a hashes of the name, with different offsets, make the 128 bits.
        func fnv(_ offset: UInt64) -> UInt64 {
            var hash = offset
            for byte in name.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
        let high = fnv(0xcbf2_9ce4_8422_2325), low = fnv(0x8422_2325_cbf2_9ce4)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * (7 - index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (8 * (7 - index)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4 layout, as WireMock's random ids have
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
}

extension Stub {
    /// The id the WireMock admin API knows this stub by: its mapping's, or one made from its name.
    package var wireMockID: UUID {
        wireMock?.id ?? WireMockMapping.id(forStubNamed: name)
    }
}
