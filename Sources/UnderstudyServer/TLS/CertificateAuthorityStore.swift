internal import Crypto
import Foundation
internal import SwiftASN1
internal import X509
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CA's two files in its directory: read, checked, or made once under a lock so that two
/// processes starting together end up with the same CA.
struct CertificateAuthorityStore {
    let directory: URL

    var certificatePath: String { directory.appendingPathComponent(CertificateAuthority.certificateFileName).path }
    var keyPath: String { directory.appendingPathComponent(CertificateAuthority.keyFileName).path }

    /// The hint every "this is not what Understudy wrote" message ends with.
    private var remakeHint: String { "delete \(directory.path) to make a new CA" }

    /// The key and certificate in the directory, made by `make` (and written) when neither exists.
    func loadOrCreate(
        make: (P256.Signing.PrivateKey) throws -> Certificate
    ) throws -> (P256.Signing.PrivateKey, Certificate) {
        try createDirectory()
        let lock = open(directory.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if lock >= 0 {
            flock(lock, LOCK_EX)
        }
        defer {
            if lock >= 0 { close(lock) }  // closing releases the flock
        }
        let hasCertificate = FileManager.default.fileExists(atPath: certificatePath)
        let hasKey = FileManager.default.fileExists(atPath: keyPath)
        switch (hasCertificate, hasKey) {
        case (false, false):
            let key = P256.Signing.PrivateKey()
            let certificate = try make(key)
            // The key first: a certificate without its key would refuse every later run.
            try writeAtomically(Data(key.pemRepresentation.utf8), to: keyPath, mode: 0o600)
            try writeAtomically(Data((certificate.serializeAsPEM().pemString + "\n").utf8), to: certificatePath, mode: 0o644)
            return (key, certificate)
        case (true, false):
            throw TLSFileError(file: keyPath, "missing while \(certificatePath) exists; expected both files (\(remakeHint))")
        case (false, true):
            throw TLSFileError(file: certificatePath, "missing while \(keyPath) exists; expected both files (\(remakeHint))")
        case (true, true):
            return try load()
        }
    }

    private func load() throws -> (P256.Signing.PrivateKey, Certificate) {
        var status = stat()
        guard stat(keyPath, &status) == 0 else {
            throw TLSFileError(file: keyPath, "cannot read the file (\(String(cString: strerror(errno))))")
        }
        let mode = status.st_mode & 0o7777
        guard mode & 0o077 == 0 else {
            throw TLSFileError(file: keyPath, """
                the CA key file has mode \(String(mode, radix: 8).leftPadded(to: 4)), which lets group or others read it; \
                expected 0600 (chmod 600 \(keyPath))
                """)
        }
        let keyText = try TLSFileError.readText(keyPath)
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: keyText)
        } catch {
            throw TLSFileError(file: keyPath, "not a PEM P-256 private key; expected the key Understudy wrote (\(remakeHint))")
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(pemEncoded: try TLSFileError.readText(certificatePath))
        } catch let error as TLSFileError {
            throw error
        } catch {
            throw TLSFileError(file: certificatePath, "not a PEM certificate; expected the CA certificate Understudy wrote (\(remakeHint))")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw TLSFileError(file: certificatePath, """
                the certificate is not for the key in \(keyPath); expected the pair Understudy wrote (\(remakeHint))
                """)
        }
        return (key, certificate)
    }

    private func createDirectory() throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            let reason = (error as NSError).localizedDescription
            throw TLSFileError(file: directory.path, """
                cannot create the CA directory (\(reason)); expected a directory Understudy can write \
                (--ca-dir or \(CertificateAuthority.directoryEnvironmentVariable))
                """)
        }
    }

    /// Writes through a temporary file made with `mode` from the start, then renames it over
    /// `path`, so no reader ever sees a partial file and the key is never readable by others.
    private func writeAtomically(_ data: Data, to path: String, mode: mode_t) throws {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw TLSFileError(file: path, "cannot write the file (\(String(cString: strerror(errno))))")
        }
        var failure: Int32 = fchmod(descriptor, mode) == 0 ? 0 : errno  // the umask may have taken bits away
        if failure == 0 {
            failure = data.withUnsafeBytes { buffer -> Int32 in
                var offset = 0
                while offset < buffer.count {
                    let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return fsync(descriptor) == 0 ? 0 : errno
            }
        }
        close(descriptor)
        if failure == 0, rename(temporary, path) != 0 {
            failure = errno
        }
        if failure != 0 {
            unlink(temporary)
            throw TLSFileError(file: path, "cannot write the file (\(String(cString: strerror(failure))))")
        }
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
