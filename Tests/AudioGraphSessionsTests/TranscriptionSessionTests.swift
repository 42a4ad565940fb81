import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// A source the test steps block by block: each `release` lets one block of `blockFrames` out (a tone, or
/// the samples of `path`). Between blocks it returns without audio, so commands sent to the graph go in at a
/// known place in the stream.
final class StepSourceNode: SourceNode, @unchecked Sendable {
    static let blocks = Parameter.integer("blocks", range: 1...100_000, default: 10, doc: "Blocks in all.")
    static let descriptor = NodeDescriptor(
        type: "test-steps", summary: "Test source released block by block.", category: .source,
        parameters: [
            blocks.spec,
            ParameterSpec("path", .path(.input), doc: "Take the samples from this 16 kHz mono file (looped)."),
        ],
        inputs: [], outputs: [.init(produces: [.audio], forwardsInput: false)])
    static let blockFrames = 1600
    let format = AudioFormat(sampleRate: 16000, channels: 1)
    private let total: Int
    private let samples: [Float]
    private var position: Int64 = 0
    // `@unchecked Sendable`: `permits` is a semaphore; the rest is touched by the source thread only.
    private let permits = DispatchSemaphore(value: 0)
    private let emitted = Atomic<Int>(0)

    init(configuration: NodeConfiguration) throws {
        total = configuration[Self.blocks]
        if let path = configuration.path("path") {
            let reader = try SoundFileReader(path: path)
            var all = [Float](repeating: 0, count: Int(reader.frameCount ?? 0))
            let count = try all.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: $0.count) }
            samples = Array(all.prefix(count))
        } else {
            samples = Signals.sine(frequency: 300, seconds: 1, sampleRate: 16000)
        }
    }

    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    func release(_ blocks: Int = 1) { for _ in 0..<blocks { permits.signal() } }
    var blocksEmitted: Int { emitted.load(ordering: .acquiring) }

    func produce(_ context: NodeContext) throws -> SourceStatus {
        if emitted.load(ordering: .relaxed) >= total { return .finished }
        // Wait briefly for a permit; without one, return so the runtime can pass on waiting commands.
        guard permits.wait(timeout: .now() + .milliseconds(5)) == .success else { return .more }
        var block = [Float](repeating: 0, count: Self.blockFrames)
        for i in 0..<Self.blockFrames { block[i] = samples[(Int(position) + i) % samples.count] }
        context.emit(AudioBuffer(format: format, samples: block, position: position))
        position += Int64(Self.blockFrames)
        emitted.add(1, ordering: .releasing)
        return .more
    }
}

/// Records what a caption node would see: transcripts and the commands that reach it.
final class CaptionProbeNode: AudioNode, CaptionRole, @unchecked Sendable {
    static let descriptor = NodeDescriptor(
        type: "test-caption-probe", summary: "Records captions and commands.", category: .sink, parameters: [],
        inputs: [.init(requires: [.transcript])], outputs: [], execution: .queued(capacity: 64))
    // `@unchecked Sendable`: all state is behind the mutex.
    private let state = Mutex<(updates: [TranscriptUpdate], commands: [ControlCommand])>(([], []))
    init(configuration: NodeConfiguration) throws {}
    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {}
    func handle(_ event: Event, _ context: NodeContext) throws {
        if case .transcript(let update) = event.payload { state.withLock { $0.updates.append(update) } }
    }
    func handle(_ command: ControlCommand, _ context: NodeContext) throws { state.withLock { $0.commands.append(command) } }
    var updates: [TranscriptUpdate] { state.withLock { $0.updates } }
    var commands: [ControlCommand] { state.withLock { $0.commands } }
}

/// The session tests' counting engine ("test-counting"): `BlockCountingRecognizer` of AudioGraphTestKit.
enum CountingRecognizer {
    static let engine = BlockCountingRecognizer.engine(name: "test-counting")
}

/// Counts like `CountingRecognizer`, but its first `process` call waits at a gate the test opens, so the
/// recognizer's queue fills up behind it (a recognizer that is behind).
final class GatedCountingRecognizer: SpeechRecognizer {
    static let held = Atomic<Bool>(false)
    static let gate = DispatchSemaphore(value: 0)
    private let counting = BlockCountingRecognizer()
    private var waited = false
    var capabilities: RecognizerCapabilities { counting.capabilities }
    func startUtterance() throws { try counting.startUtterance() }
    func process(_ samples: UnsafeBufferPointer<Float>) throws {
        if !waited {
            waited = true
            Self.held.store(true, ordering: .releasing)
            _ = Self.gate.wait(timeout: .now() + 60)
        }
        try counting.process(samples)
    }
    func partialHypothesis() -> String { counting.partialHypothesis() }
    func endUtterance() throws -> RecognitionResult { try counting.endUtterance() }

