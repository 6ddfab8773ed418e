#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command run with `posix_spawnp`, its output discarded, timed as process wall time
/// (spawn to reaped exit) — what a caller shelling out to the tool would pay.
struct ExternalCommand {
    let arguments: [String]

    init(_ arguments: String...) { self.arguments = arguments }
    init(arguments: [String]) { self.arguments = arguments }

    var name: String { arguments.joined(separator: " ") }

    /// Runs the command once.
    /// - Returns: Wall time in nanoseconds.
    /// - Throws: ``BenchmarkError`` when it cannot start or exits non-zero.
    @discardableResult
    func run() throws -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }

        var pid = pid_t()
        let start = Stopwatch.now()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw BenchmarkError("cannot start `\(name)`: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let elapsed = Double(Stopwatch.now() - start)
        // WIFEXITED && WEXITSTATUS == 0, spelled out because the macros are not imported.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw BenchmarkError("`\(name)` failed (wait status \(status))")
        }
        return elapsed
    }

    /// Whether `tool` is on `PATH`.
    static func exists(_ tool: String) -> Bool {
        (try? ExternalCommand("sh", "-c", "command -v \(tool)").run()) != nil
    }
}
