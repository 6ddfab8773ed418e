import Foundation
internal import Yams

/// Reads stub files (YAML or JSON, one schema) into ``Stub`` values.
///
/// A directory is read recursively: every `*.yaml`, `*.yml` and `*.json` file, in byte-wise
/// order of their paths, and each file's stubs in order, so that among stubs of equal priority
/// the one later in that order wins. Hidden files and directories (`.name`) are skipped. Paths
/// inside a file (`file: images/cat.png`) are relative to that file and may not leave the
/// directory the load started from.
///
/// Every problem in every file is reported at once, as a ``StubFileError``:
/// ```swift
/// do {
///     let set = try StubFileLoader.load(from: URL(fileURLWithPath: "Stubs"))
///     print("\(set.stubs.count) stubs in \(set.files.count) files")
/// } catch let error as StubFileError {
///     print(error)   // Stubs/cats.yaml:12: stubs[2].response.fault: unknown fault 'explode'; ...
/// }
/// ```
public enum StubFileLoader {
    /// The syntax of a stub document.
    public enum Format: Sendable, Hashable {
        /// YAML 1.1 (what libyaml reads).
        case yaml
        /// JSON: syntax-checked as JSON, then read with line numbers like YAML.
        case json

        /// The format a file name's extension says: `.json` is JSON, anything else YAML.
        public init(fileName: String) {
            self = fileName.lowercased().hasSuffix(".json") ? .json : .yaml
        }
    }

    /// What one load read.
    public struct LoadedStubs: Sendable {
        /// The stubs, in load order.
        public let stubs: [Stub]
        /// The files read, as issues would name them (`Stubs/cats.yaml`), in load order.
        public let files: [String]
        /// The `tls:` rules of every file, in load order (the last matching one wins).
        public var tlsRules: [TLSRule] = []
    }

    /// The extensions a directory load reads.
    public static let fileExtensions = ["yaml", "yml", "json"]

    /// The most nodes a small document may stand for once YAML aliases are expanded; a larger
    /// document may have one per byte.
    static let maximumExpandedNodes = 100_000

    /// Reads a directory of stub files (recursively) or one stub file.
    /// - Parameter url: the directory or file; issues name files by its `relativePath`.
    /// - Throws: ``StubFileError`` with every issue found.
    public static func load(from url: URL) throws -> LoadedStubs {
        let display = url.relativePath
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw StubFileError(issues: [StubFileError.Issue(
                file: display, line: nil, path: nil,
                message: "no such file or directory; expected a directory of stub files or a stub file"
            )])
        }
        let absolute = FileReferences.normalize(url.path) ?? url.path
        var documents: [Document] = []
        let root: String
        if isDirectory.boolValue {
            root = FileReferences.resolvingSymlinks(absolute)
            var visited: Set<String> = [root]
            collectFiles(in: root, relative: "", root: root, display: display, into: &documents, visited: &visited)
            documents.sort { Array($0.relative.utf8).lexicographicallyPrecedes(Array($1.relative.utf8)) }
        } else {
            // The file's own directory is the root, as it is named; a stub file that is a symlink
            // to elsewhere is refused as in a directory load, since its `file:` paths would
            // otherwise reach whatever lies beside the link's target.
            root = FileReferences.resolvingSymlinks((absolute as NSString).deletingLastPathComponent)
            let name = (absolute as NSString).lastPathComponent
            let resolved = FileReferences.resolvingSymlinks(FileReferences.join(root, name))
            var document = Document(relative: name, display: display)
            if !FileReferences.path(resolved, isInside: root) {
                let directory = parentDisplay(of: display)
                document.refusal = StubFileError.Issue(
                    file: display, line: nil, path: nil,
                    message: "symlink resolves outside \(directory) (to \(resolved)); expected stub files inside it"
                )
            }
            documents = [document]
        }

