#if !(canImport(Glibc) && !UNDERSTUDY_PORTABLE)
// Everyone's backend but Linux's (FileChangeMonitor.swift), this whole file.
/// Where inotify is missing (Apple platforms, the `UNDERSTUDY_PORTABLE` build) there is no
/// monitor: ``shared`` is `nil`, and every caller checks the file's stamp each time.
final class FileChangeMonitor: Sendable {
    /// Always `nil` here.
    static var shared: FileChangeMonitor? { nil }

    private init() {}

    /// Never called: there is no monitor.
    func watch(_ path: String) -> Bool { false }

    /// Never called: there is no monitor.
    var watchEpoch: UInt64 { 0 }

    /// Never called: there is no monitor.
    func generation(in turn: FileCheckTurn? = nil) -> UInt64 { 0 }
}
#endif