    static let engine = RecognizerEngine(
        name: "test-gated-counting", summary: "Counts 0.1 s blocks as words; the first block waits at a gate.",
        capabilities: { _ in BlockCountingRecognizer().capabilities }, make: { _ in GatedCountingRecognizer() })
}


@Suite(.serialized, .ownThreads) struct TranscriptionSessionTests {
    static func registry() -> NodeRegistry {
        _ = try? RecognizerEngines.register(CountingRecognizer.engine)  // the first call registers it; later ones find it there
        _ = try? RecognizerEngines.register(GatedCountingRecognizer.engine)  // the first call registers it; later ones find it there
        var registry = NodeRegistry.builtins
        try! registry.register(StepSourceNode.self, origin: "test")
        try! registry.register(CaptionProbeNode.self, origin: "test")
        try! registry.register(RecordingSinkNode.self, origin: "test")
        return registry
    }

    func makeSession(engine: String, blocks: Int, path: String? = nil,
                     settings: SessionSettings = SessionSettings(id: "s1")) throws -> (TranscriptionSession, Graph) {
        var source = JSONObject([("blocks", .number(Double(blocks)))])
        if let path { source["path"] = .string(path) }
        let spec = GraphSpec(
            nodes: [NodeSpec(id: "src", type: "test-steps", parameters: source),
                    NodeSpec(id: "asr", type: "recognizer",
                             parameters: JSONObject([("engine", .string(engine)), ("partialIntervalMs", 100),
                                                     ("partials", "on")])),
                    NodeSpec(id: "cc", type: "test-caption-probe"),
                    NodeSpec(id: "rec", type: "test-recorder")],
            links: try LinkSpec.chain("src -> asr -> cc") + LinkSpec.chain("src -> rec"), baseDirectory: "/")
        var withSettings = spec
        withSettings.session = settings
        let graph = try GraphBuilder(registry: Self.registry()).build(withSettings)
        return (TranscriptionSession(graph: graph), graph)
    }

