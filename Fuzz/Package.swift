// swift-tools-version:6.1
// libFuzzer targets for Understudy's parsers and decoders: `make fuzz` builds them with
// `--sanitize=fuzzer --sanitize=address` and runs each one. Its own package, so that neither
// `swift build` nor `swift test` of the root package ever builds it.
import PackageDescription

let package = Package(
    name: "UnderstudyFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Understudy", path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(
            name: "FuzzStubFileYAML",
            dependencies: ["FuzzSupport", .product(name: "Understudy", package: "Understudy")]
        ),
        .executableTarget(
            name: "FuzzStubFileJSON",
            dependencies: ["FuzzSupport", .product(name: "Understudy", package: "Understudy")]
        ),
        .executableTarget(
            name: "FuzzHAR",
            dependencies: [
                .product(name: "Understudy", package: "Understudy"),
                .product(name: "UnderstudyHAR", package: "Understudy"),
            ]
        ),
        .executableTarget(
            name: "FuzzWebP",
            dependencies: [.product(name: "UnderstudyImages", package: "Understudy")]
        ),
        .executableTarget(
            name: "FuzzPNG",
            dependencies: [.product(name: "UnderstudyImages", package: "Understudy")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
