import Foundation
import XCTest

/// `docs/ARCHITECTURE.md` names the code: every backticked type (`StubResponder`), member
/// (`StubResponder.decide(_:repeatable:)`, with its argument labels), source file
/// (`HTTP2/HTTP2Stream.swift`) and folder (`UnderstudyServer/TLS/`), and the CamelCase names and
/// `Type.member(...)` calls of its diagrams, must still be declared under `Sources/`; and every
/// library module must be named. The declarations are found at grep level (`struct Name`,
/// `func name(label ...`), which is enough to notice a rename.
final class ArchitectureDocTests: XCTestCase {
    static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryNameInArchitectureMDIsStillInTheCode() throws {
        let document = try String(contentsOf: Self.package.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let code = try SourceDeclarations(
            sources: Self.package.appendingPathComponent("Sources"), tests: Self.package.appendingPathComponent("Tests")
        )
        let problems = ArchitectureDocCheck.problems(in: document, file: "docs/ARCHITECTURE.md", against: code)
        XCTAssertTrue(problems.isEmpty, "\n" + problems.joined(separator: "\n"))
    }

    // MARK: - The check itself, on a small tree

    private func sampleCode() -> SourceDeclarations {
        SourceDeclarations(modules: ["Core", "CLib"], libraryModules: ["Core"], files: [
            "Core/Responder/Responder.swift": """
                package struct Responder: Sendable {
                    package func decide(_ request: Request, repeatable: inout Match?) -> Decision { fatalError() }
                    package func answer<T>(_ pending: T, then: @escaping (T) -> Void = { _ in }) async -> Answer { fatalError() }
                    package func answer(_ request: Request) async -> Answer { fatalError() }
                    var cache: Cache
                    enum Kind { case stub, unmatched }
                }
                """,
            "Core/Journal.swift": """
                public final class Journal {
                    public func change(after version: Int) async {}
                }
                extension Responder {
                    func close(_ id: Int?, request: Request, startTime: Date) {}
                }
                """,
        ], folders: ["Core/Responder", "Core/Dashboard"])
    }

    func testNamesThatExistPass() {
        let document = """
            # Title
            `Core` answers through `Responder.decide(_:repeatable:)`, then `Responder.answer(_:)`,
            `Responder.close(_:request:startTime:)` (an extension elsewhere), `Journal.change(after:)`,
            `Responder.Kind`, `Responder.cache`, in `Responder/Responder.swift`, `Core/Responder/` and `Responder/`;
            `Core/Dashboard/` and `Dashboard/` hold no Swift (a page and its script, say).
            ```
            client ─▶ Responder.decide(_:repeatable:) ─▶ Journal
            ```
            Prose such as `GET`, `h2`, `--log` and `/__admin/` is not a name.
            """
        XCTAssertEqual(ArchitectureDocCheck.problems(in: document, file: "A.md", against: sampleCode()), [])
    }

    func testAMissingTypeMemberLabelFileOrModuleIsReportedWithItsLine() {
        let document = """
            # Title
            `Responder.decide(_:)` decides.
            `Responder.respond(to:)` answers; `Gone` is gone.
            It lives in `Kore/Answering/` and `Responder/Old.swift`.
            ```
            bytes ─▶ MissingHandler ─▶ Responder.answer(_:)
            ```
            """
        XCTAssertEqual(ArchitectureDocCheck.problems(in: document, file: "A.md", against: sampleCode()), [
            "A.md:2: `Responder.decide(_:)`: Responder has no member decide(_:); found decide(_:repeatable:)",
            "A.md:3: `Responder.respond(to:)`: Responder has no member respond(to:)",
            "A.md:3: `Gone`: no type, module or folder named Gone in Sources/",
            "A.md:4: `Kore/Answering/`: no folder Sources/Kore/Answering/",
            "A.md:4: `Responder/Old.swift`: no file Sources/**/Responder/Old.swift",
            "A.md:6: `MissingHandler`: no type, module or folder named MissingHandler in Sources/",
            "A.md: the library module Core is never named",
        ])
    }
}

/// What `Sources/` declares, found at grep level.
struct SourceDeclarations {
    /// Every folder directly under `Sources/`.
    let modules: Set<String>
    /// The Swift modules among them (those holding `.swift` files), which the document must name.
    let libraryModules: Set<String>
    /// File paths relative to `Sources/`, and their text.
    let files: [String: String]
    /// Every folder below `Sources/` (`UnderstudyServer/Admin`), those holding only resources
    /// such as the dashboard's HTML, CSS and JavaScript included.
    let folders: Set<String>
    /// Type names (the last component) declared by class, struct, enum, protocol, actor or typealias.
    let types: Set<String>
    /// For each type name, the files that declare or extend it.
    let filesByType: [String: [String]]

