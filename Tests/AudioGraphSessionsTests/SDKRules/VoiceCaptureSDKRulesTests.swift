import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// A source for the capture tests: `blocks` blocks of a tone, then it throws (a device that vanished), or, with
/// `denyAtStart`, a refusal at open time worded as `mic-source` words a sound server's refusal.
final class FailingSourceNode: SourceNode, @unchecked Sendable {
    static let blocksParameter = Parameter.integer("blocks", range: 0...10_000, default: 5, doc: "Blocks before failing.")
    static let denyAtStartParameter = Parameter.boolean("denyAtStart", default: false,
                                                        doc: "Refuse at start as a denied microphone.")
    static let tagParameter = Parameter.string("tag", default: "", doc: "Named in `failed` once the failure is thrown.")
    static let descriptor = NodeDescriptor(
        type: "test-failing-source", summary: "Fails after some blocks, or refuses at start.", category: .source,
        parameters: [blocksParameter.spec, denyAtStartParameter.spec, tagParameter.spec],
        inputs: [], outputs: [.init(produces: [.audio], forwardsInput: false)])
    let format = AudioFormat(sampleRate: 16000, channels: 1)
    private let blocks: Int
    private let deny: Bool
    private let configuration: NodeConfiguration
    private var emitted = 0  // the source thread only
    private let tag: String
    /// The tags of the sources whose failure is under way: once a tag is here, the error reaches the graph
    /// whatever a later stop does (the throw is already in the source's `produce`).
    static let failed = Mutex<Set<String>>([])

    init(configuration: NodeConfiguration) throws {
        blocks = configuration[Self.blocksParameter]
        deny = configuration[Self.denyAtStartParameter]
        tag = configuration[Self.tagParameter]
        self.configuration = configuration
    }

    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    func start(_ context: NodeContext) throws {
        if deny {
            throw MicrophoneError(kind: .permissionDenied, message: MicrophoneError.permissionDeniedPrefix + ": Access denied")
                .graphError(for: configuration)
        }
    }

    func produce(_ context: NodeContext) throws -> SourceStatus {
        guard emitted < blocks else {
            let tag = tag
            Self.failed.withLock { _ = $0.insert(tag) }
            throw MicrophoneError(kind: .io, message: "reading the microphone failed: the server went away").graphError(for: configuration)
        }
        context.emit(AudioBuffer(format: format, samples: Signals.sine(frequency: 300, seconds: 0.1, sampleRate: 16000),
                                 position: Int64(emitted * 1600)))
        emitted += 1
        return .more
    }
}

/// Issue 17, item 5: the calls SDK's remaining rules for sessions and requests: errors are `LocalizedError`s
/// (`localizedDescription` is the message), `speechRecognitionPermissionDenied` for a model that exists but
/// cannot be read, `cancel()` on an idle capture is a no-op, and the mid-recording failure and the
/// microphone-permission paths at the session level.
@Suite(.serialized, .ownThreads) struct VoiceCaptureSDKRulesTests {
    func registry() -> NodeRegistry {
        var registry = NodeRegistry.builtins
        try? registry.register(FailingSourceNode.self, origin: "test")
        return registry
    }

