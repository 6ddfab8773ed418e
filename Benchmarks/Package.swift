// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so that `swift test` of Understudy never builds them.
// Run with `bash Benchmarks/run.sh` (or `make bench`); always in release mode.
let package = Package(
    name: "UnderstudyBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Understudy", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "UnderstudyBench",
            dependencies: [
                .product(name: "Understudy", package: "Understudy"),
                .product(name: "UnderstudyImages", package: "Understudy"),
                .product(name: "UnderstudyServer", package: "Understudy"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
