// swift-tools-version:6.3
// The oldest toolchain that builds this package: async-http-client 1.37 and swift-log 1.16 need
// tools 6.2, and UnderstudyTesting uses Swift Testing's `Issue.isFailure`, new in Swift 6.3
// (Xcode 26.4).
import PackageDescription

// The six C codecs are linked on Linux only, with the `SystemCodecs` trait (on by default).
// Apple platforms decode and encode with ImageIO and link none of them; a Mac that serves WebP
// or AVIF (`understudy serve` on the host) can add libwebp and libavif from Homebrew with the
// `HomebrewCodecs` trait. Nothing but UnderstudyImages knows these targets exist.
let linuxCodecs: TargetDependencyCondition? = .when(platforms: [.linux], traits: ["SystemCodecs"])
let macCodecs: TargetDependencyCondition? = .when(platforms: [.macOS], traits: ["HomebrewCodecs"])

// libavif's pkg-config file adds -DAVIF_DLL (needed only for Windows DLLs), a flag SwiftPM
// refuses with a warning on every build. On Linux its headers and library are in the default
// paths, so the module map's `link "avif"` is enough; on a Mac (Homebrew) pkg-config finds them.
#if os(Linux)
let avifPkgConfig: String? = nil
#else
let avifPkgConfig: String? = "libavif"
#endif

