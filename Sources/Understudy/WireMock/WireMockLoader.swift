import Foundation
internal import Yams

/// Reads a WireMock directory (`mappings/` of JSON mapping files, `__files/` of bodies) into
/// ``Stub`` values that answer as WireMock 2.35.1 would.
///
/// Each file under `mappings/` (recursively, `*.json`, hidden names skipped) holds one mapping
/// or `{"mappings": [...]}`. Files are read in byte-wise order of their paths and mappings in
/// file order; among equal priorities the later one wins, as the newest does in WireMock (which
/// reads files in directory order).
///
/// Supported, with WireMock's semantics:
/// - mapping: `id`/`uuid`, its identity (the stub's name when there is no `name`); `name`, a
///   label two mappings may share (both answer; the second stub's name gets ` #2`); `priority`
///   (1 is the highest; mapped to Understudy's as `5 - priority`, so WireMock's default 5 is 0);
/// - `request`: `method` (or `ANY`), one of `url`, `urlPath`, `urlPattern`, `urlPathPattern`,
///   `urlPathTemplate` (WireMock 3's, with `pathParameters`); `scheme`, `host`, `port`;
///   `headers`, `queryParameters` and `cookies` with `equalTo` (and `caseInsensitive`),
///   `contains`, `matches`, `doesNotMatch`, `absent`, `and`, `or`, `hasExactly`, `includes`;
///   `basicAuthCredentials`; `bodyPatterns` with `equalTo`, `contains`, `equalToJson` (and its
///   `ignoreArrayOrder`, `ignoreExtraElements`), `matchesJsonPath`;
/// - `response`: `status`, `body`, `jsonBody`, `base64Body`, `bodyFileName`, `headers`,
///   `fixedDelayMilliseconds`, `delayDistribution` (uniform, lognormal), `chunkedDribbleDelay`,
///   `fault` (`EMPTY_RESPONSE`, `CONNECTION_RESET_BY_PEER`, `MALFORMED_RESPONSE_CHUNK`,
///   `RANDOM_DATA_THEN_CLOSE`), `proxyBaseUrl` with `additionalProxyRequestHeaders`.
///
/// Anything else is an issue naming the file, line and JSON path, never ignored:
/// ```
/// wiremock/mappings/a.json:7: request.multipartPatterns: unsupported field; supported: method, url, ...
/// ```
public enum WireMockLoader {
    /// Reads every mapping file of a WireMock directory.
    /// - Parameters:
    ///   - directory: the directory holding `mappings/` and `__files/`; issues name
    ///     files by its `relativePath` (`wiremock/mappings/a.json`).
    ///   - templatesEveryResponse: whether every response is a template (WireMock's
    ///     `--global-response-templating`), not only those whose `transformers` ask for it.
    /// - Throws: ``StubFileError`` with every issue found.
    public static func load(from directory: URL, templatesEveryResponse: Bool = false) throws -> StubFileLoader.LoadedStubs {
        let display = directory.relativePath
        let absolute = FileReferences.normalize(directory.path) ?? directory.path
        let root = FileReferences.resolvingSymlinks(absolute)
        let mappings = FileReferences.join(root, "mappings")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: mappings, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StubFileError(issues: [StubFileError.Issue(
                file: display, line: nil, path: nil,
                message: "no mappings directory; expected a WireMock directory holding mappings/ (and __files/ for bodyFileName)"
            )])
        }
        var documents: [(relative: String, refusal: String?)] = []
        var visited: Set<String> = [FileReferences.resolvingSymlinks(mappings)]
        collectFiles(in: mappings, relative: "mappings", root: root, into: &documents, visited: &visited)
        documents.sort { Array($0.relative.utf8).lexicographicallyPrecedes(Array($1.relative.utf8)) }

        // The root as named, not resolved: a `__files` that is a symlink to elsewhere holds
        // nothing a mapping may use.
        let bodyFiles = bodyFileReferences(root: root, display: display)

