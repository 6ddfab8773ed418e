import Foundation
import Understudy
import UnderstudyHAR
import XCTest

/// The HAR model: round trip, tolerant reading, and errors that name the member.
final class HARDocumentTests: XCTestCase {
    func testRoundTripKeepsEveryMemberAndWritesBinaryBodiesAsBase64() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF])
        let entry = HAREntry(
            startedDateTime: "2026-01-02T03:04:05.678Z", time: 12.5,
            request: HARRequest(method: "GET", url: "http://example.com/a.png?x=1", headers: [HARNameValue(name: "Accept", value: "image/*")],
                                queryString: [HARNameValue(name: "x", value: "1")]),
            response: HARResponse(status: 200, statusText: "OK", headers: [HARNameValue(name: "Content-Type", value: "image/png")],
                                  content: HARContent(data: png, mimeType: "image/png"), bodySize: png.count),
            timings: HARTimings(send: 1, wait: 10, receive: 1.5),
            understudy: HARUnderstudy(stub: "cat", fault: nil, transport: "server"),
            extras: ["_priority": "High"]
        )
        let document = HARDocument(log: HARLog(entries: [entry], extras: ["_exporter": ["v": 2]]))
        let data = try document.encoded()
        let json = try XCTUnwrap(String(data: data, encoding: .utf8))
        XCTAssertTrue(json.contains(#""encoding" : "base64""#), json)
        XCTAssertTrue(json.contains(#""text" : "iVBORw0KGgoA/w==""#), json)
        XCTAssertTrue(json.contains(#""_understudy" : {"#), json)
        XCTAssertTrue(json.contains(#""fault" : null"#), json)
        let decoded = try HARDocument(data: data)
        XCTAssertEqual(decoded, document)
        XCTAssertEqual(decoded.log.entries[0].response.content.data, png)
        XCTAssertEqual(decoded.log.extras["_exporter"], ["v": 2])
    }

    func testTextBodiesAreWrittenAsText() {
        let content = HARContent(data: Data(#"{"a":1}"#.utf8), mimeType: "application/json; charset=utf-8")
        XCTAssertEqual(content.text, #"{"a":1}"#)
        XCTAssertNil(content.encoding)
        let notUTF8 = HARContent(data: Data([0xFF, 0xFE]), mimeType: "text/plain")
        XCTAssertEqual(notUTF8.encoding, "base64")
        XCTAssertEqual(notUTF8.data, Data([0xFF, 0xFE]))
    }

    func testReaderToleratesABOMMissingOptionalsDecimalsAndKeepsCustomFields() throws {
        let text = """
            {"log": {"version": "1.2", "_tool": {"name": "x"}, "entries": [
              {"request": {"method": "GET", "url": "http://h/a", "_initiator": "script"},
               "response": {"status": 200.0, "content": {"size": 3.0, "mimeType": "text/plain", "text": "abc", "_note": 1},
                            "bodySize": 3, "_transferSize": 300},
               "time": 1.25, "_resourceType": "fetch"}
            ]}}
            """
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)
        let document = try HARDocument(data: data)
        let entry = try XCTUnwrap(document.log.entries.first)
        XCTAssertEqual(document.log.creator.name, "unknown")
        XCTAssertEqual(document.log.extras, ["_tool": ["name": "x"]])
        XCTAssertEqual(entry.extras, ["_resourceType": "fetch"])
        XCTAssertEqual(entry.request.extras, ["_initiator": "script"])
        XCTAssertEqual(entry.response.extras, ["_transferSize": 300])
        XCTAssertEqual(entry.response.content.extras, ["_note": 1])
        XCTAssertEqual(entry.response.status, 200)
        XCTAssertEqual(entry.response.content.size, 3)
        XCTAssertEqual(entry.response.content.data, Data("abc".utf8))
        XCTAssertEqual(entry.request.headers, [])
        XCTAssertEqual(entry.request.httpVersion, "HTTP/1.1")
        XCTAssertEqual(entry.time, 1.25)
        XCTAssertEqual(entry.timings.wait, 1.25)
        XCTAssertNil(entry.understudy)

        // The custom members are written back.
        let again = try HARDocument(data: try document.encoded())
        XCTAssertEqual(again.log.entries[0].extras, ["_resourceType": "fetch"])
        XCTAssertEqual(again.log.entries[0].response.extras, ["_transferSize": 300])
        XCTAssertEqual(again, document)
    }

    func testMalformedDocumentsNameTheEntryAndField() {
        func message(_ text: String) -> String {
            do {
                _ = try HARDocument(data: Data(text.utf8), file: "s.har")
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let entry = #"{"request": {"method": "GET", "url": "http://h/"}, "response": {"status": 200}}"#
        XCTAssertEqual(message("<html>"), "s.har: not valid JSON")
        XCTAssertEqual(message("[1]"), #"s.har: not a HAR document; expected an object with a "log" member"#)
        XCTAssertEqual(message("{}"), #"s.har: log: missing; a HAR document is {"log": {"version": "1.2", "entries": [...]}}"#)
        XCTAssertEqual(message(#"{"log": {"entries": []}}"#), #"s.har: log.version: missing; expected "1.2""#)
        XCTAssertEqual(message(#"{"log": {"version": "2.0", "entries": []}}"#), "s.har: log.version: unsupported HAR version '2.0'; expected 1.2 or 1.1")
        XCTAssertEqual(message(#"{"log": {"version": "1.2"}}"#), "s.har: log.entries: missing; expected an array of entries")
        XCTAssertEqual(message(#"{"log": {"version": "1.2", "entries": {}}}"#), "s.har: log.entries: expected an array, found a dictionary")
        XCTAssertEqual(
            message(#"{"log": {"version": "1.2", "entries": [\#(entry), {"request": {"method": "GET"}, "response": {"status": 200}}]}}"#),
            "s.har: log.entries[1].request.url: missing"
        )
        XCTAssertEqual(
            message(#"{"log": {"version": "1.2", "entries": [\#(entry), {"request": {"method": "GET", "url": "/"}, "response": {}}]}}"#),
            "s.har: log.entries[1].response.status: missing"
        )
        XCTAssertEqual(
            message(#"{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "/"}, "response": {"status": "ok"}}]}}"#),
            "s.har: log.entries[0].response.status: expected a number, found a string"
        )
        let badBase64 = #"{"request": {"method": "GET", "url": "/"}, "response": {"status": 200, "content": {"size": 1, "mimeType": "image/png", "text": "@@not base64@@", "encoding": "base64"}}}"#
        XCTAssertEqual(
            message(#"{"log": {"version": "1.2", "entries": [\#(entry), \#(entry), \#(entry), \#(badBase64)]}}"#),
            "s.har: log.entries[3].response.content.text: not valid base64"
        )
    }
}
