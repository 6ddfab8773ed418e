import ArgumentParser
import Foundation
import UnderstudyServer

/// `--ca-dir`: where the local CA lives, for `ca` (and `serve --tls-port`).
struct CertificateAuthorityOptions: ParsableArguments {
    @Option(
        name: .customLong("ca-dir"),
        help: "The local CA's directory (default: $UNDERSTUDY_CA_DIR, else ~/.understudy/ca).",
        completion: .directory
    )
    var directory: String?

    /// The directory chosen: the flag, else the environment, else the home directory's.
    func resolvedDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        directory.map { URL(fileURLWithPath: $0) } ?? CertificateAuthority.defaultDirectory(environment: environment)
    }

    /// The CA in the chosen directory, made on first use.
    func load() throws -> CertificateAuthority {
        try CertificateAuthority(directory: resolvedDirectory())
    }
}