        var perFile: [[StubFileError.Issue]] = []
        var parsed: [(file: String, stub: ParsedStub)] = []
        var tlsRules: [TLSRule] = []
        for document in documents {
            if let refusal = document.refusal {
                perFile.append([refusal])
                continue
            }
            let path = FileReferences.join(root, document.relative)
            let references = FileReferences(
                root: root, rootDisplay: isDirectory.boolValue ? display : parentDisplay(of: display),
                directory: (path as NSString).deletingLastPathComponent
            )
            let result = parse(
                contentsOf: URL(fileURLWithPath: path), file: document.display, references: references
            )
            perFile.append(result.issues)
            parsed += result.stubs.map { (document.display, $0) }
            tlsRules += result.tlsRules
        }
        let duplicates = duplicateNameIssues(parsed)
        var issues: [StubFileError.Issue] = []
        for (index, document) in documents.enumerated() {
            let fileIssues = perFile[index] + duplicates.filter { $0.file == document.display }
            issues += fileIssues.enumerated()
                .sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
                .map(\.element)
        }
        guard issues.isEmpty else { throw StubFileError(issues: issues) }
        return LoadedStubs(stubs: parsed.compactMap(\.stub.stub), files: documents.map(\.display), tlsRules: tlsRules)
    }

    /// A file a load reads, or an entry it refuses (with the issue saying why).
    private struct Document {
        let relative: String
        let display: String
        var refusal: StubFileError.Issue?
    }

    /// Reads a directory of stub files (recursively) or one stub file: ``load(from:)-(URL)``'s stubs.
    /// - Throws: ``StubFileError`` with every issue found.
    public static func stubs(from url: URL) throws -> [Stub] {
        try load(from: url).stubs
    }

    /// Reads stubs from text, as the admin API receives them.
    /// - Parameters:
    ///   - text: a document `{stubs: [...]}` (or, with `allowsSingleStub`, one stub's mapping).
    ///   - format: YAML or JSON.
    ///   - name: how issues name the document; its name without extension prefixes default stub names.
    ///   - directory: where `file:` paths resolve (and may not leave); `nil` refuses them.
    ///   - allowsSingleStub: whether a document that is one stub, without `stubs:`, is accepted.
    /// - Throws: ``StubFileError`` with every issue found.
    public static func stubs(
        parsing text: String, format: Format, named name: String = "request body", relativeTo directory: URL? = nil,
        allowsSingleStub: Bool = false
    ) throws -> [Stub] {
        let references = directory.map { directory -> FileReferences in
            let root = FileReferences.resolvingSymlinks(FileReferences.normalize(directory.path) ?? directory.path)
            return FileReferences(root: root, rootDisplay: directory.relativePath, directory: root)
        }
        var parser = StubFileParser(file: name, defaultNamePrefix: defaultNamePrefix(for: name), references: references)
        var stubs: [ParsedStub] = []
        if let root = compose(text, format: format, parser: &parser) {
            stubs = parser.parseDocument(root, allowsSingleStub: allowsSingleStub)
        }
        let issues = parser.issues + duplicateNameIssues(stubs.map { (name, $0) })
        guard issues.isEmpty else { throw StubFileError(issues: issues) }
        return stubs.compactMap(\.stub)
    }

    /// Reads a request matcher from a document `{request: {...}}` in the stub-file schema.
    /// - Parameters:
    ///   - text: the document.
    ///   - format: YAML or JSON.
    ///   - name: how issues name the document.
    /// - Throws: ``StubFileError`` with every issue found.
    package static func requestMatcher(parsing text: String, format: Format, named name: String = "request body") throws
        -> RequestMatcher
    {
        var parser = StubFileParser(file: name, defaultNamePrefix: defaultNamePrefix(for: name), references: nil)
        var matcher: RequestMatcher?
        if let root = compose(text, format: format, parser: &parser) {
            matcher = parser.parseMatcherDocument(root)
        }
        guard parser.issues.isEmpty, let matcher else { throw StubFileError(issues: parser.issues) }
        return matcher
    }

    /// ``requestMatcher(parsing:format:named:)`` for the fuzz targets of `make fuzz`, which are a
    /// package of their own and so cannot reach `package` declarations: the same parse, the
    /// matcher discarded.
    /// - Throws: ``StubFileError`` with every issue found.
    @_spi(Fuzzing) public static func checkRequestMatcher(parsing text: String, format: Format, named name: String) throws {
        _ = try requestMatcher(parsing: text, format: format, named: name)
    }

    // MARK: - Files

    private static func parse(
        contentsOf url: URL, file: String, references: FileReferences
    ) -> (stubs: [ParsedStub], tlsRules: [TLSRule], issues: [StubFileError.Issue]) {
        var parser = StubFileParser(
            file: file, defaultNamePrefix: defaultNamePrefix(for: url.lastPathComponent), references: references
        )
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            return ([], [], [StubFileError.Issue(
                file: file, line: nil, path: nil, message: "cannot read the file: \((error as NSError).localizedDescription)"
            )])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return ([], [], [StubFileError.Issue(file: file, line: nil, path: nil, message: "the file is not UTF-8 text")])
        }
        guard let root = compose(text, format: Format(fileName: url.lastPathComponent), parser: &parser) else {
            return ([], [], parser.issues)
        }
        let stubs = parser.parseDocument(root, allowsTLS: true)
        return (stubs, parser.tlsRules, parser.issues)
    }

    /// Walks `directory` depth-first, collecting stub files by their path relative to the root.
    /// Symlinks are followed while they stay inside the root; each directory is read once.
    private static func collectFiles(
        in directory: String, relative: String, root: String, display: String,
        into documents: inout [Document], visited: inout Set<String>
    ) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            let shown = FileReferences.join(display, relative)
            documents.append(Document(relative: relative, display: shown, refusal: StubFileError.Issue(
                file: shown, line: nil, path: nil,
                message: "cannot list the directory: \((error as NSError).localizedDescription)"
            )))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = directory + "/" + name
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let isStubFile = !isDirectory.boolValue && fileExtensions.contains((name as NSString).pathExtension.lowercased())
            guard isDirectory.boolValue || isStubFile else { continue }
            let resolved = FileReferences.resolvingSymlinks(path)
            guard FileReferences.path(resolved, isInside: root) else {
                let shown = FileReferences.join(display, relativePath)
                documents.append(Document(relative: relativePath, display: shown, refusal: StubFileError.Issue(
                    file: shown, line: nil, path: nil,
                    message: "symlink resolves outside \(display) (to \(resolved)); expected stub files inside it"
                )))
                continue
            }
            if isStubFile {
                documents.append(Document(relative: relativePath, display: FileReferences.join(display, relativePath)))
            } else if visited.insert(resolved).inserted {
                collectFiles(
                    in: path, relative: relativePath, root: root, display: display,
                    into: &documents, visited: &visited
                )
            }
        }
    }

    // MARK: - Documents

    /// The document's node tree, or `nil` with a syntax issue reported. JSON is checked with
    /// `JSONSerialization` first, so that what YAML would accept but JSON does not is refused.
    private static func compose(_ text: String, format: Format, parser: inout StubFileParser) -> Node?? {
        switch composeDocument(text, format: format) {
        case .success(let root):
            return .some(root)
        case .failure(let problem):
            parser.report(line: problem.line, path: "", problem.message)
            return nil
        }
    }

    /// A syntax problem in a document: its line and what is wrong.
    struct SyntaxProblem: Error {
        let line: Int
        let message: String
    }

    /// The document's node tree (`nil` for an empty document), or the syntax problem that stops
    /// it being read; shared with the WireMock loader so both report syntax the same way.
    static func composeDocument(_ text: String, format: Format) -> Result<Node?, SyntaxProblem> {
        if format == .json, let (line, message) = jsonSyntaxError(text) {
            return .failure(SyntaxProblem(line: line, message: "invalid JSON: \(message)"))
        }
        do {
            let root = try Yams.compose(yaml: text)
            // Every node of a document without aliases takes at least a byte, so this limit
            // refuses only documents that aliases multiply (a YAML "billion laughs").
            let limit = max(maximumExpandedNodes, text.utf8.count)
            if let root, root.hasMoreNodes(than: limit) {
                return .failure(SyntaxProblem(line: 1, message: """
                    aliases expand the document to more than \(limit) nodes; expected at most \(limit), \
                    the larger of \(maximumExpandedNodes) and its size in bytes
                    """))
            }
            return .success(root)
        } catch {
            let (line, message) = yamlSyntaxError(error, text: text)
            return .failure(SyntaxProblem(line: line, message: format == .json ? "invalid JSON: \(message)" : "invalid YAML: \(message)"))
        }
    }

    private static func jsonSyntaxError(_ text: String) -> (line: Int, message: String)? {
        let data = Data(text.utf8)
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch {
            let nsError = error as NSError
            var message = (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
            var offset = nsError.userInfo["NSJSONSerializationErrorIndex"] as? Int
            if let range = message.range(of: #" around (line \d+, column \d+|character \d+)\.?$"#, options: .regularExpression) {
                let location = message[range]
                if let number = location.range(of: #"character \d+"#, options: .regularExpression) {
                    offset = Int(location[number].dropFirst("character ".count))
                } else if let lineRange = location.range(of: #"line \d+"#, options: .regularExpression),
                          let line = Int(location[lineRange].dropFirst("line ".count))
                {
                    message.removeSubrange(range)
                    return (line, cleaned(message))
                }
                message.removeSubrange(range)
            }
            // Foundation reports a byte offset; without one the problem is at the end.
            let bytes = [UInt8](data)
            let end = offset.map { min(max($0, 0), bytes.count) }
                ?? (bytes.lastIndex { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }.map { $0 + 1 } ?? 0)
            let line = bytes[..<end].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            return (line, cleaned(message))
        }
    }

    /// Foundation's sentence as a message clause: no capital, no full stop.
    private static func cleaned(_ message: String) -> String {
        var text = message.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".") { text.removeLast() }
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    private static func yamlSyntaxError(_ error: any Error, text: String) -> (line: Int, message: String) {
        guard let yamlError = error as? YamlError else { return (1, "\(error)") }
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            let detail = context.map { " (\($0.text) on line \($0.mark.line))" } ?? ""
            return (mark.line, problem + detail)
        case .reader(let problem, let offset, _, _):
            let line = offset.map { text.utf8.prefix($0).reduce(1) { $1 == 0x0A ? $0 + 1 : $0 } } ?? 1
            return (line, problem)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return (context.mark.line, "duplicate key \(keys); expected each key once in a mapping")
        default:
            return (1, "\(yamlError)")
        }
    }

    /// The directory part of a file as the caller named it (`.` for a bare file name).
    private static func parentDisplay(of file: String) -> String {
        let parent = (file as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    private static func defaultNamePrefix(for fileName: String) -> String {
        (fileName as NSString).deletingPathExtension
    }

    /// One issue for each stub whose name an earlier stub of the same load already has.
    static func duplicateNameIssues(_ stubs: [(file: String, stub: ParsedStub)]) -> [StubFileError.Issue] {
        var firstUse: [String: (file: String, line: Int)] = [:]
        var issues: [StubFileError.Issue] = []
        for (file, stub) in stubs {
            guard let first = firstUse[stub.name] else {
                firstUse[stub.name] = (file, stub.line)
                continue
            }
            let hint = stub.hasExplicitName ? "" : " (its default name); give it a 'name'"
            issues.append(StubFileError.Issue(
                file: file, line: stub.line, path: stub.hasExplicitName ? stub.path + ".name" : stub.path,
                message: "duplicate stub name '\(stub.name)'\(hint); already used by the stub at \(first.file):\(first.line)"
            ))
        }
        return issues
    }
}
