import Foundation

/// Finds the package a source file belongs to: the nearest directory above it holding a
/// `Package.swift`.
enum PackageDirectory {
    /// The directory holding `Package.swift` nearest above `filePath`, or `nil` when there is none.
    static func containing(_ filePath: String) -> URL? {
        var directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().standardizedFileURL
        while true {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            let parent = directory.deletingLastPathComponent()
            guard parent.path != directory.path else { return nil }
            directory = parent
        }
    }
}
