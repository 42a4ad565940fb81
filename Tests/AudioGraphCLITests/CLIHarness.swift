import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the real `audiograph` binary (and sox) as child processes for the CLI tests.
///
/// stdout and stderr go to files in the test's temp folder, so a chatty child can never block on a full pipe.
/// Every process gets a watchdog: past `timeout` it is killed with SIGKILL and the test records a failure
/// instead of hanging.
enum Harness {
    /// The most a single child process may take before it is killed.
    static let timeout: Double = 180

    /// The built `audiograph` executable: `AUDIOGRAPH_BINARY` when set, else the one in the build products
    /// folder that holds the test bundle (`swift build --build-tests` builds both there).
    static func binary() throws -> URL {
        if let override = ProcessInfo.processInfo.environment["AUDIOGRAPH_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        var candidates: [URL] = []
        // On Linux the test bundle is an executable (…/debug/audiographPackageTests.xctest) and Bundle.main
        // is the products folder itself; on macOS the .xctest is a bundle inside the products folder.
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent("audiograph"))
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("audiograph"))
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("audiograph"))
        }
        if let executable = CommandLine.arguments.first {
            let url = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
            candidates.append(url.deletingLastPathComponent().appendingPathComponent("audiograph"))
        }
        // Last resort: the package's default build folder.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/audiograph"))
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw HarnessError("cannot find the audiograph binary; looked at "
            + candidates.map(\.path).joined(separator: ", ") + "; set AUDIOGRAPH_BINARY")
    }

    /// Runs `audiograph` with `arguments` in `directory` and waits for it to exit.
    /// `limit`: the seconds before the watchdog kills it (`timeout` unless told).
    static func audiograph(_ arguments: [String], in directory: TemporaryFolder, limit: Double = timeout,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        try await run(binary(), arguments, in: directory, limit: limit, sourceLocation: sourceLocation)
    }

    /// Runs `audiograph` under `/bin/sh` after `prelude` (for example `ulimit -f 8`).
    static func audiograph(_ arguments: [String], in directory: TemporaryFolder, shellPrelude prelude: String,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let script = prelude + "; exec \"$0\" \"$@\""
        return try await run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, try binary().path] + arguments,
                             in: directory, sourceLocation: sourceLocation)
    }

    /// Runs `executable` with `arguments` in `directory` (and `environment`, else this process's) and waits for
    /// it to exit.
    static func run(_ executable: URL, _ arguments: [String], in directory: TemporaryFolder,
                    environment: [String: String]? = nil, limit: Double = timeout,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        let name = UUID().uuidString
        let outURL = directory.url.appendingPathComponent(".\(name).stdout")
        let errURL = directory.url.appendingPathComponent(".\(name).stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let exit = try await runToExit(process, limit: limit)
        try out.close()
        try err.close()

        let result = CLIResult(arguments: arguments, status: exit.status, signalled: exit.signalled,
                               timedOut: exit.timedOut,
                               stdout: try String(contentsOf: outURL, encoding: .utf8),
                               stderr: try String(contentsOf: errURL, encoding: .utf8))
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
        if result.timedOut {
            var message = "\(executable.lastPathComponent) \(arguments) did not exit within \(Int(limit)) s; killed"
            if let backtrace = exit.backtrace { message += "; its threads then:\n" + backtrace }
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        return result
    }

    struct Exit: Sendable {
        var status: Int32
        var signalled: Bool
        var timedOut: Bool
        /// A timed-out child's threads (gdb's `thread apply all bt`) just before it was killed, when gdb is there.
        var backtrace: String? = nil
    }

    /// Every thread's stack of the process `pid` from gdb (at most 60 s), nil without gdb. Run on the watchdog's
    /// dispatch thread, never on a concurrency thread.
    static func threadBacktraces(of pid: Int32) -> String? {
        let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
        guard FileManager.default.isExecutableFile(atPath: gdb.path) else { return nil }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["60", gdb.path, "-p", "\(pid)", "-batch", "-nx", "-ex", "thread apply all bt"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let frames = text.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }
        return frames.isEmpty ? text : frames.joined(separator: "\n")
    }

    /// Starts `process` and waits for it without blocking a concurrency thread: Foundation calls the
    /// termination handler on a thread of its own. A watchdog kills the process after `limit` seconds (`timeout`
    /// unless told), having first asked gdb for its threads' stacks.
    static func runToExit(_ process: ChildProcess, limit: Double = timeout,
                          onStart: (@Sendable () -> Void)? = nil) async throws -> Exit {
        let state = Mutex<(exited: Bool, timedOut: Bool, backtrace: String?)>((false, false, nil))
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Exit, any Error>) in
            process.terminationHandler = { finished in
                let (timedOut, backtrace) = state.withLock { state in
                    state.exited = true
                    return (state.timedOut, state.backtrace)
                }
                continuation.resume(returning: Exit(status: finished.terminationStatus,
                                                    signalled: finished.terminationReason == .uncaughtSignal,
                                                    timedOut: timedOut, backtrace: backtrace))
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
                let overdue = state.withLock { state in
                    if state.exited { return false }
                    state.timedOut = true
                    return true
                }
                guard overdue else { return }
                let backtrace = threadBacktraces(of: pid)
                state.withLock { $0.backtrace = backtrace }
                _ = kill(pid, SIGKILL)
            }
            onStart?()
        }
    }

    /// What `interruptedRun` saw.
    struct InterruptedRun {
        /// Whether the run printed an event line before it ended (SIGINT is sent only then).
        var running: Bool
        var exit: Exit
        /// Seconds from the start of the run to its exit.
        var elapsed: TimeInterval
        var stdout: String
        var stderr: String
        /// The exit, stdout and stderr, for assertion messages.
        var report: String
    }

    /// Runs `audiograph run CONFIG --events jsonl` in `directory` (stdout read as it comes, stderr to
    /// `stderr.txt` there), waits for its first event line (proof that the graph runs), then sends SIGINT
    /// (Ctrl-C); returns once the child has exited.
    ///
    /// `until`: wait further, until the event lines so far satisfy it, before the SIGINT (a condition instead of
    /// a time, e.g. "a level event at stream time 0.7 s").
    static func interruptedRun(_ config: String, in directory: TemporaryFolder,
                               until condition: (@Sendable ([String]) -> Bool)? = nil) async throws -> InterruptedRun {
        let process = ChildProcess()
        process.executableURL = try binary()
        process.arguments = ["run", config, "--events", "jsonl"]
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        process.standardOutput = stdout
        let errURL = directory.url.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let stderr = try FileHandle(forWritingTo: errURL)
        process.standardError = stderr

        let reader = PipeReader(stdout)
        let started = Date()
        let exit = Task { try await runToExit(process, onStart: { reader.start() }) }

        var running = await reader.firstLine()
        if running, let condition { running = await reader.waitFor(condition) }
        if running { process.interrupt() }

        let status = try await exit.value
        let elapsed = Date().timeIntervalSince(started)
        let output = String(decoding: await reader.all(), as: UTF8.self)
        try stderr.close()
        let errors = try String(contentsOf: errURL, encoding: .utf8)
        let report = "exit \(status.status) signalled \(status.signalled)\nstdout:\n\(output)\nstderr:\n\(errors)"
        return InterruptedRun(running: running, exit: status, elapsed: elapsed, stdout: output, stderr: errors,
                              report: report)
    }

    // MARK: Audio fixtures

    /// Writes a sine WAV with sox: `sox -n -r RATE -c CHANNELS NAME synth SECONDS sine 440 vol 0.5`.
    @discardableResult
    static func makeWAV(_ name: String, in directory: TemporaryFolder, sampleRate: Int = 44100, channels: Int = 2,
                        seconds: Double = 1) async throws -> URL {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/env"),
                                   ["sox", "-n", "-r", "\(sampleRate)", "-c", "\(channels)", name,
                                    "synth", "\(seconds)", "sine", "440", "vol", "0.5"], in: directory)
        guard result.status == 0 else { throw HarnessError("sox failed: \(result.stderr)") }
        return directory.url.appendingPathComponent(name)
    }

    /// `soxi -D`, `-r` or `-c` of a file, as a number.
    static func soxi(_ flag: String, _ path: String, in directory: TemporaryFolder) async throws -> Double {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/env"), ["soxi", flag, path], in: directory)
        guard result.status == 0, let value = Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("soxi \(flag) \(path) failed (\(result.status)): \(result.stderr)")
        }
        return value
    }
}

