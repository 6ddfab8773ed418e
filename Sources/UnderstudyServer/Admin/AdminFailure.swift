import Understudy

/// A refusal inside the admin API: the status and JSON error body to answer with.
struct AdminFailure: Error, Sendable {
    let status: Int
    var body: AdminJSON.Error
    var extraHeaders: HeaderFields = [:]

    init(_ status: Int, _ message: String, field: String? = nil, extraHeaders: HeaderFields = [:]) {
        self.status = status
        self.body = AdminJSON.Error(error: message, field: field)
        self.extraHeaders = extraHeaders
    }

    /// 400 for stub-file issues in a request body: the issues' own text, the first issue's
    /// path as the field (`body` for a document that is not even well-formed).
    static func badDocument(_ error: StubFileError) -> AdminFailure {
        let path = error.issues.first?.path ?? ""
        var failure = AdminFailure(400, error.description, field: path.isEmpty ? "body" : path)
        failure.body.issues = error.issues.map(\.description)
        return failure
    }

    var response: AdminResponse {
        AdminResponse.json(status, body, extraHeaders: extraHeaders)
    }

    /// The refusal as WireMock writes one, for the endpoints only WireMock has: WireMock's Java
    /// client reads error bodies strictly as `{"errors": [{"code", "source": {"pointer"},
    /// "title", "detail"}]}`, so Understudy's message goes in `detail` and its field, as a JSON
    /// pointer (`request.urlPath` is `/request/urlPath`, `mappings[1]` is `/mappings/1`), in
    /// `source.pointer`.
    var wireMockResponse: AdminResponse {
        var pointer = ""
        for part in (body.field ?? "").split(separator: ".") {
            var rest = Substring(part)
            while let open = rest.firstIndex(of: "[") {
                if open > rest.startIndex { pointer += "/" + rest[..<open] }
                let close = rest[open...].firstIndex(of: "]") ?? rest.endIndex
                pointer += "/" + rest[rest.index(after: open)..<close]
                rest = close < rest.endIndex ? rest[rest.index(after: close)...] : ""
            }
            if !rest.isEmpty { pointer += "/" + rest }
        }
        let title = body.error.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? body.error
        var error: [String: JSONValue] = ["code": 10, "title": .string(title), "detail": .string(body.error)]
        if !pointer.isEmpty { error["source"] = ["pointer": .string(pointer)] }
        return AdminResponse.json(status, ["errors": [.object(error)]] as JSONValue, extraHeaders: extraHeaders)
    }
}