        var perFile: [[StubFileError.Issue]] = []
        var parsed: [(file: String, stub: ParsedStub)] = []
        for document in documents {
            let shown = FileReferences.join(display, document.relative)
            if let refusal = document.refusal {
                perFile.append([StubFileError.Issue(file: shown, line: nil, path: nil, message: refusal)])
                continue
            }
            let name = ((document.relative as NSString).lastPathComponent as NSString).deletingPathExtension
            var parser = WireMockParser(file: shown, defaultNamePrefix: name, bodyFiles: bodyFiles, templatesEveryResponse: templatesEveryResponse)
            let stubs = parse(FileReferences.join(root, document.relative), parser: &parser)
            perFile.append(parser.issues)
            parsed += stubs.map { (shown, $0) }
        }
        let duplicates = duplicateIDIssues(parsed)
        var issues: [StubFileError.Issue] = []
        for (index, document) in documents.enumerated() {
            let shown = FileReferences.join(display, document.relative)
            issues += (perFile[index] + duplicates.filter { $0.file == shown }).enumerated()
                .sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
                .map(\.element)
        }
        guard issues.isEmpty else { throw StubFileError(issues: issues) }
        return StubFileLoader.LoadedStubs(
            stubs: parsed.compactMap(\.stub.stub), files: documents.map { FileReferences.join(display, $0.relative) }
        )
    }

    /// A mapping is known by its id, not its name (two mappings of one name both answer, as in
    /// WireMock): two files giving one id would leave one of them unreachable, so that is an issue.
    static func duplicateIDIssues(_ parsed: [(file: String, stub: ParsedStub)]) -> [StubFileError.Issue] {
        var firstUse: [UUID: (file: String, line: Int)] = [:]
        var issues: [StubFileError.Issue] = []
        for (file, parsedStub) in parsed {
            guard let id = parsedStub.givenID else { continue }
            guard let first = firstUse[id] else {
                firstUse[id] = (file, parsedStub.line)
                continue
            }
            issues.append(StubFileError.Issue(
                file: file, line: parsedStub.line, path: parsedStub.path.isEmpty ? "id" : parsedStub.path + ".id",
                message: "duplicate mapping id '\(id.uuidString.lowercased())'; already used by the mapping at \(first.file):\(first.line); expected each mapping's own id (or none)"
            ))
        }
        return issues
    }

    /// How `bodyFileName` resolves: inside the root's `__files/`, as named, not resolved (a
    /// `__files` that is a symlink to elsewhere holds nothing a mapping may use).
    static func bodyFileReferences(root: String, display: String) -> FileReferences {
        let filesRoot = FileReferences.join(root, "__files")
        var bodyFiles = FileReferences(root: filesRoot, rootDisplay: FileReferences.join(display, "__files"), directory: filesRoot)
        bodyFiles.relativeTo = "__files"
        return bodyFiles
    }

    /// One mapping as the admin API receives it (`POST /__admin/mappings`), read by the same
    /// parser as mapping files; issues name the JSON path and `request body`.
    /// - Parameters:
    ///   - text: the mapping as JSON.
    ///   - root: the WireMock root whose `__files/` a `bodyFileName` names; `nil` when there is none.
    ///   - templatesEveryResponse: whether every response is a template.
    /// - Throws: ``StubFileError`` with every issue found.
    package static func mapping(parsing text: String, root: URL?, templatesEveryResponse: Bool = false) throws -> Stub {
        let display = "request body"
        let bodyFiles = root.map { bodyFileReferences(root: FileReferences.resolvingSymlinks(FileReferences.normalize($0.path) ?? $0.path), display: $0.relativePath) }
        var parser = WireMockParser(file: display, defaultNamePrefix: "posted", bodyFiles: bodyFiles, templatesEveryResponse: templatesEveryResponse, fromFiles: false)
        let parsed: ParsedStub?
        switch StubFileLoader.composeDocument(text, format: .json) {
        case .success(let node?):
            if case .mapping(let object) = node, object["mappings"] != nil {
                parser.report(node, "mappings", "one mapping expected here; post {\"mappings\": [...]} to /__admin/mappings/import")
                parsed = nil
            } else {
                parsed = parser.parseMapping(node, path: "", index: 0)
            }
        case .success(nil):
            parser.report(line: 1, path: "", "the body is empty; expected a mapping object")
            parsed = nil
        case .failure(let problem):
            parser.report(line: problem.line, path: "", problem.message)
            parsed = nil
        }
        guard parser.issues.isEmpty, var stub = parsed?.stub else { throw StubFileError(issues: parser.issues) }
        // Without a name, a posted mapping goes by its id, as WireMock's admin API knows it.
        if case .object(let members)? = stub.wireMock?.json, members["name"] == nil {
            stub.name = stub.wireMockID.uuidString.lowercased()
        }
        return stub
    }

    /// Mappings as `POST /__admin/mappings/import` receives them: `{"mappings": [...]}`, all
    /// read or none.
    /// - Throws: ``StubFileError`` with every issue found, paths like `mappings[2].request`.
    package static func mappings(parsing text: String, root: URL?, templatesEveryResponse: Bool = false) throws -> [Stub] {
        let bodyFiles = root.map { bodyFileReferences(root: FileReferences.resolvingSymlinks(FileReferences.normalize($0.path) ?? $0.path), display: $0.relativePath) }
        var parser = WireMockParser(file: "request body", defaultNamePrefix: "imported", bodyFiles: bodyFiles, templatesEveryResponse: templatesEveryResponse, fromFiles: false)
        var parsed: [ParsedStub] = []
        switch StubFileLoader.composeDocument(text, format: .json) {
        case .success(let root): parsed = parser.parseDocument(root)
        case .failure(let problem): parser.report(line: problem.line, path: "", problem.message)
        }
        guard parser.issues.isEmpty else { throw StubFileError(issues: parser.issues) }
        return parsed.compactMap(\.stub).map { stub in
            var stub = stub
            if case .object(let members)? = stub.wireMock?.json, members["name"] == nil {
                stub.name = stub.wireMockID.uuidString.lowercased()
            }
            return stub
        }
    }

    /// A bare WireMock request pattern, as `POST /__admin/requests/count` and `/find` receive it.
    /// - Throws: ``StubFileError`` naming the JSON path of each issue.
    package static func requestPattern(parsing text: String) throws -> RequestMatcher {
        var parser = WireMockParser(file: "request body", defaultNamePrefix: "pattern", bodyFiles: nil)
        var matcher: RequestMatcher?
        switch StubFileLoader.composeDocument(text, format: .json) {
        case .success(let node?): matcher = parser.parseRequest(node, path: "")
        case .success(nil): parser.report(line: 1, path: "", "the body is empty; expected a request pattern")
        case .failure(let problem): parser.report(line: problem.line, path: "", problem.message)
        }
        guard parser.issues.isEmpty, let matcher else { throw StubFileError(issues: parser.issues) }
        return matcher
    }

    private static func parse(_ path: String, parser: inout WireMockParser) -> [ParsedStub] {
        guard let data = FileManager.default.contents(atPath: path) else {
            parser.report(line: 1, path: "", "cannot read the file")
            return []
        }
        guard let text = String(data: data, encoding: .utf8) else {
            parser.report(line: 1, path: "", "the file is not UTF-8 text")
            return []
        }
        switch StubFileLoader.composeDocument(text, format: .json) {
        case .success(let root):
            return parser.parseDocument(root)
        case .failure(let problem):
            parser.report(line: problem.line, path: "", problem.message)
            return []
        }
    }

    /// Collects `*.json` files below `directory` by their path relative to the root; entries
    /// that a symlink takes outside the root are kept as refusals. Each directory is read once.
    private static func collectFiles(
        in directory: String, relative: String, root: String,
        into documents: inout [(relative: String, refusal: String?)], visited: inout Set<String>
    ) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            documents.append((relative, "cannot list the directory: \((error as NSError).localizedDescription)"))
            return
        }
        for name in names where !name.hasPrefix(".") {
            let path = directory + "/" + name
            let relativePath = relative + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            // WireMock reads files whose names end in `.json`, exactly.
            guard isDirectory.boolValue || name.hasSuffix(".json") else { continue }
            let resolved = FileReferences.resolvingSymlinks(path)
            guard FileReferences.path(resolved, isInside: root) else {
                documents.append((relativePath, "symlink resolves outside the WireMock directory (to \(resolved)); expected mapping files inside it"))
                continue
            }
            if !isDirectory.boolValue {
                documents.append((relativePath, nil))
            } else if visited.insert(resolved).inserted {
                collectFiles(in: path, relative: relativePath, root: root, into: &documents, visited: &visited)
            }
        }
    }
}
