internal import Crypto
import Foundation
import UnderstudyImages
import UnderstudySupport

/// The digest a default `ETag` is made of: SHA-256 of the bytes served, its first 16 bytes in
/// hex.
///
/// A canned rendering is digested once (it is kept, see `RenderCache`); renderings made per
/// request (images, closures, sequences) look their body up in a small table first, so the
/// same 100 KB image is not hashed again for every request: comparing it with the kept copy
/// (often the very same storage) costs a fraction of hashing it.
enum BodyDigest {
    /// Bodies this size or larger are remembered.
    private static let rememberedFrom = 4096
    private static let capacity = 64
    private static let remembered = LockedState<[Data: String]>([:])

    /// The hex digest of `body`.
    static func hex(of body: Data) -> String {
        if body.count >= rememberedFrom, let known = remembered.withLock({ $0[body] }) {
            return known
        }
        let digest = SHA256.hash(data: body).prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        if body.count >= rememberedFrom {
            remembered.withLock { table in
                if table.count >= capacity { table.removeAll() }
                table[body] = digest
            }
        }
        return digest
    }
}
