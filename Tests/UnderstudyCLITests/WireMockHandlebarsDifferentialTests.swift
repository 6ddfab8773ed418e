import Foundation
import XCTest

/// Handlebars blocks and helpers (`#if`/`else`, `#unless`, `#each` with `@index`/`@first`/`@last`,
/// `#with`, `eq`, `gt`, `gte`, `lt`, `lte`, `and`, `or`, `not` as subexpressions, `.[n]`,
/// `jsonPath`) served by WireMock 2.35.1 itself and by `understudy serve --wiremock` from one
/// root: curl gets the same status and body bytes (HTML escaping, missing values, numbers,
/// JSON arrays and objects as WireMock writes them).
///
/// Left out on purpose: comparisons of a request value itself (`eq request.query.a '1'`), which
/// WireMock 2.35.1 makes against its list object and never finds equal (`.[0]` compares the
/// text, and is tested), `gt` on request values, which it answers with a 500, and `{{#each}}`
/// over a JSONPath that selects nothing, where it walks the fields of a Java object.
final class WireMockHandlebarsDifferentialTests: XCTestCase {
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-handlebars-\(UUID().uuidString)")
        let mappings = #"""
            {"mappings": [
              {"request": {"urlPath": "/if"}, "response": {"transformers": ["response-template"],
               "body": "[{{#if request.query.a}}yes{{else}}no{{/if}}][{{#unless request.query.a}}U{{/unless}}][{{#if (eq request.query.a.[0] 'l')}}large{{else}}small{{/if}}][{{#if (or request.query.b request.query.c)}}OR{{/if}}][{{#if (not request.query.b)}}noB{{/if}}]"}},
              {"request": {"urlPath": "/each"}, "response": {"transformers": ["response-template"],
               "body": "[{{#each request.query.x}}{{this}}@{{@index}}{{#if @first}}F{{/if}}{{#if @last}}L{{/if}},{{/each}}][{{request.query.x.[1]}}][{{request.pathSegments.[0]}}][{{#with request.headers}}{{X-A}}{{/with}}][{{request.query.nope}}][{{#each request.query.nope}}e{{else}}none{{/each}}]"}},
              {"request": {"urlPath": "/json"}, "response": {"transformers": ["response-template"],
               "body": "[{{jsonPath request.body '$.a'}}][{{jsonPath request.body '$.b'}}][{{jsonPath request.body '$.c'}}][{{jsonPath request.body '$.n'}}][{{jsonPath request.body '$.f'}}][{{jsonPath request.body '$.missing'}}][{{#if (jsonPath request.body '$.t')}}T{{/if}}][{{#each (jsonPath request.body '$.list')}}{{this}};{{/each}}][{{jsonPath request.body '$.s'}}]"}},
              {"request": {"urlPath": "/compare"}, "response": {"transformers": ["response-template"],
               "body": "[{{#if (gt (jsonPath request.body '$.n') 2)}}gt2{{else}}le2{{/if}}][{{#if (lt (jsonPath request.body '$.n') 10)}}lt10{{/if}}][{{#if (gte (jsonPath request.body '$.n') 3)}}gte{{/if}}][{{#if (lte (jsonPath request.body '$.n') 2)}}lte{{/if}}][{{#if (jsonPath request.body '$.z')}}Z{{else}}noZ{{/if}}][{{#if (jsonPath request.body '$.e')}}E{{else}}noE{{/if}}][{{#if (eq (jsonPath request.body '$.kind') 'cat')}}cat{{/if}}][{{eq (jsonPath request.body '$.kind') 'cat'}}][{{#with (jsonPath request.body '$.b')}}{{k}}{{/with}}][{{#if (and (jsonPath request.body '$.kind') (not (jsonPath request.body '$.z')))}}AND{{/if}}][{{#each (jsonPath request.body '$.list')}}{{@index}}={{this}}{{#unless @last}},{{/unless}}{{/each}}]"}},
              {"request": {"urlPathPattern": "/photo/[a-z]+"}, "response": {"transformers": ["response-template"],
               "bodyFileName": "{{#if (eq request.query.size.[0] 'large')}}large{{else}}small{{/if}}/{{request.pathSegments.[1]}}.txt"}}
            ]}
            """#
        do {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
            for size in ["large", "small"] {
                try FileManager.default.createDirectory(at: root.appendingPathComponent("__files/\(size)"), withIntermediateDirectories: true)
                try Data("\(size) cat\n".utf8).write(to: root.appendingPathComponent("__files/\(size)/cat.txt"))
            }
            try Data(mappings.utf8).write(to: root.appendingPathComponent("mappings/handlebars.json"))
        } catch {
            XCTFail("cannot write the root: \(error)")
        }
        return root
    }()

    private static let servers = LockedServers(root: root, flags: ["--local-response-templating"])

    override class func tearDown() {
        servers.stop(removing: root)
        super.tearDown()
    }

    typealias Probe = WireMockDifferentialTests.Probe

    func testConditionalsAndLoopsOverTheRequest() throws {
        try compare([
            Probe("GET", "/if?a=l"),
            Probe("GET", "/if?a=s&c=1"),
            Probe("GET", "/if"),
            Probe("GET", "/if?a=0&b=2"),
            Probe("GET", "/each?x=p&x=q&x=%3Cb%3E", headers: ["X-A: v"]),
            Probe("GET", "/each?x=solo"),
        ])
    }

    func testJSONPathValuesAndComparisons() throws {
        try compare([
            Probe("POST", "/json", body: #"{"a":"str","b":{"k":1},"c":[1,2],"n":3,"f":2.5,"t":true,"list":["x","y"],"s":"<&>"}"#),
            Probe("POST", "/compare", body: #"{"kind":"cat","n":3,"b":{"k":"v"},"z":0,"e":"","list":["x","y"]}"#),
            Probe("POST", "/compare", body: #"{"kind":"dog","n":2,"z":1,"e":[],"list":[]}"#),
        ])
    }

    func testABodyFileChosenByACondition() throws {
        try compare([
            Probe("GET", "/photo/cat?size=large"),
            Probe("GET", "/photo/cat"),
        ])
    }

    private func compare(_ probes: [Probe], file: StaticString = #filePath, line: UInt = #line) throws {
        try WireMockDifferentialTests.compare(probes, ports: Self.servers.ports(), file: file, line: line)
    }
}
