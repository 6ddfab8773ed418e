// swift-tools-version:6.1
// A package of a user's, depending on Understudy by path with its default traits off: the
// configuration nearest to Apple platforms' that Linux builds (no C codec linked). `make
// test-external` copies it outside the repository, points UNDERSTUDY_ROOT at the checkout,
// runs its tests and checks with ldd that its test binary links none of the C codecs.
import PackageDescription

/// The Understudy checkout, as an absolute path without `..`: a path dependency's package
/// identity is its folder's name, whatever the checkout is called.
let understudy: String = {
    let given = Context.environment["UNDERSTUDY_ROOT"] ?? Context.packageDirectory + "/../.."
    var parts: [Substring] = []
    for part in given.split(separator: "/") where part != "." {
        if part == ".." { parts.removeLast() } else { parts.append(part) }
    }
    return "/" + parts.joined(separator: "/")
}()
let identity = String(understudy.split(separator: "/").last ?? "understudy").lowercased()

let package = Package(
    name: "UnderstudyConsumer",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [
        .package(path: understudy, traits: []),
    ],
    targets: [
        .testTarget(
            name: "ConsumerTests",
            dependencies: [
                .product(name: "Understudy", package: identity),
                .product(name: "UnderstudyImages", package: identity),
                .product(name: "UnderstudyXCTest", package: identity),
                .product(name: "UnderstudyTesting", package: identity),
                .product(name: "UnderstudyClient", package: identity),
                .product(name: "UnderstudyServer", package: identity),
            ],
            resources: [.copy("Stubs"), .copy("WebPStubs")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