/// A child process started by `Harness.startAnnounced`, once its stderr printed the line it was waited for.
///
/// `@unchecked Sendable`: `Pipe` is not `Sendable`; it is set once and only read.
struct AnnouncedProcess: @unchecked Sendable {
    /// The announcing line, without the prefix waited for.
    let announcement: String
    let process: ChildProcess
    /// Kept alive while the reader reads it.
    let stderrPipe: Pipe
    /// The child's stderr, read as it comes.
    let stderr: PipeReader
    let exit: Task<Harness.Exit, any Error>
}

extension Harness {
    private final class LineBox: Sendable {
        let line = Mutex<String?>(nil)
    }

    /// Runs `process` (its stdout to /dev/null, its stderr read as it comes) and waits for a stderr line that
    /// starts with `prefix`: a server saying where it listens. When the process exits first, throws with what
    /// it printed, naming it `name`; a hang ends with the harness's watchdog killing it.
    static func startAnnounced(_ process: ChildProcess, prefix: String, name: String) async throws -> AnnouncedProcess {
        process.standardOutput = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardError = pipe
        let reader = PipeReader(pipe)
        let exit = Task { try await Harness.runToExit(process, onStart: { reader.start() }) }
        let found = LineBox()
        let announced = await reader.waitFor { lines in
            guard let line = lines.first(where: { $0.hasPrefix(prefix) }) else { return false }
            found.line.withLock { $0 = line }
            return true
        }
        guard announced, let line = found.line.withLock({ $0 }) else {
            let status = try await exit.value
            let text = String(decoding: await reader.all(), as: UTF8.self)
            throw HarnessError("\(name) never printed \"\(prefix)…\" (exit \(status.status)):\n\(text)")
        }
        return AnnouncedProcess(announcement: String(line.dropFirst(prefix.count)), process: process,
                                stderrPipe: pipe, stderr: reader, exit: exit)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What a child process did.
struct CLIResult: Sendable, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var signalled: Bool
    var timedOut: Bool
    var stdout: String
    var stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

    var description: String {
        "audiograph \(arguments.joined(separator: " ")) -> \(signalled ? "signal" : "exit") \(status)\n"
            + "stdout:\n\(stdout)\nstderr:\n\(stderr)"
    }
}

/// Parses one line of `--events jsonl` output.
func parseJSONObject(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any]? {
    guard let data = line.data(using: .utf8),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation)
        return nil
    }
    return object
}

