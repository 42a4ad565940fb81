import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// A recognizer engine whose final waits for the test (a gate), or fails, for the transcribing-state tests.
final class GatedRecognizer: SpeechRecognizer, @unchecked Sendable {
    static let gate = DispatchSemaphore(value: 0)
    static let reachedEnd = Atomic<Int>(0)
    static let failing = Atomic<Bool>(false)
    let capabilities = RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: false,
                                              languages: ["en-US"], sampleRate: 16000)
    private var fed = 0
    func startUtterance() throws { fed = 0 }
    func process(_ samples: UnsafeBufferPointer<Float>) throws { fed += samples.count }
    func partialHypothesis() -> String { "" }
    func endUtterance() throws -> RecognitionResult {
        if Self.failing.load(ordering: .acquiring) { throw GraphError(.nodeFailed, at: "node asr", "engine crashed") }
        Self.reachedEnd.add(1, ordering: .releasing)
        Self.gate.wait()
        return RecognitionResult(text: "gated words", confidence: 1)
    }

    static let engine = RecognizerEngine(name: "test-gated", summary: "Waits for the test.",
                                         capabilities: { _ in GatedRecognizer().capabilities },
                                         make: { _ in GatedRecognizer() })
}

@Suite(.serialized, .ownThreads) struct VoiceCaptureSessionTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("AudioGraphSpeechTests/Fixtures")

    /// A session whose "microphone" is a real-time file source (the graph is the same as with a microphone).
    func session(_ folder: TemporaryFolder, clip: String = "goforward", realtime: Bool = true,
                 recognizer: JSONObject = JSONObject()) -> VoiceCaptureSession {
        _ = try? RecognizerEngines.register(GatedRecognizer.engine)  // the first call registers it; later ones find it there
        var configuration = VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "file-source",
                             parameters: JSONObject([("path", .string(Self.fixtures.appendingPathComponent(clip + ".wav").path)),
                                                     ("realtime", .bool(realtime))])),
            recognizer: recognizer, temporaryDirectory: folder.url)
        configuration.levelIntervalMs = 50
        return VoiceCaptureSession(configuration: configuration)
    }

    func waitFor(_ what: String, _ condition: () async -> Bool) async throws {
        try await eventually(what, timeout: 120, condition)
    }

    @Test func recordsThenTranscribesAndDeletesTheRecording() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let capture = session(folder)
        var seen: [VoiceCaptureState] = []
        let states = capture.states()
        let watcher = Task {
            var collected: [VoiceCaptureState] = []
            for await state in states {
                collected.append(state)
                if collected.count == 5 { break }
            }
            return collected
        }
        try await capture.startRecording()
        #expect(await capture.state == .recording)
        // The level and duration move while recording (the whole clip plays at 1x: wait for its end).
        try await waitFor("the whole clip recorded") { capture.level.recordingDuration >= 2.78 }
        #expect(folder.contents.count == 1, "the temporary recording exists while recording")
        let result = try await capture.stopAndTranscribe()
        // Whichever engine `auto` picks (whisper writes "go forward 10 meters.", pocketsphinx "go forward ten
        // meters"), the words are these.
        #expect(WordErrorRate.normalize(result.transcript) == ["go", "forward", "ten", "meters"], "\(result.transcript)")
        #expect(abs(result.duration - 2.79) < 0.1, "duration \(result.duration)")
        #expect(folder.contents.isEmpty, "the recording was deleted")
        #expect(await capture.state == .idle)
        seen = await watcher.value
        #expect(seen == [.idle, .requestingPermissions, .recording, .transcribing, .idle])
    }

    @Test func wrongStateCallsAreErrors() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let capture = session(folder)
        await #expect(throws: VoiceCaptureError.invalidState(operation: "stopAndTranscribe", state: .idle)) {
            try await capture.stopAndTranscribe()
        }
        try await capture.cancel()  // idle: a no-op (issue 17), not an error
        #expect(await capture.state == .idle)
        try await capture.startRecording()
        await #expect(throws: VoiceCaptureError.invalidState(operation: "startRecording", state: .recording)) {
            try await capture.startRecording()
        }
        try await capture.cancel()
        #expect(folder.contents.isEmpty)
    }

    @Test func cancelWhileRecordingDeletesTheRecording() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let capture = session(folder)
        try await capture.startRecording()
        try await waitFor("some audio") { capture.level.recordingDuration > 0.2 }
        try await capture.cancel()
        #expect(await capture.state == .idle)
        #expect(folder.contents.isEmpty)
        // And it can record again.
        try await capture.startRecording()
        try await capture.cancel()
        #expect(folder.contents.isEmpty)
    }

    @Test func cancelWhileTranscribingThrowsCancelledAndDeletesTheRecording() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let capture = session(folder, realtime: false, recognizer: JSONObject([("engine", "test-gated")]))
        GatedRecognizer.failing.store(false, ordering: .releasing)
        let before = GatedRecognizer.reachedEnd.load(ordering: .acquiring)
        try await capture.startRecording()
        try await waitFor("the whole clip recorded") { capture.level.recordingDuration >= 2.78 }
        let stop = Task { try await capture.stopAndTranscribe() }
        try await waitFor("the recognizer's final") { GatedRecognizer.reachedEnd.load(ordering: .acquiring) > before }
        #expect(await capture.state == .transcribing)
        try await capture.cancel()
        GatedRecognizer.gate.signal()
        await #expect(throws: VoiceCaptureError.cancelled) { try await stop.value }
        #expect(await capture.state == .idle)
        #expect(folder.contents.isEmpty)
    }

    @Test func aFailedTranscriptionDeletesTheRecording() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let capture = session(folder, realtime: false, recognizer: JSONObject([("engine", "test-gated")]))
        GatedRecognizer.failing.store(true, ordering: .releasing)
        defer { GatedRecognizer.failing.store(false, ordering: .releasing) }
        try await capture.startRecording()
        try await waitFor("the whole clip recorded") { capture.level.recordingDuration >= 2.78 }
        do {
            _ = try await capture.stopAndTranscribe()
            Issue.record("expected transcriptionFailed")
        } catch {
            #expect(error.code == "transcription_failed", "\(error)")
        }
        #expect(await capture.state == .idle)
        #expect(folder.contents.isEmpty)
    }

    @Test func silenceGivesEmptyTranscript() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let silence = folder.url.appendingPathComponent("../silence-\(UUID()).wav").standardizedFileURL
        let writer = try SoundFileWriter(path: silence.path, sampleRate: 16000, channels: 1, container: .wav, sampleFormat: .pcm16)
        let zeros = [Float](repeating: 0, count: 16000)
        try zeros.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        defer { try? FileManager.default.removeItem(at: silence) }
        var configuration = VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "file-source", parameters: JSONObject([("path", .string(silence.path))])),
            temporaryDirectory: folder.url)
        configuration.levelIntervalMs = 50
        let capture = VoiceCaptureSession(configuration: configuration)
        try await capture.startRecording()
        try await waitFor("the second of silence recorded") { capture.level.recordingDuration >= 0.99 }
        await #expect(throws: VoiceCaptureError.emptyTranscript) { try await capture.stopAndTranscribe() }
        #expect(folder.contents.isEmpty)
    }

    @Test func aMissingModelIsRecognizerUnavailableBeforeRecording() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        let capture = session(folder, recognizer: JSONObject([("dict", "/nonexistent/model.dict")]))
        do {
            try await capture.startRecording()
            Issue.record("expected recognizerUnavailable")
        } catch {
            #expect(error.code == "recognizer_unavailable", "\(error)")
        }
        #expect(await capture.state == .idle)
        #expect(folder.contents.isEmpty)
    }

    @Test func noSoundServerIsMicrophoneUnavailable() async throws {
        let folder = try TemporaryFolder(prefix: "capture")
        // A server address where nothing listens: the real "no PulseAudio/PipeWire" path.
        let capture = VoiceCaptureSession(configuration: VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "mic-source",
                             parameters: JSONObject([("server", .string("unix:/nonexistent/pulse/native"))])),
            temporaryDirectory: folder.url))
        do {
            try await capture.startRecording()
            Issue.record("expected microphoneUnavailable")
        } catch {
            #expect(error.code == "microphone_unavailable", "\(error)")
        }
        #expect(await capture.state == .idle)
        #expect(folder.contents.isEmpty)
    }
}
