import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing
@testable import AudioGraphIO

// Helpers for the microphone tests: the sound server they need, private null sinks, a second daemon that
// refuses clients, and running a graph in the background while a test feeds the "microphone".

enum SoundServer {
    /// Set by scripts/test.sh and CI: the server must be there, so tests that need it fail instead of skipping.
    static let required = ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_SOUND_SERVER"] == "1"

    /// Whether the default server answers (`pactl info`).
    static let reachable: Bool = (try? command("pactl", ["info"]).status) == 0

    /// Tests that capture for real run when the server is up, and in CI (where its absence is a failure).
    static let enabled = reachable || required
    static let skipReason: Comment = "no PulseAudio/PipeWire server: run scripts/start-pulseaudio.sh"

    /// Runs a program (found on PATH) to the end and returns its status and standard output.
    @discardableResult
    static func command(_ name: String, _ arguments: [String],
                        environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A null sink of its own on the default server, so concurrent tests (a session test playing into
/// `audiograph_test`) cannot leak into what this test hears. Unloaded by `remove()`.
final class PrivateSink {
    let name: String
    private let module: String

    init() throws {
        name = "agmic_" + UUID().uuidString.prefix(8).lowercased()
        let result = try SoundServer.command("pactl", ["load-module", "module-null-sink", "sink_name=\(name)"])
        guard result.status == 0 else { throw TestFailure("pactl load-module failed (status \(result.status))") }
        module = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The sink's monitor: the "microphone" that hears what is played into the sink.
    var monitor: String { name + ".monitor" }

    func remove() { _ = try? SoundServer.command("pactl", ["unload-module", module]) }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A second PulseAudio daemon that requires a cookie nobody has: it listens on 127.0.0.1 over TCP (where the
/// native protocol cannot fall back to trusting the peer's uid, as it does on a unix socket) with
/// `auth-anonymous=0` and a freshly made random cookie. Any client of ours sends its own cookie, so the server
/// answers PA_ERR_ACCESS: a real "permission denied".
final class RefusingSoundServer {
    /// The daemon's own folder (cookie, log, runtime and state), removed after the daemon stops.
    private let folder: TemporaryFolder
    let cookiePath: String
    private(set) var address = ""
    private var pid: pid_t?

    var directory: URL { folder.url }

    init() throws {
        folder = try TemporaryFolder(prefix: "agmic-deny")
        cookiePath = folder.path("cookie")
        var cookie = [UInt8](repeating: 0, count: 256)
        for index in cookie.indices { cookie[index] = UInt8.random(in: 0...255) }
        try Data(cookie).write(to: URL(fileURLWithPath: cookiePath))
        // A port that was free a moment ago can be taken before the daemon binds it: try a few.
        for _ in 0..<3 {
            if try launch(port: try freeLoopbackPort()) { return }
        }
        throw TestFailure("could not start a second pulseaudio daemon (log: \(directory.path)/log.txt)")
    }

    /// Starts the daemon on `port`; false if it could not listen there.
    ///
    /// It daemonizes (`-D`): the command returns once the daemon is ready, and the daemon is not a child that
    /// Foundation's `Process` watches (a daemon closes every inherited descriptor, which `Process` takes for
    /// an exit and then blocks in `waitpid` on a process that never ends). Its pid file is in its own runtime
    /// folder, so `stop()` ends exactly it.
    private func launch(port: UInt16) throws -> Bool {
        let runtime = directory.appendingPathComponent("runtime")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "pulseaudio", "-D", "-n", "--exit-idle-time=-1", "--log-target=file:\(directory.path)/log.txt",
            "-L", "module-null-sink sink_name=refusing",
            "-L", "module-native-protocol-tcp port=\(port) listen=127.0.0.1 auth-anonymous=0 auth-cookie=\(cookiePath)",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_RUNTIME_PATH"] = runtime.path
        environment["PULSE_STATE_PATH"] = directory.appendingPathComponent("state").path
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return false }
        let pidText = try String(contentsOf: runtime.appendingPathComponent("pid"), encoding: .utf8)
        pid = pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines))
        address = "tcp:127.0.0.1:\(port)"
        let probe = address
        let answers = blockingEventually(timeout: 15) {
            do throws(MicrophoneError) {
                try MicrophoneAccess.check(server: probe)
                return true
            } catch {
                return error.kind != .unavailable
            }
        }
        if answers { return true }
        stop()
        return false
    }

    /// Whether `pactl` holding the right cookie gets in (proves the refusal is about the cookie).
    func acceptsRightCookie() throws -> Bool {
        try SoundServer.command("pactl", ["info"], environment: ["PULSE_SERVER": address, "PULSE_COOKIE": cookiePath])
            .status == 0
    }

    /// Ends the daemon (by the pid it wrote) and waits, bounded, until it is gone.
    func stop() {
        guard let pid else { return }
        self.pid = nil
        kill(pid, SIGTERM)
        _ = blockingEventually(timeout: 10) { kill(pid, 0) != 0 }
    }

    deinit {
        stop()
    }
}

/// A TCP port on 127.0.0.1 that the kernel just handed out (bind to port 0, read it back, close).
private func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else { throw TestFailure("bind() failed") }
    return UInt16(bigEndian: address.sin_port)
}


/// A graph run on a thread of its own, so the test can feed the microphone and decide when to stop.
final class BackgroundRun: Sendable {
    let runtime: GraphRuntime
    private let outcome = Mutex<Result<RunSummary, GraphError>?>(nil)
    private let warningList = Mutex<[String]>([])
    private let done = DispatchSemaphore(value: 0)

    init(_ graph: Graph) {
        runtime = GraphRuntime(graph: graph)
        let runtime = self.runtime
        let thread = Thread { [self] in
            let result: Result<RunSummary, GraphError>
            do throws(GraphError) {
                result = .success(try runtime.run(onWarning: { warning in self.warningList.withLock { $0.append(warning) } }))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.start()
    }

    var warnings: [String] { warningList.withLock { $0 } }
    var isFinished: Bool { outcome.withLock { $0 != nil } }

    /// Waits for the run to end (bounded); nil if it did not.
    func wait(timeout: Double = 20) -> Result<RunSummary, GraphError>? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        done.signal()   // later waits return at once
        return outcome.withLock { $0 }
    }

    /// Cancels the run (as SIGINT does) and waits for it to end.
    func cancelAndWait(timeout: Double = 20) -> Result<RunSummary, GraphError>? {
        runtime.cancel()
        return wait(timeout: timeout)
    }
}

/// A registry with the microphone, the recording sink, a wav sink and the test's slow consumer.
func microphoneRegistry() -> NodeRegistry {
    var registry = NodeRegistry()
    for type in [MicSourceNode.self, RecordingSinkNode.self, WavSinkNode.self, SlowQueuedNode.self, SlowInlineNode.self]
        as [any AudioNode.Type] {
        try! registry.register(type)
    }
    return registry
}

/// Builds a graph from nodes and links given as JSON fragments.
func buildMicrophoneGraph(_ nodes: String, links: String) throws(GraphError) -> Graph {
    let json = "{\"version\": 1, \"nodes\": {\(nodes)}, \"links\": [\(links)]}"
    let spec = try ConfigLoader.parse(json, baseDirectory: FileManager.default.temporaryDirectory.path,
                                      fileName: "mic-test.json")
    return try GraphBuilder(registry: microphoneRegistry()).build(spec)
}

/// The work per buffer of `test-slow` and `test-slow-inline`.
let slowDelayMs = Parameter.integer("delayMs", range: 0...10_000, default: 50, doc: "Work per buffer.")

/// `test-slow`: passes audio on from a 2-frame queue, taking `delayMs` per buffer — a recognizer that cannot
/// keep up with live capture.
final class SlowQueuedNode: AudioNode, @unchecked Sendable {
    static let descriptor = NodeDescriptor(
        type: "test-slow", summary: "Slow consumer behind a small queue.", category: .filter,
        parameters: [slowDelayMs.spec],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [], forwardsInput: true)],
        execution: .queued(capacity: 2))

    private let delay: Double
    init(configuration: NodeConfiguration) throws {
        delay = Double(configuration[slowDelayMs]) / 1000
    }

    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        Thread.sleep(forTimeInterval: delay)
        context.emit(buffer)
    }
}

