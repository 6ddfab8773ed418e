import Foundation
@testable import Understudy
import XCTest

/// Handlebars blocks and helpers in process: what renders (WireMock 2.35.1's answers for the
/// same templates are in `WireMockHandlebarsDifferentialTests`) and every mistake refused at
/// load time with a message naming it.
final class WireMockHandlebarsTests: XCTestCase {
    private func render(_ template: String, _ url: String, headers: HeaderFields = [:], body: String? = nil) throws -> String {
        let request = StubRequest(method: body == nil ? "GET" : "POST", url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) })
        return try ResponseTemplate(parsing: template).render(for: request)
    }

    func testBlocksHelpersAndValuesRenderAsWireMocksHandlebars() throws {
        XCTAssertEqual(try render("{{#if request.query.a}}yes{{else}}no{{/if}}|{{#unless request.query.a}}none{{/unless}}", "http://h/p"), "no|none")
        XCTAssertEqual(try render("{{#each request.query.x}}{{@index}}:{{this}}{{#unless @last}},{{/unless}}{{/each}}", "http://h/p?x=a&x=%3C"), "0:a,1:&lt;")
        XCTAssertEqual(try render("{{{request.query.x}}} {{request.query.x.[1]}}", "http://h/p?x=a&x=b"), "[a, b] b")
        XCTAssertEqual(try render("{{#with request.headers}}{{x-id}}{{/with}}", "http://h/p", headers: ["X-Id": "7"]), "7")
        XCTAssertEqual(try render("{{jsonPath request.body '$.n'}} {{jsonPath request.body '$.f'}} {{{jsonPath request.body '$.o'}}} {{jsonPath request.body '$.l'}}", "http://h/p",
                                  body: #"{"n": 3, "f": 2.5, "o": {"k": "v"}, "l": [1, "a"]}"#), "3 2.5 {\n  \"k\" : \"v\"\n} [1,&quot;a&quot;]")
        XCTAssertEqual(try render("{{#if (and (gt (jsonPath request.body '$.n') 2) (not (eq (jsonPath request.body '$.k') 'x')))}}big{{/if}}", "http://h/p",
                                  body: #"{"n": 3, "k": "y"}"#), "big")
        XCTAssertEqual(try render("{{ne request.query.a.[0] 'x'}} {{neq 1 1}}", "http://h/p?a=x"), "false false")
        XCTAssertEqual(try render("images/{{#if (eq request.query.size.[0] 'l')}}large{{else}}small{{/if}}.png", "http://h/p?size=l"), "images/large.png")
        XCTAssertEqual(try render("{{! a comment }}{{request.query.nope}}|{{#each request.query.nope}}x{{else}}empty{{/each}}", "http://h/p"), "|empty")
    }

    func testMistakesAreRefusedAtLoadNamingThem() {
        let cases: [(String, String)] = [
            ("{{#if a}}", "unknown template helper 'a'; supported: \(ResponseTemplate.helpers)"),
            ("{{#if request.query.a}}x", "'{{#if}}' is never closed; expected '{{/if}}' in template '{{#if request.query.a}}x'"),
            ("{{#if request.query.a}}x{{/each}}", "'{{/each}}' closes '{{#if}}'; expected '{{/if}}'"),
            ("{{else}}", "'{{else}}' outside a block, or twice in one, in template '{{else}}'"),
            ("{{#each request.query.a}}{{@size}}{{/each}}", "unknown template variable '@size'; expected @index, @first, @last or @key"),
            ("{{eq request.query.a}}", "'eq' takes 2 argument(s), found 1 in '{{eq request.query.a}}'"),
            ("{{jsonPath request.body 'a.b'}}", "jsonPath in '{{jsonPath request.body 'a.b'}}': JSONPath 'a.b': found 'a' at position 1; expected '$' to start the path, as in $.images[0]"),
            ("{{#each request.query.a}}{{this}}", "'{{#each}}' is never closed; expected '{{/each}}' in template '{{#each request.query.a}}{{this}}'"),
            ("{{this}}", "unknown template helper 'this'; supported: \(ResponseTemplate.helpers)"),
        ]
        for (template, message) in cases {
            XCTAssertThrowsError(try ResponseTemplate(parsing: template), template) { error in
                XCTAssertEqual((error as? ResponseTemplate.ParseError)?.message, message, template)
            }
        }
    }
}
