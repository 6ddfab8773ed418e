import Foundation
import XCTest

/// The `understudy` executable that `swift test` built beside the test bundle, with any
/// scratch path.
func understudyExecutable() throws -> URL {
    var directories = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    // On Apple platforms the tests run inside xctest; the bundle sits in the products directory.
    directories += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        .map { $0.deletingLastPathComponent() }
    for directory in directories {
        let candidate = directory.appendingPathComponent("understudy")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    XCTFail("no understudy executable in \(directories.map(\.path))")
    throw CocoaError(.fileNoSuchFile)
}
