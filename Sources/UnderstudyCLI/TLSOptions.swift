import ArgumentParser
import Foundation
import UnderstudyServer

/// HTTPS and `CONNECT` interception, for `serve` and `record --proxy`.
struct TLSOptions: ParsableArguments {
    @Option(name: [.customLong("tls-port"), .customLong("https-port")], help: "Serve HTTPS on this port as well (0 picks a free one).")
    var tlsPort: Int?

    @Option(help: "A PEM certificate chain to present instead of the local CA's leaves (with --key).")
    var cert: String?

    @Option(help: "The PEM private key of --cert.")
    var key: String?

    @OptionGroup var certificateAuthority: CertificateAuthorityOptions

    @Option(name: .customLong("intercept"), help: ArgumentHelp(
        "CONNECT hosts to decrypt and stub, as host globs (*.example.com; repeatable; default: every host).", valueName: "glob"
    ))
    var intercept: [String] = []

    @Option(name: .customLong("tunnel"), help: ArgumentHelp(
        "CONNECT hosts to splice to the real host untouched (repeatable; wins over --intercept).", valueName: "glob"
    ))
    var tunnel: [String] = []

    func validate() throws {
        if let tlsPort, !(0...65_535).contains(tlsPort) {
            throw ValidationError("--tls-port \(tlsPort) is out of range; expected 0 to 65535")
        }
        if (cert == nil) != (key == nil) {
            throw ValidationError(cert == nil ? "--key needs --cert: the PEM certificate chain it belongs to" : "--cert needs --key: the PEM private key of the chain")
        }
    }

    /// Where certificates come from: the chain given, else the local CA.
    var tls: StubServer.TLS {
        if let cert, let key { return .certificate(chainFile: cert, keyFile: key) }
        return .localCA(directory: certificateAuthority.resolvedDirectory())
    }

    /// `configuration` with the `CONNECT` routes.
    func applyingRoutes(to configuration: StubServer.Configuration) -> StubServer.Configuration {
        var configuration = configuration
        if !intercept.isEmpty { configuration.intercept = intercept }
        configuration.tunnel = tunnel
        return configuration
    }
}
