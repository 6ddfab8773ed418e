import Foundation

extension WireMockParser {
    /// The templated parts of a response.
    struct Templates {
        var body: ResponseTemplate?
        var bodyIsFile = false
        var headers: [(name: String, template: ResponseTemplate)] = []

        var isEmpty: Bool { body == nil && headers.isEmpty }

        /// An answer rendering the templates for each request, then timed as a fixed response is.
        func answer(status: Int, headers fixedHeaders: HeaderFields, body fixedBody: StubResponse?, timing: Timing, bodyFiles: FileReferences?) -> Stub.Answer {
            let body = self.body, bodyIsFile = self.bodyIsFile, headerTemplates = self.headers
            return .handler { request in
                var response: StubResponse
                var size = 0
                if let body {
                    let text = body.render(for: request)
                    if bodyIsFile, let bodyFiles {
                        switch bodyFiles.resolve(text) {
                        case .success(let url):
                            response = .file(url)
                            // The size paces chunkedDribbleDelay alone: no stat per request without one.
                            if timing.dribble != nil {
                                size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                            }
                        case .failure(let problem):
                            throw RenderError(status: 500, "bodyFileName '\(text)': \(problem.message)")
                        }
                    } else {
                        let data = Data(text.utf8)
                        response = .data(data)
                        size = data.count
                    }
                } else {
                    response = fixedBody ?? .status(200)
                }
                response = response.status(status)
                if headerTemplates.isEmpty {
                    if !fixedHeaders.isEmpty { response = response.headers(fixedHeaders) }
                } else {
                    var rendered = HeaderFields()
                    for header in headerTemplates { rendered.add(name: header.name, value: header.template.render(for: request)) }
                    response = response.headers(rendered)
                }
                switch WireMockParser.timed(WireMockParser.bare(response), bodySize: size, timing: timing) {
                case .response(let timed): return timed
                case .sequence(let steps): return steps[0]
                case .handler(let drawn): return try await drawn(request)
                }
            }
        }
    }
}
