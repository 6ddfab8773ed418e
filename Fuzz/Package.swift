// swift-tools-version:6.1
// libFuzzer targets for Understudy's parsers and decoders: `make fuzz` (Fuzz/run.sh) builds
// them with libFuzzer and AddressSanitizer and runs each one. Its own package, so that neither
// `swift build` nor `swift test` of the root package ever builds it.
import PackageDescription

let package = Package(
    name: "UnderstudyFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Understudy", path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "Understudy", package: "Understudy")]),
        .executableTarget(name: "FuzzStubFileYAML", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzStubFileJSON", dependencies: ["FuzzSupport"]),
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
        .executableTarget(
            name: "FuzzJPEG",
            dependencies: [.product(name: "UnderstudyImages", package: "Understudy")]
        ),
        .executableTarget(
            name: "FuzzAVIF",
            dependencies: [.product(name: "UnderstudyImages", package: "Understudy")]
        ),
        .executableTarget(
            name: "FuzzHEIC",
            dependencies: [.product(name: "UnderstudyImages", package: "Understudy")]
        ),
        .executableTarget(
            name: "FuzzGIF",
            dependencies: [.product(name: "UnderstudyImages", package: "Understudy")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
