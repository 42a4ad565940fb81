import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Drives a headless Chromium for the browser tests, over the DevTools protocol on `--remote-debugging-pipe`.
///
/// Chromium reads JSON commands, each ended by a NUL byte, from fd 3 and writes replies and events the same way
/// to fd 4. Foundation's `Process` cannot hand a child extra descriptors, so `launch()` uses `posix_spawn` with
/// file actions: one end of a Unix socket pair is dup'ed to both fd 3 and fd 4 of the child (every other
/// descriptor of the test process is closed in the child), stdout and stderr go to `chromium.log` in the
/// browser's temporary profile folder. The child gets a process group of its own, so a browser that does not
/// close can be killed whole (that group only). A thread reads replies and routes them by `id` to the command
/// waiting for them; events (`method`, no `id`) are kept, with their `sessionId`, for `navigate` and the log.
///
/// After launch the driver opens a page (`Target.createTarget`), attaches to it with
/// `Target.attachToTarget {flatten: true}` and sends every page command with that `sessionId`.
final class HeadlessChromium: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The Chromium binary: `CHROMIUM_BINARY` when set, else the first of the usual places that exists.
    static func executable() -> String? {
        if let override = ProcessInfo.processInfo.environment["CHROMIUM_BINARY"], !override.isEmpty {
            return override
        }
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome",
                          "/usr/bin/google-chrome-stable"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a Chromium binary is there to launch.
    static var isAvailable: Bool { executable() != nil }

    /// The most one protocol command may take.
    let commandTimeout: Double
    /// The browser's process id (also its process group id).
    let pid: pid_t
    /// The temporary profile folder (`--user-data-dir`), removed by `close()`.
    let profile: URL
    /// Chromium's stdout and stderr.
    var logURL: URL { profile.appendingPathComponent("chromium.log") }

    private let connection: Connection
    /// The `sessionId` of the page every page command goes to.
    private let session: String

    private init(pid: pid_t, profile: URL, connection: Connection, session: String, commandTimeout: Double) {
        self.pid = pid
        self.profile = profile
        self.connection = connection
        self.session = session
        self.commandTimeout = commandTimeout
    }

    deinit {
        // A test that failed before close(): do not leave a browser behind.
        if !connection.hasExited {
            _ = kill(-pid, SIGKILL)
        }
    }

    // MARK: Launch and close

    /// Starts Chromium headless on `about:blank`, opens a page of `width`×`height` CSS pixels and attaches to it.
    /// `extraArguments` go before the first page (a file as the microphone: `--use-file-for-fake-audio-capture`).
    static func launch(width: Int = 1000, height: Int = 700, commandTimeout: Double = 30,
                       extraArguments: [String] = []) async throws -> HeadlessChromium {
        guard let executable = executable() else {
            throw Failure("no Chromium found (looked for /usr/bin/chromium and others); set CHROMIUM_BINARY")
        }
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiograph-chromium-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let arguments = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                         "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
                         "--disable-extensions", "--disable-background-networking", "--disable-sync",
                         "--metrics-recording-only", "--mute-audio", "--password-store=basic",
                         "--window-size=\(width),\(height)"] + extraArguments + ["about:blank"]

        let (pid, socket): (pid_t, Int32)
        do {
            (pid, socket) = try spawn(arguments, log: profile.appendingPathComponent("chromium.log").path)
        } catch {
            try? FileManager.default.removeItem(at: profile)
            throw error
        }
        let connection = Connection(socket: socket, pid: pid)
        connection.start()

        do {
            _ = try await connection.send("Browser.getVersion", timeout: commandTimeout)
            let target = try await connection.send("Target.createTarget", ["url": "about:blank"],
                                                   timeout: commandTimeout)
            guard let targetID = target["targetId"]?.stringValue else {
                throw Failure("Target.createTarget answered no targetId: \(target)")
            }
            let attached = try await connection.send("Target.attachToTarget",
                                                     ["targetId": .string(targetID), "flatten": true],
                                                     timeout: commandTimeout)
            guard let session = attached["sessionId"]?.stringValue else {
                throw Failure("Target.attachToTarget answered no sessionId: \(attached)")
            }
            let browser = HeadlessChromium(pid: pid, profile: profile, connection: connection, session: session,
                                           commandTimeout: commandTimeout)
            _ = try await browser.send("Page.enable")
            _ = try await browser.send("Runtime.enable")
            _ = try await browser.send("Log.enable")
            _ = try await browser.send("Emulation.setDeviceMetricsOverride",
                                       ["width": .number(Double(width)), "height": .number(Double(height)),
                                        "deviceScaleFactor": 1, "mobile": false])
            return browser
        } catch {
            let log = (try? String(contentsOf: profile.appendingPathComponent("chromium.log"), encoding: .utf8)) ?? ""
            _ = kill(-pid, SIGKILL)
            _ = await connection.waitForExit(timeout: 10)
            try? FileManager.default.removeItem(at: profile)
            throw Failure("Chromium did not start: \(error)\nchromium.log (end):\n\(log.suffix(2000))")
        }
    }

    /// Closes the browser (`Browser.close`), waits for it to exit (killing its process group if it does not
    /// within `timeout` seconds) and removes the profile folder.
    func close(timeout: Double = 15) async {
        if !connection.hasExited {
            _ = try? await connection.send("Browser.close", timeout: min(timeout, 5))
            if await connection.waitForExit(timeout: timeout) == nil {
                _ = kill(-pid, SIGKILL)
                _ = await connection.waitForExit(timeout: timeout)
            }
        }
        try? FileManager.default.removeItem(at: profile)
    }

    // MARK: Commands

    /// Sends a protocol command to the page (or, with `toBrowser`, to the browser) and returns its `result`.
    func send(_ method: String, _ params: JSONObject = [:], toBrowser: Bool = false,
              timeout: Double? = nil) async throws -> JSONValue {
        try await connection.send(method, params, session: toBrowser ? nil : session,
                                  timeout: timeout ?? commandTimeout)
    }

    /// Loads `url` in the page and waits for its load event (`Page.loadEventFired`).
    func navigate(_ url: String, timeout: Double = 30) async throws {
        let mark = connection.eventMark()
        let result = try await send("Page.navigate", ["url": .string(url)])
        if let error = result["errorText"]?.stringValue, !error.isEmpty {
            throw Failure("navigating to \(url) failed: \(error)")
        }
        // No loaderId: a same-document navigation (a fragment), which fires no load event.
        guard result["loaderId"] != nil else { return }
        _ = try await connection.waitForEvent("Page.loadEventFired", session: session, after: mark, timeout: timeout)
    }

    /// Evaluates `expression` in the page (awaiting a promise) and returns its value as JSON (`undefined` and
    /// values JSON cannot hold answer `.null`). A thrown exception throws `Failure` with its description.
    @discardableResult
    func evaluate(_ expression: String) async throws -> JSONValue {
        let result = try await send("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true,
                                                         "awaitPromise": true, "userGesture": true])
        if let details = result["exceptionDetails"] {
            let text = details["exception"]?["description"]?.stringValue ?? details["text"]?.stringValue ?? "\(details)"
            throw Failure("the page threw: \(text)\nexpression: \(expression)")
        }
        return result["result"]?["value"] ?? .null
    }

    /// Polls `condition` (a JavaScript expression; a promise is awaited) until it is truthy, every
    /// `interval`; throws after `timeout` seconds, with the value of `diagnostics` (an expression) if given and
    /// the page's console log.
    func waitUntil(_ condition: String, timeout: Double = 30, interval: Duration = .milliseconds(50),
                   diagnostics: String? = nil) async throws {
        let check = "(async () => Boolean(await (\n\(condition)\n)))()"
        if try await eventually(timeout: timeout, every: interval, { try await evaluate(check) == .bool(true) }) { return }
        var message = "timed out after \(timeout) s waiting for: \(condition)"
        if let diagnostics {
            let value = (try? await evaluate(diagnostics)).map { "\($0)" } ?? "(could not evaluate)"
            message += "\n\(diagnostics) = \(value)"
        }
        let log = browserLog()
        if !log.isEmpty { message += "\npage log:\n" + log.suffix(40).joined(separator: "\n") }
        throw Failure(message)
    }

    /// Saves a PNG of the page's viewport at `url`, creating its folder.
    func screenshot(to url: URL) async throws {
        let result = try await send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"]?.stringValue, let data = Data(base64Encoded: base64) else {
            throw Failure("Page.captureScreenshot answered no image")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    // MARK: Input

    /// Clicks the middle of the first element matching `selector` with the mouse (it must be visible).
    func click(_ selector: String) async throws {
        let box = try await evaluate("""
            (() => {
              const element = document.querySelector(\(Self.literal(selector)));
              if (!element) return null;
              element.scrollIntoView({ block: 'center', inline: 'center' });
              const rect = element.getBoundingClientRect();
              if (rect.width === 0 || rect.height === 0) return null;
              return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
            })()
            """)
        guard let x = box["x"]?.doubleValue, let y = box["y"]?.doubleValue else {
            throw Failure("no visible element matches \(selector)")
        }
        for type in ["mouseMoved", "mousePressed", "mouseReleased"] {
            var params: JSONObject = ["type": .string(type), "x": .number(x), "y": .number(y)]
            if type != "mouseMoved" {
                params["button"] = "left"
                params["clickCount"] = 1
            }
            _ = try await send("Input.dispatchMouseEvent", params)
        }
    }

    /// Focuses the first element matching `selector` and types `text` into it as keyboard input.
    func type(_ text: String, into selector: String) async throws {
        let focused = try await evaluate("""
            (() => {
              const element = document.querySelector(\(Self.literal(selector)));
              if (!element) return false;
              element.focus();
              return document.activeElement === element;
            })()
            """)
        guard focused == .bool(true) else { throw Failure("cannot focus \(selector)") }
        _ = try await send("Input.insertText", ["text": .string(text)])
    }

    /// `value` as a JavaScript string literal.
    static func literal(_ value: String) -> String {
        JSONWriter.compact(.string(value))
    }

    // MARK: Diagnostics

    /// What the page logged (console calls, uncaught exceptions, and the browser's own entries such as failed
    /// loads and Content-Security-Policy violations), oldest first.
    func browserLog() -> [String] {
        connection.log()
    }

    // MARK: Spawning

    /// Spawns `arguments` (the first is the executable) with a socket at fd 3 and fd 4, stdin from /dev/null
    /// and stdout/stderr appended to `log`, in a new process group. Returns the child's pid and our end of the
    /// socket.
    private static func spawn(_ arguments: [String], log: String) throws -> (pid_t, Int32) {
        var pair: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw Failure("socketpair failed: \(String(cString: strerror(errno)))")
        }
        // The child's end at a high number, so dup2 to 3 and 4 is never a no-op that would keep FD_CLOEXEC.
        let childEnd = fcntl(pair[1], F_DUPFD_CLOEXEC, 10)
        closeDescriptor(pair[1])
        guard childEnd >= 0 else {
            closeDescriptor(pair[0])
            throw Failure("fcntl failed: \(String(cString: strerror(errno)))")
        }
        defer { closeDescriptor(childEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, childEnd, 3)
        posix_spawn_file_actions_adddup2(&actions, childEnd, 4)
        // Pipes of other tests' processes must not leak into the browser (their readers would never see EOF).
        try ChildProcess.closeDescriptors(&actions, from: 5)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        ChildProcess.startInOwnGroupWithDefaultSignals(&attributes)

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment
            .map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard status == 0 else {
            closeDescriptor(pair[0])
            throw Failure("cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return (pid, pair[0])
    }
}

// MARK: - The protocol connection

/// The browser end of the DevTools pipe: writes commands, reads replies and events on a thread of its own,
/// and reaps the browser process on another. Holds no reference to `HeadlessChromium`, so dropping that one
/// kills the browser, which ends both threads.
private final class Connection: Sendable {
    struct Event: Sendable {
        var sequence: Int
        var method: String
        var session: String?
        var params: JSONValue
    }

    private struct EventWaiter {
        var token: Int
        var method: String
        var session: String?
        var after: Int
        var continuation: CheckedContinuation<Event, any Error>
    }

    private struct State {
        var nextID = 1
        var pending: [Int: (method: String, continuation: CheckedContinuation<JSONValue, any Error>)] = [:]
        var events: [Event] = []
        var sequence = 0
        var eventWaiters: [EventWaiter] = []
        var log: [String] = []
        /// Set when the pipe closed: why.
        var closed: String?
        var exitStatus: Int32?
        var exitWaiters: [(token: Int, continuation: CheckedContinuation<Int32?, Never>)] = []
    }

    private let socket: Int32
    private let pid: pid_t
    private let state = Mutex(State())
    private let writeLock = Mutex(())

    init(socket: Int32, pid: pid_t) {
        self.socket = socket
        self.pid = pid
    }

    var hasExited: Bool { state.withLock { $0.exitStatus != nil } }

    func start() {
        Thread.detachNewThread { [self] in readLoop() }
        Thread.detachNewThread { [self] in reap() }
    }

    // MARK: Commands

    func send(_ method: String, _ params: JSONObject = [:], session: String? = nil,
              timeout: Double) async throws -> JSONValue {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var message: JSONObject = ["id": .number(Double(id)), "method": .string(method),
                                            "params": .object(params)]
        if let session { message["sessionId"] = .string(session) }
        var bytes = Data(JSONWriter.compact(.object(message)).utf8)
        bytes.append(0)

        return try await withCheckedThrowingContinuation { continuation in
            let closed: String? = state.withLock { state in
                if let closed = state.closed { return closed }
                state.pending[id] = (method, continuation)
                return nil
            }
            if let closed {
                continuation.resume(throwing: HeadlessChromium.Failure("\(method): \(closed)"))
                return
            }
            if let error = write(bytes) {
                fail(id, HeadlessChromium.Failure("\(method): writing to the browser failed: \(error)"))
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                fail(id, HeadlessChromium.Failure("\(method) got no answer within \(timeout) s"))
            }
        }
    }

    private func fail(_ id: Int, _ error: any Error) {
        let waiter = state.withLock { $0.pending.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
    }

    /// Writes all of `bytes`; answers an error text, or nil.
    private func write(_ bytes: Data) -> String? {
        writeLock.withLock { _ in
            bytes.withUnsafeBytes { buffer -> String? in
                var offset = 0
                while offset < buffer.count {
                    let written = systemSend(socket, buffer.baseAddress! + offset, buffer.count - offset,
                                             Int32(MSG_NOSIGNAL))
                    if written < 0 {
                        if errno == EINTR { continue }
                        return String(cString: strerror(errno))
                    }
                    offset += written
                }
                return nil
            }
        }
    }

    // MARK: Events

    /// The sequence number of the newest event so far: `waitForEvent(after:)` looks only at later ones.
    func eventMark() -> Int {
        state.withLock { $0.sequence }
    }

    /// Waits for an event `method` (of `session`) newer than `mark`.
    func waitForEvent(_ method: String, session: String?, after mark: Int, timeout: Double) async throws -> Event {
        let token = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withCheckedThrowingContinuation { continuation in
            let answer: Result<Event, any Error>? = state.withLock { state in
                if let event = state.events.first(where: {
                    $0.sequence > mark && $0.method == method && $0.session == session
                }) {
                    return .success(event)
                }
                if let closed = state.closed { return .failure(HeadlessChromium.Failure("waiting for \(method): \(closed)")) }
                state.eventWaiters.append(EventWaiter(token: token, method: method, session: session, after: mark,
                                                      continuation: continuation))
                return nil
            }
            if let answer {
                continuation.resume(with: answer)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                let waiter = state.withLock { state -> EventWaiter? in
                    guard let index = state.eventWaiters.firstIndex(where: { $0.token == token }) else { return nil }
                    return state.eventWaiters.remove(at: index)
                }
                waiter?.continuation.resume(throwing: HeadlessChromium.Failure("no \(method) within \(timeout) s"))
            }
        }
    }

    func log() -> [String] {
        state.withLock { $0.log }
    }

    // MARK: The reader thread

    private func readLoop() {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var reason = "the browser closed the pipe"
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(socket, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { reason = "reading from the browser failed: \(String(cString: strerror(errno)))" }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstIndex(of: 0) {
                let message = pending[pending.startIndex..<end]
                pending = Data(pending[(end + 1)...])
                if let value = try? JSONParser.parse(String(decoding: Data(message), as: UTF8.self)) {
                    dispatch(value)
                }
            }
        }
        closeDescriptor(socket)
        let (commands, waiters) = state.withLock { state in
            state.closed = reason
            defer {
                state.pending = [:]
                state.eventWaiters = []
            }
            return (Array(state.pending.values), state.eventWaiters)
        }
        for command in commands {
            command.continuation.resume(throwing: HeadlessChromium.Failure("\(command.method): \(reason)"))
        }
        for waiter in waiters {
            waiter.continuation.resume(throwing: HeadlessChromium.Failure("waiting for \(waiter.method): \(reason)"))
        }
    }

    private func dispatch(_ message: JSONValue) {
        if let id = message["id"]?.intValue {
            guard let waiter = state.withLock({ $0.pending.removeValue(forKey: id) }) else { return }
            if let error = message["error"] {
                let text = error["message"]?.stringValue ?? "\(error)"
                let data = error["data"]?.stringValue.map { " (\($0))" } ?? ""
                waiter.continuation.resume(throwing: HeadlessChromium.Failure("\(waiter.method) failed: \(text)\(data)"))
            } else {
                waiter.continuation.resume(returning: message["result"] ?? [:])
            }
            return
        }
        guard let method = message["method"]?.stringValue else { return }
        let params = message["params"] ?? [:]
        let logLine = Self.logLine(method: method, params: params)
        let ready = state.withLock { state -> [(CheckedContinuation<Event, any Error>, Event)] in
            state.sequence += 1
            let event = Event(sequence: state.sequence, method: method, session: message["sessionId"]?.stringValue,
                              params: params)
            state.events.append(event)
            if state.events.count > 2000 { state.events.removeFirst(state.events.count - 2000) }
            if let logLine {
                state.log.append(logLine)
                if state.log.count > 500 { state.log.removeFirst(state.log.count - 500) }
            }
            var ready: [(CheckedContinuation<Event, any Error>, Event)] = []
            state.eventWaiters.removeAll { waiter in
                guard waiter.method == event.method, waiter.session == event.session, event.sequence > waiter.after
                else { return false }
                ready.append((waiter.continuation, event))
                return true
            }
            return ready
        }
        for (continuation, event) in ready { continuation.resume(returning: event) }
    }

    /// A line for the page log from a console call or an uncaught exception; nil for other events.
    private static func logLine(method: String, params: JSONValue) -> String? {
        switch method {
        case "Runtime.consoleAPICalled":
            let arguments = params["args"]?.arrayValue ?? []
            let text = arguments.map { argument in
                argument["value"].map { $0.stringValue ?? "\($0)" } ?? argument["description"]?.stringValue ?? "?"
            }
            return "console.\(params["type"]?.stringValue ?? "log"): " + text.joined(separator: " ")
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"]
            return "exception: " + (details?["exception"]?["description"]?.stringValue ?? details?["text"]?.stringValue ?? "?")
        case "Log.entryAdded":
            return "log: " + (params["entry"]?["text"]?.stringValue ?? "?")
        default:
            return nil
        }
    }

    // MARK: The reaper thread

    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR {
                status = -1
                break
            }
        }
        let waiters = state.withLock { state in
            state.exitStatus = status
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: status) }
    }

    /// Waits up to `timeout` seconds for the browser to exit; its wait status, or nil if it is still running.
    func waitForExit(timeout: Double) async -> Int32? {
        let token = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withCheckedContinuation { continuation in
            let status: Int32?? = state.withLock { state in
                if let status = state.exitStatus { return .some(status) }
                state.exitWaiters.append((token, continuation))
                return nil
            }
            if let status {
                continuation.resume(returning: status)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                let waiter = state.withLock { state -> CheckedContinuation<Int32?, Never>? in
                    guard let index = state.exitWaiters.firstIndex(where: { $0.token == token }) else { return nil }
                    return state.exitWaiters.remove(at: index).continuation
                }
                waiter?.resume(returning: nil)
            }
        }
    }
}

// The C calls whose names the types above use for methods.

private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func systemSend(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, buffer, count, flags)
}