    init(modules: Set<String>, libraryModules: Set<String>, files: [String: String], folders: Set<String> = []) {
        self.modules = modules
        self.libraryModules = libraryModules
        self.files = files
        self.folders = folders
        var types = Set<String>()
        var filesByType: [String: [String]] = [:]
        let declaration = try! NSRegularExpression(
            pattern: #"\b(class|struct|enum|protocol|actor|typealias|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)"#
        )
        for (path, text) in files.sorted(by: { $0.key < $1.key }) {
            let range = NSRange(text.startIndex..., in: text)
            for match in declaration.matches(in: text, range: range) {
                let keyword = String(text[Range(match.range(at: 1), in: text)!])
                let fullName = String(text[Range(match.range(at: 2), in: text)!])
                let name = String(fullName.split(separator: ".").last ?? Substring(fullName))
                if keyword != "extension" { types.insert(name) }
                if filesByType[name]?.last != path { filesByType[name, default: []].append(path) }
            }
        }
        self.types = types
        self.filesByType = filesByType
    }

    /// Reads every `.swift` file under `sources`, and those under `tests` (as `Tests/...`), whose
    /// test classes the document may name too.
    init(sources: URL, tests: URL) throws {
        let manager = FileManager.default
        let folders = try manager.contentsOfDirectory(atPath: sources.path).filter { name in
            var isDirectory: ObjCBool = false
            return manager.fileExists(atPath: sources.appendingPathComponent(name).path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        var files: [String: String] = [:]
        var libraryModules = Set<String>()
        var subfolders = Set<String>()
        for folder in folders {
            guard let walker = manager.enumerator(atPath: sources.appendingPathComponent(folder).path) else { continue }
            for case let relative as String in walker {
                let path = folder + "/" + relative
                if walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory { subfolders.insert(path) }
                guard relative.hasSuffix(".swift") else { continue }
                files[path] = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
                libraryModules.insert(folder)
            }
        }
        for case let relative as String in manager.enumerator(atPath: tests.path) ?? NSEnumerator() where relative.hasSuffix(".swift") {
            files["Tests/" + relative] = try String(contentsOf: tests.appendingPathComponent(relative), encoding: .utf8)
        }
        self.init(modules: Set(folders), libraryModules: libraryModules, files: files, folders: subfolders)
    }

    /// The argument-label lists of the members called `name` in the files declaring or extending
    /// `type`; `[]` for a property, case or nested type of that name. Empty when there is none.
    func members(named name: String, of type: String) -> [[String]] {
        var found: [[String]] = []
        for path in filesByType[type] ?? [] {
            guard let text = files[path] else { continue }
            found += Self.labelLists(ofFunctionsNamed: name, in: text)
            let escaped = NSRegularExpression.escapedPattern(for: name)
            let other = try! NSRegularExpression(
                pattern: #"\b(var|let|case|class|struct|enum|protocol|actor|typealias)\s+(`?)"# + escaped + #"\2\b"#
            )
            if other.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil { found.append([]) }
        }
        return found
    }

    /// Whether a function called `name` with these labels is declared anywhere.
    func hasFunction(named name: String, labels: [String]) -> Bool {
        files.values.contains { Self.labelLists(ofFunctionsNamed: name, in: $0).contains(labels) }
    }

    /// The argument labels of each `func name(...)` (or `init(...)` for `init`) in `text`.
    static func labelLists(ofFunctionsNamed name: String, in text: String) -> [[String]] {
        let escaped = NSRegularExpression.escapedPattern(for: name)
        let head = name == "init" ? #"\binit[?!]?\s*(<[^>]*>)?\s*\("# : #"\bfunc\s+"# + escaped + #"\s*(<[^>]*>)?\s*\("#
        let regex = try! NSRegularExpression(pattern: head)
        var lists: [[String]] = []
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let open = Range(match.range, in: text)!.upperBound
            var depth = 1
            var index = open
            var parameters: [String] = []
            var current = ""
            var previous: Character = " "
            while index < text.endIndex, depth > 0 {
                let character = text[index]
                switch character {
                case "(", "[", "<": depth += 1
                case ">" where previous == "-": break  // a function type's arrow
                case ")", "]", ">": depth -= 1
                default: break
                }
                previous = character
                if depth == 1, character == "," {
                    parameters.append(current)
                    current = ""
                } else if depth > 0 {
                    current.append(character)
                }
                index = text.index(after: index)
            }
            parameters.append(current)
            lists.append(parameters.compactMap { parameter in
                guard let colon = parameter.firstIndex(of: ":") else { return nil }
                let words = parameter[..<colon].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" })
                    .filter { !$0.hasPrefix("@") }
                return words.first.map(String.init)
            })
        }
        return lists
    }
}

/// Finds the names a document gives that the code no longer has.
enum ArchitectureDocCheck {
    /// Names from outside Understudy that the document may use.
    static let external: Set<String> = [
        "NIOHTTP2Handler", "NIOLoopBound", "HTTPRequestDecoder", "NIOSSLServerHandler", "StreamClosedEvent", "IdleStateHandler",
        "IdleStateEvent", "HTTPServerPipelineHandler", "NIOHTTP1", "NIOHTTP2", "NIOCore", "NIOPosix", "NIOSSL",
        "SwiftNIO", "DequeModule", "Yams", "Logger", "LogHandler", "URLSession", "URLProtocol",
        "URLSessionConfiguration", "URLCache", "URLError", "AsyncHTTPClient", "FoundationNetworking",
        "Host",  // the header
    ]

