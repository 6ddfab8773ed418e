import ArgumentParser
import Foundation
import UnderstudyServer

extension UnderstudyCommand {
    /// `understudy ca`: prints the local CA's certificate for a client to trust (making the CA
    /// on first use).
    struct CA: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ca",
            abstract: "Print the local certificate authority's certificate (made on first use).",
            discussion: """
                Clients that trust this certificate accept every HTTPS host Understudy serves. \
                The CA's private key stays in its directory (mode 0600) and is never printed.
                """
        )

        /// What to print.
        enum Output: String, EnumerableFlag {
            case pem, der, path, spki

            static func help(for value: Output) -> ArgumentHelp? {
                switch value {
                case .pem: "The certificate in PEM."
                case .der: "The certificate in DER (binary)."
                case .path: "The certificate file's path."
                case .spki: "The base64 SHA-256 of its SubjectPublicKeyInfo (Chromium's --ignore-certificate-errors-spki-list)."
                }
            }
        }

        @OptionGroup var authority: CertificateAuthorityOptions

        @Flag var output: Output = .pem

        func run() throws {
            let ca: CertificateAuthority
            do {
                ca = try authority.load()
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(1)
            }
            FileHandle.standardOutput.write(Self.text(of: ca, as: output))
        }

        /// The bytes `understudy ca` prints for `output`.
        static func text(of ca: CertificateAuthority, as output: Output) -> Data {
            switch output {
            case .pem: Data(ca.pem.utf8)
            case .der: ca.der
            case .path: Data(((ca.certificatePath ?? "") + "\n").utf8)
            case .spki: Data((ca.spkiSHA256Base64 + "\n").utf8)
            }
        }
    }
}
