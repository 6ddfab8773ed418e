import Foundation
import Understudy

extension AdminAPI {
    /// `DELETE /__admin/requests/{id}`: the entry removed from the journal; `{}` with 200 also
    /// when no entry has that id any more, as WireMock answers (removing is idempotent).
    func removeRequest(_ id: String) throws -> AdminResponse {
        guard let sequence = ServeEvent.sequence(ofID: id) else {
            throw AdminFailure(404, "no request with id '\(id)' in the journal; expected an id from GET \(AdminAPI.prefix)requests", field: "id")
        }
        registry.journal.remove(id: sequence)
        return .json(200, [:] as JSONValue)
    }

    /// `POST /__admin/requests/remove` with a WireMock request pattern (or Understudy's
    /// `{"request": {...}}`): the matching entries removed and answered as WireMock does,
    /// `{"serveEvents": [...]}`, oldest first.
    func removeRequests(_ request: AdminRequest) throws -> AdminResponse {
        let removed = registry.journal.remove(matching: try requestPattern(request))
        return .json(200, RemovedServeEvents(serveEvents: events(removed)))
    }
}

/// The answer to `POST /__admin/requests/remove`: WireMock's `FindServeEventsResult`.
private struct RemovedServeEvents: Encodable {
    let serveEvents: [ServeEvent]
}
