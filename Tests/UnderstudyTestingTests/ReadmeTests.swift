import Foundation
import Testing

/// The README's quick starts, and the DocC "Getting started" article's, are the code the test
/// suites compile and run.
@Suite struct ReadmeTests {
    static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift code blocks of the README (or another Markdown file of the package), in order.
    static func swiftBlocks(of file: String = "README.md") throws -> [String] {
        let readme = try String(contentsOf: package.appendingPathComponent(file), encoding: .utf8)
        return readme.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    /// The block's code from its first line after the imports, which the test file must hold verbatim.
    static func body(of block: String) -> String {
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        let start = lines.firstIndex { line in
            !(line.hasPrefix("import ") || line.hasPrefix("#") || line.isEmpty)
        } ?? lines.startIndex
        return lines[start...].joined(separator: "\n")
    }

    @Test(arguments: ["README.md", "Sources/Understudy/Understudy.docc/GettingStarted.md"], [
        ("import Testing", "Tests/UnderstudyTestingTests/ReadmeQuickStartTests.swift"),
        ("import XCTest", "Tests/UnderstudyXCTestTests/ReadmeQuickStartTests.swift"),
    ])
    func theQuickStartIsTheTestedCode(in document: String, importing: (String, String)) throws {
        let (library, testFile) = importing
        let block = try #require(try Self.swiftBlocks(of: document).first { $0.contains("\n\(library)\n") && $0.contains("AvatarTests") })
        let tested = try String(contentsOf: Self.package.appendingPathComponent(testFile), encoding: .utf8)
        #expect(tested.contains(Self.body(of: block)), "\(document)'s quick start for \(library) differs from \(testFile)")
        // Every import the README shows is one the tested file makes.
        let testedLines = Set(tested.split(separator: "\n"))
        for line in block.split(separator: "\n") where line.hasPrefix("import ") {
            #expect(testedLines.contains(line), "\(testFile) lacks \(line)")
        }
    }

    @Test func swiftTestingComesFirst() throws {
        let blocks = try Self.swiftBlocks()
        let testing = try #require(blocks.firstIndex { $0.contains("\nimport Testing\n") })
        let xctest = try #require(blocks.firstIndex { $0.contains("\nimport XCTest\n") })
        #expect(testing < xctest)
    }
}