    func capture(_ folder: URL, source: JSONObject, recognizer: JSONObject = JSONObject()) -> VoiceCaptureSession {
        let configuration = VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "test-failing-source", parameters: source), recognizer: recognizer,
            temporaryDirectory: folder)
        return VoiceCaptureSession(configuration: configuration, registry: registry())
    }

    @Test func errorsAreLocalizedWithTheirMessage() {
        let errors: [any Error] = [
            VoiceCaptureError.recognizerUnavailable("no model at /m.bin"), VoiceCaptureError.cancelled,
            VoiceCaptureError.speechRecognitionPermissionDenied("model: /m.bin: Permission denied"),
            TranscriptionSessionError.notRunning,
            TranscriptionSessionError.unsupportedLanguage(code: "de-DE", engine: "pocketsphinx", supported: ["en-US"]),
            TranscriptsError.sessionIdMissing, TranscriptsError.requestInProgress, TranscriptsError.noAuthToken,
            SessionControlHidden(control: .captions),
        ]
        for error in errors {
            #expect(error.localizedDescription == String(describing: error), "\(type(of: error))")
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
        #expect(VoiceCaptureError.recognizerUnavailable("no model").localizedDescription == "recognizer unavailable: no model")
    }

    @Test func cancelOnAnIdleCaptureIsANoOp() async throws {
        let folder = try TemporaryFolder(prefix: "sdk-rules")
        let session = capture(folder.url, source: ["blocks": 10_000])
        try await session.cancel()
        try await session.cancel()
        #expect(await session.state == .idle)
        try await session.startRecording()  // still usable
        #expect(await session.state == .recording)
        try await session.cancel()
        #expect(await session.state == .idle)
        try await session.cancel()
    }

    @Test func theSourceFailingMidRecordingIsRecordingFailedAndLeavesNothing() async throws {
        let folder = try TemporaryFolder(prefix: "sdk-rules")
        let tag = UUID().uuidString
        let session = capture(folder.url, source: ["blocks": 5, "tag": .string(tag)])
        try await session.startRecording()
        #expect(await session.state == .recording)
        // Stop only once the source is failing: a stop that came first ended a healthy recording (seen in CI).
        try await eventually("the source fails") { FailingSourceNode.failed.withLock { $0.contains(tag) } }
        do {
            _ = try await session.stopAndTranscribe()
            Issue.record("a recording whose source failed was transcribed")
        } catch {
            guard case .recordingFailed(let why) = error else {
                Issue.record("expected recordingFailed, got \(error)")
                return
            }
            #expect(why.contains("the server went away"), "\(why)")
            #expect(error.localizedDescription.hasPrefix("recording failed: "))
        }
        #expect(await session.state == .idle)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? ["?"]).isEmpty, "the recording is deleted")
        try await session.startRecording()  // the session recovers
        try await session.cancel()
    }

    @Test func aDeniedMicrophoneIsMicrophonePermissionDeniedBeforeAnythingRecords() async throws {
        let folder = try TemporaryFolder(prefix: "sdk-rules")
        let session = capture(folder.url, source: ["denyAtStart": true])
        let states = Mutex<[VoiceCaptureState]>([])
        let watcher = Task { for await state in session.states() { states.withLock { $0.append(state) } } }
        await #expect(throws: VoiceCaptureError.self) { try await session.startRecording() }
        do {
            try await session.startRecording()
        } catch {
            guard case .microphonePermissionDenied(let why) = error else {
                Issue.record("expected microphonePermissionDenied, got \(error)")
                return
            }
            #expect(why.contains("Access denied"))
            #expect(error.code == "microphone_permission_denied")
        }
        #expect(await session.state == .idle)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? ["?"]).isEmpty)
        watcher.cancel()
        #expect(states.withLock { $0 }.contains(.requestingPermissions))
    }

    /// The check reads with the calling thread's file-system credentials. The tests run as root, whom no mode
    /// bit stops, so the denied case runs on a thread that gave up root for file access (`setfsuid`, which is
    /// per thread on Linux and drops the file capabilities with it): the kernel itself refuses the open.
    @Test func aModelThatExistsButCannotBeReadIsAPermission() throws {
        let folder = try TemporaryFolder(prefix: "sdk-rules")
        let model = folder.url.appendingPathComponent("model.bin")
        try Data([1, 2, 3]).write(to: model)
        #expect(ModelFileAccessProbe.reason(model.path, asUser: nil) == nil, "readable")
        #expect(ModelFileAccessProbe.reason(folder.url.appendingPathComponent("missing.bin").path, asUser: nil) == nil,
                "a missing model is left to recognizerUnavailable")
        #expect(chmod(model.path, 0) == 0)
        #expect(chmod(folder.path, 0o755) == 0)
        let denied = ModelFileAccessProbe.reason(model.path, asUser: 65534)
        #expect(denied?.contains("model: \(model.path): Permission denied") == true, "\(String(describing: denied))")
    }
}

/// Runs `ModelFileAccess.unreadable` on a thread of its own, optionally with file-system uid `asUser`.
enum ModelFileAccessProbe {
    /// glibc's `setfsuid` (its header, sys/fsuid.h, is not in Swift's Glibc module).
    static let setfsuid: @convention(c) (UInt32) -> Int32 = {
        guard let symbol = dlsym(nil, "setfsuid") else { fatalError("no setfsuid in libc") }
        return unsafeBitCast(symbol, to: (@convention(c) (UInt32) -> Int32).self)
    }()

    static func reason(_ path: String, asUser user: UInt32?) -> String? {
        let result = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            if let user { _ = setfsuid(user) }
            result.withLock { $0 = VoiceCaptureSession.unreadableModel(in: ["model": .string(path)]) }
            if user != nil { _ = setfsuid(0) }
            done.signal()
        }
        thread.start()
        done.wait()
        return result.withLock { $0 }
    }
}
