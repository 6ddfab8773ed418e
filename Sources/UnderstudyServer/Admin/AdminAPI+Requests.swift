import Foundation
import Understudy

extension AdminAPI {
    /// `GET /__admin/near-misses`: every unmatched request with the stubs nearest to it.
    func nearMisses() -> AdminResponse {
        let unmatched = registry.journal.unmatched.map { interaction in
            AdminJSON.UnmatchedRequest(
                entry: JournalEntry(interaction), nearMisses: interaction.nearMisses.map(AdminJSON.NearMissSummary.init)
            )
        }
        return .json(200, AdminJSON.NearMissList(unmatched: unmatched))
    }

    func flag(_ request: AdminRequest, _ name: String) throws -> Bool {
        switch request.query[name]?.lowercased() {
        case nil, "false", "0": return false
        case "", "true", "1": return true
        case _?:
            let value = request.query[name] ?? ""
            throw AdminFailure(400, "'\(value)' is not a valid value for \(name); expected true or false", field: name)
        }
    }

    func count(_ request: AdminRequest, _ name: String) throws -> Int? {
        guard let text = request.query[name] else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw AdminFailure(400, "'\(text)' is not a valid \(name); expected a whole number of at least 0", field: name)
        }
        return value
    }
}
