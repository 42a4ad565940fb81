import AudioGraphCore
import Foundation

/// What `stopAndTranscribe()` returns: the transcript and how long the recording was. Nothing else: the
/// recording itself is deleted.
public struct VoiceCaptureResult: Sendable, Equatable {
    public let transcript: String
    /// Seconds of audio recorded.
    public let duration: Double
}

/// The level meter while recording.
public struct VoiceCaptureLevel: Sendable, Equatable {
    /// Loudness 0…1 (see `LevelReading.level`).
    public let audioLevel: Double
    /// Seconds recorded so far.
    public let recordingDuration: Double
}

/// Record from the microphone, then transcribe — the voice-capture session of mobile SDKs, on Linux.
///
/// ```swift
/// let session = VoiceCaptureSession()            // AudioGraph's built-in nodes, default microphone
/// Task { for await level in session.levels() { meter.value = level.audioLevel } }
/// try await session.startRecording()
/// …
/// let result = try await session.stopAndTranscribe()   // result.transcript, result.duration
/// ```
///
/// It records AAC to a temporary `.m4a` and transcribes that file; the file is deleted before
/// `stopAndTranscribe()` returns, and after a failed or cancelled transcription too. Calls in the wrong state
/// throw `VoiceCaptureError.invalidState`.
public actor VoiceCaptureSession {
    public struct Configuration: Sendable {
        /// The audio source node; by default the microphone (`mic-source`, default device, 16 kHz mono).
        public var source: NodeSpec
        /// AAC bitrate of the temporary recording.
        public var bitrate: Int
        /// Recognizer node parameters (`engine`, `language`, …).
        public var recognizer: JSONObject
        /// Folder for the temporary recording.
        public var temporaryDirectory: URL
        /// How often the level and duration update, in ms.
        public var levelIntervalMs: Int
        /// Keep a copy of the recording here (the temporary file is deleted either way). Checked when recording
        /// starts: a path that exists and is not a regular file (a folder, a device, a FIFO, a link to one) is
        /// refused with `cannotKeepRecording` and left untouched; an existing regular file is replaced by an
        /// atomic rename of a file written beside it.
        public var keepRecording: URL?

        public init(source: NodeSpec = NodeSpec(id: "mic", type: "mic-source"), bitrate: Int = 64000,
                    recognizer: JSONObject = JSONObject(),
                    temporaryDirectory: URL = FileManager.default.temporaryDirectory, levelIntervalMs: Int = 50) {
            self.source = source
            self.bitrate = bitrate
            self.recognizer = recognizer
            self.temporaryDirectory = temporaryDirectory
            self.levelIntervalMs = levelIntervalMs
            self.keepRecording = nil
        }
    }

    public let configuration: Configuration
    private let registry: NodeRegistry
    private var machine = VoiceCaptureStateMachine()
    private let stateBroadcast = Broadcast<VoiceCaptureState>(.idle)
    private let levelBroadcast = Broadcast<VoiceCaptureLevel>(VoiceCaptureLevel(audioLevel: 0, recordingDuration: 0))
    private var recording: (runtime: GraphRuntime, result: Task<RunSummary, any Error>, file: URL, levels: Task<Void, Never>)?
    private var transcription: GraphRuntime?
    /// Where this recording is kept (`keepRecording`, a link resolved), checked at `startRecording`.
    private var keepTarget: URL?
    private var cancelRequested = false

    /// - Parameter registry: the node types to build with (`NodeRegistry.builtins` from the AudioGraph module).
    public init(configuration: Configuration = Configuration(), registry: NodeRegistry) {
        self.configuration = configuration
        self.registry = registry
    }

    /// The current state.
    public var state: VoiceCaptureState { machine.state }

    /// State changes, starting with the current state.
    public nonisolated func states() -> AsyncStream<VoiceCaptureState> { stateBroadcast.subscribe() }

    /// Level and duration while recording, starting with the latest.
    public nonisolated func levels() -> AsyncStream<VoiceCaptureLevel> { levelBroadcast.subscribe() }

    /// The latest level and duration.
    public nonisolated var level: VoiceCaptureLevel { levelBroadcast.latest }

    private func apply(_ input: VoiceCaptureStateMachine.Input) throws(VoiceCaptureError) {
        let before = machine.state
        try machine.apply(input)
        if machine.state != before { stateBroadcast.send(machine.state) }
    }

    private var transcriber: FileTranscriber {
        FileTranscriber(registry: registry, recognizer: configuration.recognizer)
    }

    /// Checks the microphone and the recognizer's model, then starts recording.
    public func startRecording() async throws(VoiceCaptureError) {
        try apply(.start)
        cancelRequested = false
        levelBroadcast.send(VoiceCaptureLevel(audioLevel: 0, recordingDuration: 0))
        do {
            keepTarget = try configuration.keepRecording.map { url throws(VoiceCaptureError) in try KeptRecording.target(url) }
        } catch {
            try? apply(.startFailed)
            throw error
        }
        // A model that exists but cannot be read is a permission, not a missing model.
        if let denied = ModelFileAccess.unreadable(in: configuration.recognizer) {
            try? apply(.startFailed)
            throw .speechRecognitionPermissionDenied(denied)
        }
        do {
            try transcriber.validateRecognizer()
        } catch {
            try? apply(.startFailed)
            throw .recognizerUnavailable(error.description)
        }
        let file = configuration.temporaryDirectory.appendingPathComponent("voice-capture-\(UUID().uuidString).m4a")
        let runtime: GraphRuntime
        do {
            let spec = GraphSpec(
                nodes: [configuration.source,
                        NodeSpec(id: "level", type: "level-meter",
                                 parameters: JSONObject([("intervalMs", .number(Double(configuration.levelIntervalMs)))])),
                        NodeSpec(id: "rec", type: "aac-sink",
                                 parameters: JSONObject([("path", .string(file.path)),
                                                         ("bitrate", .number(Double(configuration.bitrate)))]))],
                links: try LinkSpec.chain("\(configuration.source.id) -> level -> rec"), baseDirectory: "/")
            runtime = GraphRuntime(graph: try GraphBuilder(registry: registry).build(spec))
        } catch {
            try? apply(.startFailed)
            throw Self.startError(error)
        }
        let (events, result) = runtime.start()
        let levels = Task { [levelBroadcast] in
            for await event in events {
                if case .level(let reading) = event.payload {
                    levelBroadcast.send(VoiceCaptureLevel(audioLevel: reading.level, recordingDuration: event.time))
                }
            }
        }
        recording = (runtime, result, file, levels)
        // A source that cannot open (no sound server, access refused) fails in `start`: report it now.
        do {
            try await runtime.waitUntilStarted()
        } catch {
            recording = nil
            await levels.value
            Self.remove(file)
            try? apply(.startFailed)
            throw Self.startError(error)
        }
        try apply(.recordingStarted)
    }

    /// Stops recording, transcribes the recording and deletes it.
    public func stopAndTranscribe() async throws(VoiceCaptureError) -> VoiceCaptureResult {
        try apply(.stop)
        guard let recording else { throw .invalidState(operation: "stopAndTranscribe", state: .idle) }
        self.recording = nil
        defer { Self.remove(recording.file) }
        recording.runtime.cancel()
        let duration: Double
        do {
            let summary = try await recording.result.value
            await recording.levels.value
            duration = summary.sources.first?.seconds ?? 0
        } catch {
            try? apply(.transcriptionEnded)
            throw .recordingFailed(String(describing: error))
        }
        levelBroadcast.send(VoiceCaptureLevel(audioLevel: 0, recordingDuration: duration))
        if cancelRequested { throw .cancelled }
        if let keep = keepTarget {
            do {
                try KeptRecording.place(recording.file, at: keep)
            } catch {
                try? apply(.transcriptionEnded)
                throw error
            }
        }
        let finals: [TranscriptUpdate]
        do {
            let runtime = try transcriber.makeRuntime(for: recording.file.path)
            transcription = runtime
            if cancelRequested { runtime.cancel() }
            finals = try await FileTranscriber.finals(of: runtime)
            transcription = nil
        } catch {
            transcription = nil
            if cancelRequested { throw .cancelled }
            try? apply(.transcriptionEnded)
            throw .transcriptionFailed(String(describing: error))
        }
        if cancelRequested { throw .cancelled }
        try? apply(.transcriptionEnded)
        let transcript = CaptionUnits.joined(finals.map(\.text))
        guard !transcript.isEmpty else { throw .emptyTranscript }
        return VoiceCaptureResult(transcript: transcript, duration: duration)
    }

    /// Cancels recording or transcription. The temporary file is deleted; a pending `stopAndTranscribe()`
    /// throws `cancelled`. On an idle session it does nothing (and does not throw), as in the SDK.
    public func cancel() async throws(VoiceCaptureError) {
        guard machine.state != .idle else { return }
        try apply(.cancel)
        cancelRequested = true
        transcription?.cancel()
        if let recording {
            self.recording = nil
            recording.runtime.cancel()
            _ = try? await recording.result.value
            await recording.levels.value
            Self.remove(recording.file)
        }
    }

    // MARK: - Helpers

    static func remove(_ file: URL) {
        try? FileManager.default.removeItem(at: file)
    }

    static func startError(_ error: any Error) -> VoiceCaptureError {
        let text = (error as? GraphError)?.message ?? String(describing: error)
        if text.hasPrefix("microphone permission denied") { return .microphonePermissionDenied(text) }
        if text.hasPrefix("microphone unavailable") || (error as? GraphError)?.code == .unavailable {
            return .microphoneUnavailable(text)
        }
        return .recordingFailed(text)
    }
}