/// Checks the error conventions: the exit status, nothing on stdout, and one `audiograph: <where>: <what>`
/// line on stderr starting with `location`.
/// A nil `location` expects `audiograph: <what>` (errors with no place, like a missing argument).
func expectError(_ result: CLIResult, exit status: Int32, at location: String?,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    #expect(!result.signalled, "\(result)", sourceLocation: sourceLocation)
    #expect(result.stdout.isEmpty, "errors must leave stdout empty\n\(result)", sourceLocation: sourceLocation)
    let prefix = location.map { "audiograph: \($0): " } ?? "audiograph: "
    #expect(result.stderrLines.contains { $0.hasPrefix(prefix) && $0.count > prefix.count },
            "stderr should have a line \"\(prefix)<what>\"\n\(result)", sourceLocation: sourceLocation)
}

/// Reads a child's pipe on a thread of its own, so a test can wait until what has arrived satisfies a condition
/// (a first complete line, or lines that show the run got somewhere) and later collect all of it. The caller
/// keeps the `Pipe` alive until `all()` returns.
final class PipeReader: Sendable {
    private struct State {
        var data = Data()
        var finished = false
        var waiters: [(condition: @Sendable (Data) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        var endWaiters: [CheckedContinuation<Data, Never>] = []
    }

    private let descriptor: Int32
    private let state = Mutex(State())

    init(_ pipe: Pipe) {
        descriptor = pipe.fileHandleForReading.fileDescriptor
    }

    /// Starts reading; call once the child runs (the child process closes our copy of the write end then).
    func start() {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                state.withLock { state in
                    state.data.append(contentsOf: buffer[0..<count])
                    let data = state.data
                    state.waiters.removeAll { waiter in
                        guard waiter.condition(data) else { return false }
                        waiter.continuation.resume(returning: true)
                        return true
                    }
                }
            }
            state.withLock { state in
                state.finished = true
                for waiter in state.waiters { waiter.continuation.resume(returning: false) }
                for waiter in state.endWaiters { waiter.resume(returning: state.data) }
                state.waiters = []
                state.endWaiters = []
            }
        }
    }

    /// True once the bytes so far satisfy `condition`; false if the pipe closed first.
    func waitFor(data condition: @escaping @Sendable (Data) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if condition(state.data) {
                    continuation.resume(returning: true)
                } else if state.finished {
                    continuation.resume(returning: false)
                } else {
                    state.waiters.append((condition, continuation))
                }
            }
        }
    }

    /// Waits until a complete line has arrived (true) or the pipe closed without one (false).
    func firstLine() async -> Bool {
        await waitFor(data: { $0.contains(UInt8(ascii: "\n")) })
    }

    /// True once the complete lines so far satisfy `condition`; false if the pipe closed first.
    func waitFor(_ condition: @escaping @Sendable ([String]) -> Bool) async -> Bool {
        await waitFor(data: { condition(Self.lines($0)) })
    }

    /// The complete lines read so far.
    func linesSoFar() -> [String] {
        Self.lines(state.withLock { $0.data })
    }

    /// Waits for the end of the stream and returns everything read.
    func all() async -> Data {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if state.finished {
                    continuation.resume(returning: state.data)
                } else {
                    state.endWaiters.append(continuation)
                }
            }
        }
    }

    /// Every complete line, once the pipe has closed.
    func allLines() async -> [String] {
        Self.lines(await all())
    }

    /// The complete lines of `data` (up to its last newline), empty ones left out.
    private static func lines(_ data: Data) -> [String] {
        guard let end = data.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        return String(decoding: data[..<end], as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
