import Foundation

/// Where stub files come from: a directory (or one file) on disk, or a folder of a bundle's
/// resources, for test targets with no `Package.swift` beside them (an Xcode app's tests, a
/// device, the iOS Simulator).
///
/// ```swift
/// try stubs.load(from: .bundle(.module, subdirectory: "Stubs"))
/// ```
public struct StubFileLocation: Sendable, CustomStringConvertible {
    enum Place: Sendable {
        case url(URL)
        case bundle(resources: URL?, path: String, subdirectory: String?)
    }

    let place: Place

    /// A directory of stub files, read recursively, or one stub file.
    public static func directory(_ url: URL) -> StubFileLocation {
        StubFileLocation(place: .url(url))
    }

    /// The folder `subdirectory` of `bundle`'s resources (all of them with `nil`). In a Swift
    /// package, copy the folder whole, so that stub files keep their relative paths to the
    /// fixtures they name: `resources: [.copy("Stubs")]` in the test target, then
    /// `.bundle(.module, subdirectory: "Stubs")`. In Xcode, add the folder as a folder
    /// reference (blue), not as a group.
    public static func bundle(_ bundle: Bundle, subdirectory: String? = nil) -> StubFileLocation {
        StubFileLocation(place: .bundle(resources: bundle.resourceURL, path: bundle.bundlePath, subdirectory: subdirectory))
    }

    /// The directory or file to read.
    /// - Throws: ``StubFileError`` when a bundle has no such folder, saying how to add it.
    public func resolved() throws -> URL {
        switch place {
        case .url(let url):
            return url
        case .bundle(let resources, let path, let subdirectory):
            guard let resources else {
                throw StubFileError(issues: [.init(file: path, line: nil, path: nil, message: "the bundle has no resources folder")])
            }
            let folder = subdirectory.map { resources.appendingPathComponent($0, isDirectory: true) } ?? resources
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) else {
                throw StubFileError(issues: [.init(
                    file: path, line: nil, path: subdirectory,
                    message: "the bundle has no folder '\(subdirectory ?? "")' in \(resources.path); copy it whole: resources: [.copy(\"\(subdirectory ?? "Stubs")\")] in the test target (in Xcode, a folder reference)"
                )])
            }
            return folder
        }
    }

    /// `Stubs in AppTests.xctest` or the path.
    public var description: String {
        switch place {
        case .url(let url): url.path
        case .bundle(_, let path, let subdirectory): "\(subdirectory ?? "the resources") in \(URL(fileURLWithPath: path).lastPathComponent)"
        }
    }
}

extension StubRegistry {
    /// Adds the stubs of the stub files at `location`, and remembers them for ``reset()``.
    ///
    /// ```swift
    /// try stubs.load(from: .bundle(.module, subdirectory: "Stubs"))
    /// ```
    /// - Throws: ``StubFileError`` listing every issue, or saying the bundle lacks the folder.
    public func load(from location: StubFileLocation) throws {
        try load(from: location.resolved())
    }

    /// Adds the stubs of the folder `subdirectory` of `bundle`'s resources: a test target's
    /// own stub files and fixtures (`Bundle.module`, or an Xcode test bundle).
    ///
    /// ```swift
    /// try stubs.load(from: Bundle.module, subdirectory: "Stubs")
    /// ```
    /// - Throws: ``StubFileError`` listing every issue, or saying the bundle lacks the folder.
    public func load(from bundle: Bundle, subdirectory: String? = nil) throws {
        try load(from: .bundle(bundle, subdirectory: subdirectory))
    }
}
