import Foundation
import Understudy
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// The name of the catch-all stub that ``recording(into:)`` adds.
    public static let recordingStubName = "record"

    /// An ephemeral configuration whose requests go through to the real network and are
    /// journaled in `registry` with their response bodies, ready to export as HAR
    /// (`registry.journal.har()` in `UnderstudyHAR`).
    ///
    /// Adds to `registry` a catch-all `.forward()` stub of the lowest priority, so stubs already
    /// there still answer what they match; turns on `Journal.keepsBodies`. Redirects are
    /// followed as a stubbed session follows them, each hop its own journal entry.
    ///
    /// ```swift
    /// let recorder = StubRegistry()
    /// let session = URLSession(configuration: .recording(into: recorder))
    /// _ = try await session.data(from: URL(string: "http://127.0.0.1:8081/cat.png")!)
    /// try recorder.journal.har().write(to: harURL)
    /// ```
    /// - Parameter registry: where the interactions are journaled.
    public static func recording(into registry: StubRegistry) -> URLSessionConfiguration {
        registry.journal.keepsBodies = true
        registry.stub(.any, named: recordingStubName, priority: Int.min, response: .forward())
        return .stubbed(by: registry)
    }
}
