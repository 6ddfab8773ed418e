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
}
