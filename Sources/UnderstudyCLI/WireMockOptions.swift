import ArgumentParser
import Foundation

/// WireMock's standalone flags that `serve` takes with their meaning, so that a WireMock command
/// line (or a Testcontainers module's) starts Understudy unchanged; `--port`, `--https-port` and
/// `--bind-address` are ``ListenOptions`` and ``TLSOptions`` names. A WireMock flag Understudy
/// cannot honour is accepted by the parser only to be refused with a message saying so.
struct WireMockOptions: ParsableArguments {
    @Option(name: .customLong("root-dir"), help: ArgumentHelp(
        "A WireMock root (mappings/ and __files/, made when missing) to serve; the admin API's mappings/save writes there.",
        valueName: "dir"
    ))
    var rootDirectory: String?

    @Flag(name: .customLong("global-response-templating"), help: "Render every WireMock response as a Handlebars template, as WireMock does.")
    var globalResponseTemplating = false

    @Flag(name: .customLong("local-response-templating"), help: "Render responses whose transformers name response-template (the default).")
    var localResponseTemplating = false

    @Option(name: .customLong("max-request-journal-entries"), help: ArgumentHelp("WireMock's name for --journal-limit.", valueName: "n"))
    var maxJournalEntries: Int?

    @Flag(name: .customLong("verbose"), help: "WireMock's flag: the request log is on (the default; --log quiet turns it off).")
    var verbose = false

    @Flag(name: .customLong("disable-banner"), help: "WireMock's flag: Understudy prints no banner, only its ready line.")
    var disableBanner = false

    @Flag(name: .customLong("no-request-journal"), help: "WireMock's flag: keep no request; counts and searches of the journal are refused.")
    var noRequestJournal = false

    @Option(name: .customLong("proxy-all"), help: ArgumentHelp("WireMock's flag: forward what no stub matches to this URL (--proxy-unmatched).", valueName: "url"))
    var proxyAll: String?

    @Flag(name: .customLong("record-mappings"), help: .hidden)
    var recordMappings = false

    @Flag(name: .customLong("enable-browser-proxying"), help: .hidden)
    var browserProxying = false

    @Option(name: .customLong("extensions"), help: .hidden)
    var extensions: String?

    @Flag(name: .customLong("enable-stub-cors"), help: .hidden)
    var stubCORS = false

    @Option(name: .customLong("https-keystore"), help: .hidden)
    var httpsKeystore: String?

    @Option(name: .customLong("container-threads"), help: .hidden)
    var containerThreads: Int?

    @Flag(name: .customLong("async-response-enabled"), help: .hidden)
    var asyncResponses = false

    func validate() throws {
        if let maxJournalEntries, maxJournalEntries < 1 {
            throw ValidationError("--max-request-journal-entries must be at least 1, not \(maxJournalEntries)")
        }
        if noRequestJournal, maxJournalEntries != nil {
            throw ValidationError("--no-request-journal and --max-request-journal-entries contradict each other; give one")
        }
        if recordMappings {
            throw ValidationError("--record-mappings cannot be honoured: Understudy records to HAR; use `understudy record --upstream URL --out FILE.har`")
        }
        if browserProxying {
            throw ValidationError("--enable-browser-proxying cannot be honoured as a flag: Understudy is always a forward proxy as well (see --intercept and --tunnel for HTTPS)")
        }
        if extensions != nil {
            throw ValidationError("--extensions cannot be honoured: Understudy runs no Java extensions; stubs answered by code are Swift closures")
        }
        if stubCORS {
            throw ValidationError("--enable-stub-cors cannot be honoured: give the Access-Control-* headers in the mappings' responses")
        }
        if httpsKeystore != nil {
            throw ValidationError("--https-keystore cannot be honoured: Understudy reads PEM files; use --cert FILE --key FILE (or the local CA)")
        }
        if containerThreads != nil {
            throw ValidationError("--container-threads cannot be honoured: Understudy runs one event loop per core")
        }
        if asyncResponses {
            throw ValidationError("--async-response-enabled cannot be honoured as a flag: Understudy's delays never hold a thread")
        }
    }

    /// Whether `directory` has WireMock's layout: `mappings/` and `__files/`.
    static func hasWireMockLayout(_ directory: String) -> Bool {
        ["mappings", "__files"].allSatisfy { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent(name), isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
    }

    /// Makes `mappings/` and `__files/` in `root` when missing, as WireMock does at start.
    static func prepareRoot(_ root: String) throws {
        for name in ["mappings", "__files"] {
            try FileManager.default.createDirectory(atPath: (root as NSString).appendingPathComponent(name), withIntermediateDirectories: true)
        }
    }
}