/// `test-slow-inline`: the same work, inline on the thread that feeds it (the microphone's).
final class SlowInlineNode: AudioNode, @unchecked Sendable {
    static let descriptor = NodeDescriptor(
        type: "test-slow-inline", summary: "Slow inline filter.", category: .filter,
        parameters: [slowDelayMs.spec],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [], forwardsInput: true)])

    private let delay: Double
    init(configuration: NodeConfiguration) throws {
        delay = Double(configuration[slowDelayMs]) / 1000
    }

    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        Thread.sleep(forTimeInterval: delay)
        context.emit(buffer)
    }
}

/// The repository's `Tests` folder.
let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

/// Reads a mono sound file whole.
func readMono(_ path: String) throws -> (sampleRate: Int, samples: [Float]) {
    let reader = try SoundFileReader(path: path)
    defer { reader.close() }
    precondition(reader.channels == 1)
    return try (reader.sampleRate, readSamples(reader, framesPerRead: 65536))
}

/// RMS of consecutive windows of `window` samples.
func rmsEnvelope(_ samples: [Float], window: Int) -> [Double] {
    stride(from: 0, to: samples.count - window + 1, by: window).map { start in
        var sum = 0.0
        for sample in samples[start..<(start + window)] { sum += Double(sample) * Double(sample) }
        return (sum / Double(window)).squareRoot()
    }
}

/// Pearson correlation of two equally long series.
func correlation(_ a: ArraySlice<Double>, _ b: ArraySlice<Double>) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    let meanA = a.reduce(0, +) / Double(a.count), meanB = b.reduce(0, +) / Double(b.count)
    var ab = 0.0, aa = 0.0, bb = 0.0
    for (x, y) in zip(a, b) {
        ab += (x - meanA) * (y - meanB)
        aa += (x - meanA) * (x - meanA)
        bb += (y - meanB) * (y - meanB)
    }
    return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
}

/// Where `reference` best matches inside `signal`: the offset with the highest Pearson correlation.
func bestAlignment(of reference: [Double], in signal: [Double]) -> (offset: Int, correlation: Double) {
    guard signal.count >= reference.count else { return (0, 0) }
    var best = (offset: 0, correlation: -2.0)
    for offset in 0...(signal.count - reference.count) {
        let r = correlation(reference[...], signal[offset..<(offset + reference.count)])
        if r > best.correlation { best = (offset, r) }
    }
    return best
}

/// Cosine similarity of `a` and the same length of `b` from `offset` (the waveforms are zero-mean audio).
func normalizedDot(_ a: [Double], _ b: [Double], at offset: Int) -> Double {
    precondition(offset >= 0 && offset + a.count <= b.count)
    return a.withUnsafeBufferPointer { a in
        b.withUnsafeBufferPointer { b in
            var ab = 0.0, aa = 0.0, bb = 0.0
            for index in 0..<a.count {
                let x = a[index], y = b[offset + index]
                ab += x * y
                aa += x * x
                bb += y * y
            }
            return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
        }
    }
}
