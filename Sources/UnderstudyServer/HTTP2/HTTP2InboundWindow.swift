/// One inbound flow-control window of an HTTP/2 connection (the connection's or a stream's):
/// how much more the client may be told it can send, given the window NIO's HTTP/2 handler
/// reports after each DATA frame. Bodies are read as they arrive, so nothing is held back:
/// once the window is at half its target or less, the whole difference is given back in one
/// WINDOW_UPDATE, as NIO's own stream channels do.
struct HTTP2InboundWindow {
    /// The window the client starts with: 65,535 bytes unless SETTINGS said otherwise
    /// (NIO's handler advertises the default).
    static let initialSize = 65_535

    let target: Int

    init(target: Int = Self.initialSize) {
        self.target = target
    }

    /// The increment to send now that the window is `size` (negative after a SETTINGS change
    /// shrank it below what was in flight), or `nil` while it is above half the target.
    func increment(for size: Int) -> Int? {
        if size > target / 2 { return nil }
        return min(target - size, Int(Int32.max))
    }
}
