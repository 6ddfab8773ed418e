import UnderstudyImages
import UnderstudySupport

/// The network a transport delivers on, for stubs that name none: a base (the server's
/// `--network`, a session's ``NetworkProfile`` option) and a run-time profile over it (the admin
/// API's `PUT /__admin/network`, `StubServer.network`), which wins while it is set.
package final class NetworkSetting: Sendable {
    private let state: LockedState<(base: NetworkProfile?, runtime: NetworkProfile?)>

    /// - Parameter base: the profile in force when no run-time one is set.
    package init(base: NetworkProfile?) {
        state = LockedState((base, nil))
    }

    /// The profile in force when no run-time one is set.
    package var base: NetworkProfile? {
        state.withLock { $0.base }
    }

    /// The run-time profile, over the base while set; `nil` goes back to the base.
    package var runtime: NetworkProfile? {
        get { state.withLock { $0.runtime } }
        set { state.withLock { $0.runtime = newValue } }
    }

    /// The profile responses are delivered on now.
    package var current: NetworkProfile? {
        state.withLock { $0.runtime ?? $0.base }
    }
}
