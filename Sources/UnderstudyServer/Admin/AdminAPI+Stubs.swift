import Foundation
import Understudy

extension AdminAPI {
    /// `GET /__admin/stubs`.
    func listStubs() -> AdminResponse {
        let uses = registry.useCounts
        return .json(200, AdminJSON.StubList(stubs: registry.stubs.map { summary(of: $0, uses: uses) }))
    }

    /// `GET /__admin/stubs/{name}`.
    func showStub(named name: String) throws -> AdminResponse {
        guard let stub = registry.stubs.first(where: { $0.name == name }) else { throw noStub(named: name) }
        return .json(200, summary(of: stub, uses: registry.useCounts))
    }

    /// `DELETE /__admin/stubs/{name}`.
    func removeStub(named name: String) throws -> AdminResponse {
        guard registry.removeStub(named: name) else { throw noStub(named: name) }
        return .noContent
    }

    /// `POST /__admin/stubs`: one stub, or `{stubs: [...]}`, in the stub-file schema.
    ///
    /// A stub without a `name` gets `posted-N`, N the first number not in use, so that stubs
    /// posted one by one do not replace each other (a file's `<file>-N` names would collide).
    func addStubs(_ request: AdminRequest) throws -> AdminResponse {
        let (text, format) = try document(of: request, expected: #"a stub or {"stubs": [...]}"#)
        var stubs: [Stub]
        do {
            stubs = try StubFileLoader.stubs(
                parsing: text, format: format, named: Self.documentName, relativeTo: stubDirectory, allowsSingleStub: true
            )
        } catch let error as StubFileError {
            throw AdminFailure.badDocument(error)
        }
        var taken = Set(registry.stubs.map(\.name)).union(stubs.map(\.name))
        var next = 1
        for index in stubs.indices where stubs[index].name == "\(Self.documentName)-\(index + 1)" {
            while taken.contains("posted-\(next)") { next += 1 }
            stubs[index].name = "posted-\(next)"
            taken.insert(stubs[index].name)
        }
        registry.add(stubs)
        return .json(201, AdminJSON.Added(added: stubs.map(\.name)))
    }

    private func summary(of stub: Stub, uses: [String: Int]) -> AdminJSON.StubSummary {
        AdminJSON.StubSummary(
            name: stub.name, priority: stub.priority, times: stub.times, uses: uses[stub.name] ?? 0,
            matcher: stub.matcher.description
        )
    }

    private func noStub(named name: String) -> AdminFailure {
        AdminFailure(404, "no stub named '\(name)'", field: "name")
    }
}
