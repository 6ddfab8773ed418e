import Foundation
import Understudy

/// The JSON bodies the admin API sends, as Codable types: clients and tests decode them.
///
/// Every body is compact JSON with sorted keys and a trailing newline.
package enum AdminJSON {
    /// `GET /__admin/health`: `{"journal":{"count":3,"dropped":0,"limit":100000},"status":"ok","stubs":12}`.
    package struct Health: Sendable, Hashable, Codable {
        /// The journal's state.
        package struct JournalState: Sendable, Hashable, Codable {
            /// Entries kept.
            package var count: Int
            /// Entries dropped to stay within `limit`.
            package var dropped: Int
            /// The most entries kept; `null` when unlimited.
            package var limit: Int?

            /// Creates a journal summary.
            package init(count: Int, dropped: Int, limit: Int?) {
                self.count = count
                self.dropped = dropped
                self.limit = limit
            }

            private enum CodingKeys: String, CodingKey { case count, dropped, limit }

            package func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(count, forKey: .count)
                try container.encode(dropped, forKey: .dropped)
                try container.encode(limit, forKey: .limit)
            }
        }

        /// Always `ok` when the server answers.
        package var status: String
        /// Stubs registered.
        package var stubs: Int
        /// The journal.
        package var journal: JournalState
        /// Open client connections; absent outside a server.
        package var connections: Int?
        /// Requests in flight: waiting for a closure, upstream, delay or gate, or being paced.
        package var inFlight: Int?

        /// Creates a health report.
        package init(status: String, stubs: Int, journal: JournalState, connections: Int? = nil, inFlight: Int? = nil) {
            self.status = status
            self.stubs = stubs
            self.journal = journal
            self.connections = connections
            self.inFlight = inFlight
        }
    }

    /// One gate in `GET /__admin/gates`, and the answer to `POST /__admin/gates/{name}/release|close`.
    package struct GateSummary: Sendable, Hashable, Codable {
        /// The gate's name.
        package var name: String
        /// Whether bodies pass it now.
        package var open: Bool
        /// Requests it holds now.
        package var waiting: Int
        /// Body bytes those requests sent before it held them.
        package var bytesSent: Int
        /// Bodies that reached it so far, held or let through.
        package var reached: Int

        /// Creates a summary.
        package init(name: String, open: Bool, waiting: Int, bytesSent: Int, reached: Int) {
            self.name = name
            self.open = open
            self.waiting = waiting
            self.bytesSent = bytesSent
            self.reached = reached
        }
    }

    /// `GET /__admin/gates`: every gate named so far, by name.
    package struct GateList: Sendable, Hashable, Codable {
        /// The gates.
        package var gates: [GateSummary]

        /// Creates a list.
        package init(gates: [GateSummary]) {
            self.gates = gates
        }
    }

    /// One stub in `GET /__admin/stubs`.
    package struct StubSummary: Sendable, Hashable, Codable {
        /// The stub's name.
        package var name: String
        /// Its priority (higher wins).
        package var priority: Int
        /// Its use limit; `null` for none.
        package var times: Int?
        /// Uses so far.
        package var uses: Int
        /// How its matcher reads, e.g. `host is img.example.com and extension is webp`.
        package var matcher: String

        /// Creates a stub summary.
        package init(name: String, priority: Int, times: Int?, uses: Int, matcher: String) {
            self.name = name
            self.priority = priority
            self.times = times
            self.uses = uses
            self.matcher = matcher
        }

        private enum CodingKeys: String, CodingKey { case name, priority, times, uses, matcher }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(priority, forKey: .priority)
            try container.encode(times, forKey: .times)
            try container.encode(uses, forKey: .uses)
            try container.encode(matcher, forKey: .matcher)
        }
    }

    /// `GET /__admin/stubs`: `{"stubs":[...]}`, in precedence order (the first would win).
    package struct StubList: Sendable, Hashable, Codable {
        /// The stubs.
        package var stubs: [StubSummary]

        /// Creates a stub list.
        package init(stubs: [StubSummary]) {
            self.stubs = stubs
        }
    }

    /// `POST /__admin/stubs` (201): `{"added":["cat","posted-1"]}`, in the order given.
    package struct Added: Sendable, Hashable, Codable {
        /// The names of the stubs added (or replaced).
        package var added: [String]

        /// Creates the answer.
        package init(added: [String]) {
            self.added = added
        }
    }

    /// `GET /__admin/requests`: WireMock's `{"requests":[...],"meta":{"total":12},"requestJournalDisabled":false}`,
    /// newest first (WireMock's Java client refuses any other field here).
    package struct RequestList: Sendable, Hashable, Codable {
        /// WireMock's `meta`.
        package struct Meta: Sendable, Hashable, Codable {
            /// Entries that passed the filters (`unmatched`, `since`), before `offset` and `limit`.
            package var total: Int
        }

        /// The page of entries asked for, newest first.
        package var requests: [ServeEvent]
        /// The count of entries that passed the filters.
        package var meta: Meta
        /// Whether the server keeps no requests (`--no-request-journal`, a journal of limit 0).
        package var requestJournalDisabled: Bool

        /// Entries that passed the filters, before `offset` and `limit` (`meta.total`).
        package var total: Int { meta.total }

        /// Creates a page.
        package init(requests: [ServeEvent], total: Int, requestJournalDisabled: Bool = false) {
            self.requests = requests
            self.meta = Meta(total: total)
            self.requestJournalDisabled = requestJournalDisabled
        }
    }

    /// `POST /__admin/requests/count`: `{"count":3}`.
    package struct Count: Sendable, Hashable, Codable {
        /// Journal entries whose request matches.
        package var count: Int

        /// Creates the answer.
        package init(count: Int) {
            self.count = count
        }
    }

    /// `POST /__admin/reset`: `{"stubs":12}`, the stubs registered after re-reading the files.
    package struct ResetDone: Sendable, Hashable, Codable {
        /// Stubs registered after the reset.
        package var stubs: Int

        /// Creates the answer.
        package init(stubs: Int) {
            self.stubs = stubs
        }
    }

    /// A stub that nearly matched an unmatched request.
    package struct NearMissSummary: Sendable, Hashable, Codable {
        /// One matcher part that failed.
        package struct Difference: Sendable, Hashable, Codable {
            /// The part, e.g. `host is img.example.com`.
            package var expected: String
            /// What the request had, e.g. `cdn.example.com`.
            package var actual: String

            /// Creates a difference.
            package init(expected: String, actual: String) {
                self.expected = expected
                self.actual = actual
            }
        }

        /// The stub's name.
        package var stub: String
        /// Matcher parts the request passed.
        package var matchedParts: Int
        /// Matcher parts in all.
        package var totalParts: Int
        /// The parts that failed; empty when the stub matched but was used up (`times`).
        package var differences: [Difference]
        /// The near miss as one line, as the 404 body prints it.
        package var description: String

        /// Creates a summary.
        package init(stub: String, matchedParts: Int, totalParts: Int, differences: [Difference], description: String) {
            self.stub = stub
            self.matchedParts = matchedParts
            self.totalParts = totalParts
            self.differences = differences
            self.description = description
        }

        /// The summary of a near miss.
        package init(_ miss: NearMiss) {
            self.init(
                stub: miss.stubName, matchedParts: miss.matchedParts, totalParts: miss.totalParts,
                differences: miss.mismatches.map { Difference(expected: $0.expected, actual: $0.actual) },
                description: miss.description
            )
        }
    }

    /// One unmatched request and the stubs nearest to it.
    package struct UnmatchedRequest: Sendable, Hashable, Codable {
        /// The journal entry.
        package var entry: JournalEntry
        /// The nearest stubs, nearest first, as they stood when the request arrived.
        package var nearMisses: [NearMissSummary]

        /// Creates the pair.
        package init(entry: JournalEntry, nearMisses: [NearMissSummary]) {
            self.entry = entry
            self.nearMisses = nearMisses
        }
    }

    /// `GET /__admin/near-misses`: `{"unmatched":[{"entry":{...},"nearMisses":[...]}]}`, oldest first.
    package struct NearMissList: Sendable, Hashable, Codable {
        /// Every unmatched request kept in the journal.
        package var unmatched: [UnmatchedRequest]

        /// Creates the list.
        package init(unmatched: [UnmatchedRequest]) {
            self.unmatched = unmatched
        }
    }

    /// Every error body: `{"error":"...","field":"limit"}`.
    ///
    /// `field` names the input at fault (a query parameter, `body`, a stub-file path such as
    /// `stubs[0].response.fault`, `method`, `name`, `Authorization`); it is absent when no one
    /// field is. `issues` lists every stub-file issue, one line each, when the body had some.
    package struct Error: Sendable, Hashable, Codable {
        /// What went wrong and what was expected.
        package var error: String
        /// The input at fault, if one is.
        package var field: String?
        /// Every stub-file issue, `FILE:LINE: PATH: message`.
        package var issues: [String]?

        /// Creates an error body.
        package init(error: String, field: String? = nil, issues: [String]? = nil) {
            self.error = error
            self.field = field
            self.issues = issues
        }
    }
}