    static func problems(in document: String, file: String, against code: SourceDeclarations) -> [String] {
        var problems: [String] = []
        var inFence = false
        for (offset, line) in document.components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            let names = inFence ? diagramNames(in: line) : codeSpans(in: line)
            for name in names {
                if let problem = problem(with: name, code) { problems.append("\(file):\(offset + 1): `\(name)`: \(problem)") }
            }
        }
        for module in code.libraryModules.sorted() where document.range(of: #"\b"# + module + #"\b"#, options: .regularExpression) == nil {
            problems.append("\(file): the library module \(module) is never named")
        }
        return problems
    }

    /// The text of each inline code span.
    static func codeSpans(in line: String) -> [String] {
        let parts = line.components(separatedBy: "`")
        return stride(from: 1, to: parts.count - 1, by: 2).map { parts[$0] }
    }

    /// In a diagram, names that cannot be prose: CamelCase with two capitals or more, or `Type.member`.
    static func diagramNames(in line: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"\b[A-Z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*(\([A-Za-z_:]*\))?"#)
        return regex.matches(in: line, range: NSRange(line.startIndex..., in: line)).compactMap { match in
            let name = String(line[Range(match.range, in: line)!])
            let head = name.prefix { $0 != "." && $0 != "(" }
            let capitals = head.filter(\.isUppercase).count
            let hasLower = head.contains(where: \.isLowercase)
            return (name.contains(".") || (capitals >= 2 && hasLower)) ? name : nil
        }
    }

    /// Why `name` is not in the code, or nil when it is (or is not a name at all).
    static func problem(with name: String, _ code: SourceDeclarations) -> String? {
        if name.hasSuffix(".swift") {
            guard name.range(of: #"^[A-Za-z0-9_+/]+\.swift$"#, options: .regularExpression) != nil else { return nil }
            let found = code.files.keys.contains { $0 == name || $0.hasSuffix("/" + name) }
            return found ? nil : "no file Sources/**/\(name)"
        }
        if name.hasSuffix("/"), name.range(of: #"^[A-Za-z0-9_]+(/[A-Za-z0-9_]+)*/$"#, options: .regularExpression) != nil {
            let folder = name.hasPrefix("Sources/") ? String(name.dropFirst("Sources/".count)) : name
            let found = code.modules.contains(String(folder.dropLast()))
                || code.folders.contains { $0 + "/" == folder || ($0 + "/").hasSuffix("/" + folder) }
                || code.files.keys.contains { $0.hasPrefix(folder) || $0.contains("/" + folder) }
            return found ? nil : "no folder Sources/\(folder)"
        }
        // Type, Type.member, Type.Nested.member, Type.member(labels:), or a bare function(labels:).
        guard let match = name.range(of: #"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\([A-Za-z_:]*\))?$"#, options: .regularExpression),
              match == name.startIndex..<name.endIndex
        else { return nil }
        let labels: [String]?
        let path: [String]
        if let open = name.firstIndex(of: "(") {
            labels = name[name.index(after: open)..<name.index(before: name.endIndex)].split(separator: ":").map(String.init)
            path = name[..<open].split(separator: ".").map(String.init)
        } else {
            labels = nil
            path = name.split(separator: ".").map(String.init)
        }
        let types = path.prefix { $0.first?.isUppercase == true }
        if types.isEmpty {
            // A bare member: only a call with labels says it is one.
            guard let labels, path.count == 1 else { return nil }
            return code.hasFunction(named: path[0], labels: labels) ? nil : "no function \(path[0])(\(labels.map { $0 + ":" }.joined())) in Sources/"
        }
        if types.count == 1, path.count == 1 {
            let type = types[0]
            guard type.contains(where: \.isLowercase) else { return nil }  // GET, HEADERS: not a type
            if code.types.contains(type) || code.modules.contains(type) || external.contains(type) { return nil }
            return "no type, module or folder named \(type) in Sources/"
        }
        for type in types where !code.types.contains(type) && !external.contains(type) && !code.modules.contains(type) {
            return "no type named \(type) in Sources/"
        }
        guard types.count < path.count, let owner = types.last, !external.contains(owner) else { return nil }
        let member = path[types.count]
        let found = code.members(named: member, of: owner)
        let shown = labels.map { "\(member)(\($0.map { $0 + ":" }.joined()))" } ?? member
        if found.isEmpty { return "\(owner) has no member \(shown)" }
        if let labels, !found.contains(labels) {
            let candidates = found.filter { !$0.isEmpty }.map { "\(member)(\($0.map { $0 + ":" }.joined()))" }
            return "\(owner) has no member \(shown)" + (candidates.isEmpty ? "" : "; found " + candidates.joined(separator: ", "))
        }
        return nil
    }
}
