import Foundation
import XCTest

/// Headless Chromium driven over the DevTools protocol (`--remote-debugging-pipe`: JSON
/// messages on fds 3 and 4, no WebSocket needed), through a small Python script that takes one
/// JSON command per line on stdin and answers one JSON line on stdout. The page stays open
/// between commands, so a test can change the server and watch the same page update.
///
/// Bounded: the script runs under `timeout -s KILL 180`, every wait has its own limit, and
/// ``quit()`` (or deinit) kills it by PID.
final class ChromiumDriver {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()
    private let directory: URL

    /// - Parameters:
    ///   - directory: where the profile, script, log and screenshots go.
    ///   - arguments: more Chromium flags (say, `--ignore-certificate-errors-spki-list=...`).
    init(directory: URL, arguments: [String] = []) throws {
        #if !os(Linux)
        throw XCTSkip("the Chromium tests drive Debian's chromium package, which `make test-deps` installs on Linux only")
        #endif
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("cdp.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["timeout", "-s", "KILL", "180", "python3", script.path, directory.appendingPathComponent("profile").path] + arguments
        process.standardInput = input
        process.standardOutput = output
        let log = directory.appendingPathComponent("chromium.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends one command and returns the `value` of its answer; an answer with `error` throws.
    @discardableResult
    func send(_ command: [String: Any]) throws -> Any? {
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(0x0A)
        try input.fileHandleForWriting.write(contentsOf: line)
        let answer = try readLine()
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw Failure(description: "the driver answered \(String(decoding: answer, as: UTF8.self))")
        }
        if let error = object["error"] {
            throw Failure(description: "\(command): \(error)\n\(chromiumLog())")
        }
        return object["value"]
    }

    func navigate(_ url: URL) throws {
        try send(["navigate": url.absoluteString])
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value as JSON.
    func evaluate(_ expression: String) throws -> Any? {
        try send(["evaluate": expression])
    }

    /// Waits until `expression` is truthy in the page, or throws with the page's DOM.
    func wait(until expression: String, timeout: Double = 20) throws {
        try send(["waitFor": expression, "timeout": timeout])
    }

    /// A PNG screenshot of the page.
    func screenshot() throws -> Data {
        let path = directory.appendingPathComponent("screenshot.png")
        try send(["screenshot": path.path])
        return try Data(contentsOf: path)
    }

    func quit() {
        if process.isRunning { _ = try? send(["quit": true]) }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func readLine() throws -> Data {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                return Data(line)
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw Failure(description: "the Chromium driver exited (status \(process.isRunning ? "running" : String(process.terminationStatus)); 137: killed after 180 s, 127: chromium or python3 missing, run `make test-deps`)\n\(chromiumLog())")
            }
            buffer.append(chunk)
        }
    }

    private func chromiumLog() -> String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("chromium.log"), encoding: .utf8)) ?? ""
        return String(text.suffix(3_000))
    }

    /// The driver: stdlib Python only.
    static let script = #"""
        import base64, json, os, subprocess, sys, time

        profile = sys.argv[1]
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()

        def child_fds():
            # Through fresh descriptors first: the pipes may themselves be 3 or 4.
            read_end, write_end = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        chrome = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--disable-crash-reporter", "--no-proxy-server", "--user-data-dir=" + profile, "--window-size=1280,1000",
             "--hide-scrollbars", "--remote-debugging-pipe"] + sys.argv[2:] + ["about:blank"],
            preexec_fn=child_fds, close_fds=False, stdin=subprocess.DEVNULL, stdout=sys.stderr, stderr=sys.stderr)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        pending = b""
        next_id = 0

        def call(method, params=None, session=None):
            global pending, next_id
            next_id += 1
            message = {"id": next_id, "method": method, "params": params or {}}
            if session:
                message["sessionId"] = session
            os.write(to_chrome_w, json.dumps(message).encode() + b"\0")
            while True:
                while b"\0" not in pending:
                    chunk = os.read(from_chrome_r, 1 << 20)
                    if not chunk:
                        raise RuntimeError("chromium closed the pipe")
                    pending += chunk
                raw, pending = pending.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == next_id:
                    if "error" in reply:
                        raise RuntimeError(method + ": " + json.dumps(reply["error"]))
                    return reply.get("result", {})

        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Page.enable", session=session)

        def evaluate(expression):
            result = call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session)
            if "exceptionDetails" in result:
                raise RuntimeError("exception: " + json.dumps(result["exceptionDetails"])[:2000])
            return result.get("result", {}).get("value")

        def answer(value=None, error=None):
            sys.stdout.write(json.dumps({"value": value} if error is None else {"error": error}) + "\n")
            sys.stdout.flush()

        for line in sys.stdin:
            command = json.loads(line)
            try:
                if "navigate" in command:
                    call("Page.navigate", {"url": command["navigate"]}, session)
                    answer(True)
                elif "evaluate" in command:
                    answer(evaluate(command["evaluate"]))
                elif "waitFor" in command:
                    deadline = time.monotonic() + command.get("timeout", 20)
                    while True:
                        try:
                            if evaluate("Boolean(" + command["waitFor"] + ")"):
                                answer(True)
                                break
                        except RuntimeError:
                            pass
                        if time.monotonic() > deadline:
                            dom = evaluate("document.documentElement ? document.documentElement.outerHTML : ''")
                            answer(error="timed out waiting for " + command["waitFor"] + "; the DOM:\n" + str(dom)[:6000])
                            break
                        time.sleep(0.1)
                elif "screenshot" in command:
                    data = call("Page.captureScreenshot", {"format": "png"}, session)["data"]
                    with open(command["screenshot"], "wb") as file:
                        file.write(base64.b64decode(data))
                    answer(True)
                elif "quit" in command:
                    answer(True)
                    break
            except Exception as error:
                answer(error=str(error))

        try:
            call("Browser.close")
        except Exception:
            pass
        chrome.wait(timeout=10)
        """#
}