let package = Package(
    name: "Understudy",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "Understudy", targets: ["Understudy"]),
        .library(name: "UnderstudyImages", targets: ["UnderstudyImages"]),
        .library(name: "UnderstudyURLProtocol", targets: ["UnderstudyURLProtocol"]),
        .library(name: "UnderstudyXCTest", targets: ["UnderstudyXCTest"]),
        .library(name: "UnderstudyTesting", targets: ["UnderstudyTesting"]),
        .library(name: "UnderstudyServer", targets: ["UnderstudyServer"]),
        .library(name: "UnderstudyHAR", targets: ["UnderstudyHAR"]),
        .library(name: "UnderstudyClient", targets: ["UnderstudyClient"]),
        .executable(name: "understudy", targets: ["UnderstudyCLI"]),
    ],
    traits: [
        .default(enabledTraits: ["SystemCodecs"]),
        .trait(
            name: "SystemCodecs",
            description: "On Linux, link libwebp, libpng, libjpeg-turbo, libavif, libheif and giflib (apt) for every format. Without it Linux builds link no C library."
        ),
        .trait(
            name: "HomebrewCodecs",
            description: "On macOS, add libwebp and libavif from Homebrew (brew install webp libavif) to ImageIO, to encode WebP and AVIF."
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // `make docs`: swift package generate-documentation, one DocC catalog per library module.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C libraries (imported by UnderstudyImages only)
        .systemLibrary(
            name: "CUnderstudyWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
        ),
        .systemLibrary(
            name: "CUnderstudyPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        .systemLibrary(
            name: "CUnderstudyJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]
        ),
        .systemLibrary(
            name: "CUnderstudyAVIF",
            pkgConfig: avifPkgConfig,
            providers: [.apt(["libavif-dev"]), .brew(["libavif"])]
        ),
        .systemLibrary(
            name: "CUnderstudyHEIF",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"]), .brew(["libheif"])]
        ),
        // giflib ships no pkg-config file on Debian: the module map links "gif" itself.
        .systemLibrary(
            name: "CUnderstudyGIF",
            providers: [.apt(["libgif-dev"]), .brew(["giflib"])]
        ),

        // On macOS with the HomebrewCodecs trait, libwebp and libavif from Homebrew: a target of
        // its own, because one target cannot list the same dependency twice under two conditions.
        .target(
            name: "UnderstudyHomebrewCodecs",
            dependencies: [
                .target(name: "CUnderstudyWebP", condition: macCodecs),
                .target(name: "CUnderstudyAVIF", condition: macCodecs),
            ]
        ),

        // MARK: Library modules
        // The lock, the bounded cache and the copy-on-write box every module shares: no product.
        .target(name: "UnderstudySupport"),
        .target(
            name: "UnderstudyImages",
            dependencies: [
                "UnderstudySupport",
                .target(name: "CUnderstudyWebP", condition: linuxCodecs),
                .target(name: "CUnderstudyPNG", condition: linuxCodecs),
                .target(name: "CUnderstudyJPEG", condition: linuxCodecs),
                .target(name: "CUnderstudyAVIF", condition: linuxCodecs),
                .target(name: "UnderstudyHomebrewCodecs", condition: macCodecs),
                .target(name: "CUnderstudyHEIF", condition: linuxCodecs),
                .target(name: "CUnderstudyGIF", condition: linuxCodecs),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [
                // Which codecs this build has: one backend file each (Sources/UnderstudyImages/Codecs).
                .define("UNDERSTUDY_SYSTEM_CODECS", .when(platforms: [.linux], traits: ["SystemCodecs"])),
                .define("UNDERSTUDY_HOMEBREW_CODECS", .when(platforms: [.macOS], traits: ["HomebrewCodecs"])),
            ]
        ),
        .target(
            name: "Understudy",
            dependencies: [
                "UnderstudySupport",
                "UnderstudyImages",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(name: "UnderstudyURLProtocol", dependencies: ["Understudy", "UnderstudySupport"]),
        .target(name: "UnderstudyXCTest", dependencies: ["Understudy", "UnderstudyImages", "UnderstudyURLProtocol"]),
        .target(name: "UnderstudyHAR", dependencies: ["Understudy", "UnderstudySupport", "UnderstudyImages"]),
        // Drives a running server over its admin API: Foundation only, so it builds everywhere.
        .target(name: "UnderstudyClient", dependencies: ["Understudy"]),
        .target(
            name: "UnderstudyTesting",
            dependencies: ["Understudy", "UnderstudySupport", "UnderstudyImages", "UnderstudyURLProtocol", "UnderstudyServer", "UnderstudyHAR"]
        ),
        .target(
            name: "UnderstudyServer",
            dependencies: [
                "Understudy",
                "UnderstudySupport",
                "UnderstudyImages",
                "UnderstudyHAR",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The dashboard's page, script, style and icon, compiled into the module as bytes
            // (`PackageResources`): the server stays one file, with no resource bundle to find.
            resources: [
                .embedInCode("Admin/Dashboard/dashboard.html"),
                .embedInCode("Admin/Dashboard/dashboard.js"),
                .embedInCode("Admin/Dashboard/dashboard.css"),
                .embedInCode("Admin/Dashboard/favicon.svg"),
            ]
        ),
        // The command line: its own name, because a Mac's file system is case-insensitive and
        // `Sources/understudy` would be `Sources/Understudy`. The product (the binary) is `understudy`.
        .executableTarget(
            name: "UnderstudyCLI",
            dependencies: [
                "Understudy",
                "UnderstudySupport",
                "UnderstudyImages",
                "UnderstudyServer",
                "UnderstudyHAR",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Tests
        // What more than one test target uses (a local upstream server).
        .target(name: "UnderstudyTestSupport", dependencies: ["UnderstudyImages"], path: "Tests/Support"),
        .testTarget(name: "UnderstudyImagesTests", dependencies: ["UnderstudyImages", "UnderstudySupport", "UnderstudyTestSupport"]),
        .testTarget(name: "UnderstudyTests", dependencies: ["Understudy", "UnderstudyImages"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "UnderstudyURLProtocolTests",
            dependencies: ["Understudy", "UnderstudyImages", "UnderstudyURLProtocol", "UnderstudyTestSupport"]
        ),
        .testTarget(
            name: "UnderstudyXCTestTests",
            dependencies: ["Understudy", "UnderstudyImages", "UnderstudyURLProtocol", "UnderstudyXCTest"]
        ),
        .testTarget(
            name: "UnderstudyServerTests",
            dependencies: [
                "Understudy",
                "UnderstudySupport",
                "UnderstudyImages",
                "UnderstudyTestSupport",
                "UnderstudyServer",
                "UnderstudyURLProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "UnderstudyHARTests",
            dependencies: ["UnderstudyHAR", "Understudy", "UnderstudyImages", "UnderstudyServer", "UnderstudyURLProtocol", "UnderstudyTestSupport"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "UnderstudyTestingTests",
            dependencies: ["Understudy", "UnderstudySupport", "UnderstudyImages", "UnderstudyTesting", "UnderstudyURLProtocol", "UnderstudyServer", "UnderstudyHAR", "UnderstudyClient"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "UnderstudyCLITests",
            dependencies: [
                "UnderstudyCLI", "Understudy", "UnderstudyImages", "UnderstudyTestSupport", "UnderstudyHAR", "UnderstudyServer", "UnderstudyClient", "UnderstudyXCTest",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