    @Test func controlsInEveryStateWithTheTestEngine() async throws {
        let (session, graph) = try makeSession(engine: "test-counting", blocks: 40)
        let source = graph.node("src")!.instance as! StepSourceNode
        let captions = graph.node("cc")!.instance as! CaptionProbeNode
        let recorder = graph.node("rec")!.instance as! RecordingSinkNode
        #expect(!session.isTranscribing && !session.captionsEnabled && !session.captionsVisible)
        let (events, result) = session.start()
        let drain = Task { for await _ in events {} }

        // Defaults: transcription off, captions off. Audio flows; nothing is transcribed.
        source.release(5)
        try await eventually("5 blocks recorded") { recorder.buffers.count == 5 }
        try await eventually("the initial commands") { captions.commands.count >= 2 }
        #expect(captions.commands.prefix(2) == [.stopTranscription, .hideCaptions])
        #expect(captions.updates.isEmpty)

        // Captions on before transcription: still nothing to show.
        try await session.showCaptions()
        #expect(session.captionsEnabled && !session.captionsVisible)

        // Start: partials, then a final when stopped.
        try await session.startTranscription()
        #expect(session.isTranscribing && session.captionsVisible)
        source.release(5)
        // Commands keep their place in the stream: a stop sent once the five blocks are out applies after them,
        // however far the recognizer is behind.
        try await eventually("ten blocks out of the source") { source.blocksEmitted == 10 }
        try await session.stopTranscription()
        try await eventually("the final of segment 1") { captions.updates.contains { $0.isFinal } }
        #expect(!session.captionsVisible)
        let first = captions.updates.filter(\.isFinal)
        #expect(first.map(\.segment) == [1])
        #expect(first[0].text == "w1 w2 w3 w4 w5")

        // Stopped: audio still recorded, nothing transcribed.
        source.release(5)
        try await eventually("15 blocks recorded") { recorder.buffers.count == 15 }
        #expect(captions.updates.filter(\.isFinal).count == 1)

        // Language: validated against the engine, then applied to later results.
        await #expect(throws: TranscriptionSessionError.unsupportedLanguage(code: "de-DE", engine: "test-counting",
                                                                            supported: ["en-US", "fr-FR"])) {
            try await session.setCaptionLanguage("de-DE")
        }
        try await session.setCaptionLanguage("fr-FR")
        #expect(session.captionLanguage == "fr-FR")

        // Start again: a new segment.
        try await session.startTranscription()
        source.release(3)
        try await session.hideCaptions()
        #expect(!session.captionsVisible && session.isTranscribing)
        source.release(22)
        _ = try await result.value
        await drain.value
        let finals = captions.updates.filter(\.isFinal)
        #expect(finals.map(\.segment) == [1, 2])
        #expect(finals[1].language == "fr-FR")
        #expect(finals[1].words.count == 25, "every block after the restart was transcribed")
        #expect(finals[1].start == 1.5, "the new segment starts where transcription restarted")
        // The recording never paused: every block is there, in order.
        #expect(recorder.buffers.count == 40)
        #expect(recorder.buffers.map(\.position) == (0..<40).map { Int64($0 * StepSourceNode.blockFrames) })
        #expect(captions.commands.contains(.hideCaptions) && captions.commands.contains(.showCaptions))
        // Once the graph has ended, there is nothing to steer.
        await #expect(throws: TranscriptionSessionError.notRunning) { try await session.startTranscription() }
    }

    /// A recognizer that is behind when the user stops transcription still transcribes the audio that came
    /// before the stop (the command waits its turn in the recognizer's queue instead of jumping it).
    @Test func aStopAppliesAfterTheAudioQueuedBeforeIt() async throws {
        let (session, graph) = try makeSession(engine: "test-gated-counting", blocks: 10,
                                               settings: SessionSettings(id: "s3", autoStartTranscription: true))
        let source = graph.node("src")!.instance as! StepSourceNode
        let captions = graph.node("cc")!.instance as! CaptionProbeNode
        let (events, result) = session.start()
        let drain = Task { for await _ in events {} }
        source.release(1)
        try await eventually("the recognizer held at its first block") { GatedCountingRecognizer.held.load(ordering: .acquiring) }
        // Four more blocks wait in the recognizer's queue, then the stop goes in behind them.
        source.release(4)
        try await eventually("five blocks out of the source") { source.blocksEmitted == 5 }
        try await session.stopTranscription()
        GatedCountingRecognizer.gate.signal()
        try await eventually("the final") { captions.updates.contains(where: \.isFinal) }
        let finals = captions.updates.filter(\.isFinal)
        #expect(finals.map(\.text) == ["w1 w2 w3 w4 w5"], "every block before the stop is transcribed")
        source.release(5)
        _ = try await result.value
        await drain.value
        #expect(captions.updates.filter(\.isFinal).count == 1, "nothing after the stop")
    }

    /// The same session code with pocketsphinx on real speech: swapping the engine is a config change only.
    @Test(arguments: ["test-counting", "pocketsphinx"])
    func theSameSessionCodeRunsWithEitherEngine(engine: String) async throws {
        let speech = SpeechFixture.goforward
        let (session, graph) = try makeSession(engine: engine, blocks: 28, path: speech,
                                               settings: SessionSettings(id: "s2", autoStartTranscription: true))
        let source = graph.node("src")!.instance as! StepSourceNode
        let captions = graph.node("cc")!.instance as! CaptionProbeNode
        #expect(session.isTranscribing)
        let (events, result) = session.start()
        let drain = Task { for await _ in events {} }
        source.release(28)
        _ = try await result.value
        await drain.value
        let finals = captions.updates.filter(\.isFinal)
        #expect(finals.count == 1)
        if engine == "pocketsphinx" {
            #expect(finals.first?.text == "go forward ten meters")
        } else {
            #expect(finals.first?.words.count == 28)
        }
    }

    @Test func aGraphWithoutARecognizerRefusesTranscriptionControls() async throws {
        let spec = GraphSpec(nodes: [NodeSpec(id: "src", type: "test-steps"), NodeSpec(id: "rec", type: "test-recorder")],
                             links: try LinkSpec.chain("src -> rec"), baseDirectory: "/")
        let session = TranscriptionSession(graph: try GraphBuilder(registry: Self.registry()).build(spec))
        await #expect(throws: TranscriptionSessionError.noTranscriber) { try await session.startTranscription() }
        await #expect(throws: TranscriptionSessionError.noTranscriber) { try await session.setCaptionLanguage("en-US") }
    }
}

enum SpeechFixture {
    static let goforward = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("AudioGraphSpeechTests/Fixtures/goforward.wav").path
}
