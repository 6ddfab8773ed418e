import Foundation
internal import SwiftASN1
package import X509
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A name a certificate is issued for, as a client gives it in SNI, a CONNECT line or a URL:
/// lowercased, without a trailing dot, brackets or an IPv6 zone; an IP address when it parses
/// as IPv4 or IPv6.
package struct TLSHostName: Sendable, Hashable, CustomStringConvertible {
    /// The normalized name (`img.example.com`, `127.0.0.1`, `::1`).
    package let name: String
    /// The address's bytes (4 or 16) when the name is an IP address.
    package let ipAddress: [UInt8]?

    package init(_ host: String) {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        if let zone = name.firstIndex(of: "%"), name.contains(":") {
            name = String(name[..<zone])
        }
        while name.hasSuffix(".") { name.removeLast() }
        self.name = name
        ipAddress = Self.addressBytes(name)
    }

    /// The subjectAltName entry that names it: an IP address or a DNS name.
    package var generalName: GeneralName {
        if let ipAddress {
            return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(ipAddress)))
        }
        return .dnsName(name)
    }

    package var description: String { name }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
