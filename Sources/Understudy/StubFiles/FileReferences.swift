import Foundation

/// Resolves the paths inside stub files (`file: images/cat.png`): relative to the stub file,
/// and never outside the directory the load started from, whether by `..`, an absolute path
/// or a symlink that points elsewhere.
struct FileReferences: Sendable {
    /// The load's directory: absolute, symlinks resolved.
    let root: String
    /// How messages name the load's directory: as the caller gave it.
    let rootDisplay: String
    /// The stub file's directory, absolute and inside `root`.
    let directory: String
    /// What relative paths are relative to, as messages say it.
    var relativeTo = "the stub file"

    struct Problem: Error {
        let message: String
    }

    func resolve(_ reference: String) -> Result<URL, Problem> {
        guard !reference.isEmpty else {
            return .failure(Problem(message: "the path is empty; expected a path relative to \(relativeTo)"))
        }
        guard !reference.hasPrefix("/") else {
            return .failure(Problem(
                message: "absolute path '\(reference)' is refused; expected a path relative to \(relativeTo), inside \(rootDisplay)"
            ))
        }
        guard let lexical = Self.normalize(directory + "/" + reference), Self.path(lexical, isInside: root) else {
            return .failure(Problem(message: "path '\(reference)' escapes \(rootDisplay); expected a path inside it"))
        }
        let shown = Self.join(rootDisplay, String(lexical.dropFirst(root.count).drop { $0 == "/" }))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: lexical, isDirectory: &isDirectory) else {
            return .failure(Problem(message: "file '\(reference)' does not exist; expected a file at \(shown)"))
        }
        guard Self.path(Self.resolvingSymlinks(lexical), isInside: root) else {
            return .failure(Problem(
                message: "path '\(reference)' resolves outside \(rootDisplay) through a symlink; expected a file inside it"
            ))
        }
        guard !isDirectory.boolValue else {
            return .failure(Problem(message: "'\(reference)' is a directory; expected a file"))
        }
        return .success(URL(fileURLWithPath: lexical))
    }

    // MARK: - Paths

    /// `path` with `.` and `..` components applied; `nil` if `..` climbs above `/`.
    static func normalize(_ path: String) -> String? {
        var components: [Substring] = []
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..":
                guard components.popLast() != nil else { return nil }
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// Whether `path` is `root` or below it (both absolute and normalized).
    static func path(_ path: String, isInside root: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root + "/")
    }

    /// The absolute path with every symlink resolved (`realpath`, which unlike Foundation's
    /// `resolvingSymlinksInPath` never strips `/private` on Apple platforms); unchanged when
    /// it does not exist.
    static func resolvingSymlinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `directory/name` as messages show it.
    static func join(_ directory: String, _ name: String) -> String {
        if name.isEmpty { return directory }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
