import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// The eager (speculative) final pass: pocketsphinx's speculation gives exactly the final the normal path gives,
/// is used only for its own utterance and frame count, and never runs in batch; the node passes the VAD's
/// pause hint on with the frame count its `speechEnded` would give.
@Suite(.serialized, .ownThreads) struct EagerFinalPassTests {
    static func recognizer(realtime: Bool, parameters: JSONObject = JSONObject()) throws -> PocketSphinxRecognizer {
        var options = RecognizerOptions(language: "en-US", parameters: parameters, verbose: false,
                                        node: NodeConfiguration(id: "asr", type: "recognizer", values: JSONObject()))
        options.wantsPartials = true
        options.realtime = realtime
        return try PocketSphinxRecognizer(options)
    }

    /// One utterance: feeds `samples` in 0.1 s buffers; after `hintAt` samples (if given) calls `prepareFinal`
    /// with `hintFrames`; ends with `endUtterance(speechEndsAfter: frames)`. With `settle`, the eager pass is
    /// first left to finish (in a run the final comes a hangover after the hint; here the test thread could
    /// otherwise reach the final before the eager thread has begun).
    static func utterance(_ recognizer: PocketSphinxRecognizer, _ samples: [Float], frames: Int,
                          hintAt: Int? = nil, hintFrames: Int? = nil, settle: Bool = false) throws -> RecognitionResult {
        try recognizer.startUtterance()
        var offset = 0
        while offset < samples.count {
            let count = min(1600, samples.count - offset)
            try samples.withUnsafeBufferPointer { try recognizer.process(UnsafeBufferPointer(rebasing: $0[offset..<(offset + count)])) }
            offset += count
            if let hintAt, offset - count < hintAt && offset >= hintAt {
                recognizer.prepareFinal(speechEndsAfter: hintFrames ?? frames)
            }
        }
        if settle { recognizer.waitForEagerPass() }
        return try recognizer.endUtterance(speechEndsAfter: frames)
    }

    /// Two utterances of real speech, each with the hangover's worth of audio past its end (the final keeps
    /// `frames`).
    static func clips() throws -> [(samples: [Float], frames: Int)] {
        try ["librivox_0870", "goforward", "cards_001"].map { name in
            let samples = try SpeechFixtures.samples(name)
            return (samples, samples.count - 4000)
        }
    }

    @Test("in real time, finals that went through prepareFinal equal those that did not: text, words, times")
    func speculationGivesTheSameFinal() throws {
        let clips = try Self.clips()
        let plain = try Self.recognizer(realtime: true)
        let eager = try Self.recognizer(realtime: true)
        #expect(eager.hasEagerFinalPass)
        for clip in clips {
            let expected = try Self.utterance(plain, clip.samples, frames: clip.frames)
            // The hint comes once the final's frames are fed, as the VAD's pause hint does.
            let result = try Self.utterance(eager, clip.samples, frames: clip.frames, hintAt: clip.frames, settle: true)
            #expect(!expected.text.isEmpty)
            #expect(result == expected)
        }
        #expect(plain.speculationsStarted == 0 && plain.speculationsUsed == 0)
        #expect(eager.speculationsStarted == clips.count)
        #expect(eager.speculationsUsed == clips.count, "every final was the speculation's")
    }

    @Test("the eager decoder searches with maxActiveHMMs too: its final equals the final decoder's at any cap")
    func theEagerDecoderGetsTheCap() throws {
        let clip = try Self.clips()[0]
        let starved: JSONObject = ["maxActiveHMMs": 300]
        let plain = try Self.recognizer(realtime: true, parameters: starved)
        let eager = try Self.recognizer(realtime: true, parameters: starved)
        let expected = try Self.utterance(plain, clip.samples, frames: clip.frames)
        let result = try Self.utterance(eager, clip.samples, frames: clip.frames, hintAt: clip.frames, settle: true)
        #expect(eager.speculationsUsed == 1)
        #expect(result == expected)
        // The cap matters on this clip: the default gives other words.
        let usual = try Self.utterance(try Self.recognizer(realtime: true), clip.samples, frames: clip.frames)
        #expect(usual.text != expected.text, "\(usual.text)")
    }

    @Test("prepareFinal with other frames than the final's: the normal path, the same result as without it")
    func mismatchedFramesTakeTheNormalPath() throws {
        let clips = try Self.clips()
        let plain = try Self.recognizer(realtime: true)
        let eager = try Self.recognizer(realtime: true)
        for clip in clips {
            let expected = try Self.utterance(plain, clip.samples, frames: clip.frames)
            // Speech went on after the pause the hint was about: the end is later than the hint said.
            let early = clip.frames - 8000
            let result = try Self.utterance(eager, clip.samples, frames: clip.frames, hintAt: early, hintFrames: early)
            #expect(result == expected)
        }
        #expect(eager.speculationsStarted >= 1)
        #expect(eager.speculationsUsed == 0)
    }

    @Test("a speculation of an utterance that ended otherwise is never returned for the next one")
    func aDiscardedSpeculationIsNeverUsed() throws {
        let clips = try Self.clips()
        let plain = try Self.recognizer(realtime: true)
        let eager = try Self.recognizer(realtime: true)
        let frames = min(clips[0].frames, clips[1].frames)
        // Utterance 1: a hint for `frames`, then an end without a frame count (a flush, a stop).
        _ = try Self.utterance(plain, clips[0].samples, frames: clips[0].frames)
        try eager.startUtterance()
        try clips[0].samples.withUnsafeBufferPointer { try eager.process($0) }
        eager.prepareFinal(speechEndsAfter: frames)
        #expect(eager.speculationsStarted == 1)
        _ = try eager.endUtterance()
        // Utterance 2 ends after exactly the frames the discarded speculation had.
        let expected = try Self.utterance(plain, clips[1].samples, frames: frames)
        let result = try Self.utterance(eager, clips[1].samples, frames: frames)
        #expect(result == expected)
        #expect(eager.speculationsUsed == 0)
        // A new utterance started while a speculation may still run: that one is not used either.
        try eager.startUtterance()
        try clips[2].samples.withUnsafeBufferPointer { try eager.process($0) }
        eager.prepareFinal(speechEndsAfter: clips[2].frames)
        try eager.startUtterance()
        let third = try Self.utterance(eager, clips[1].samples, frames: frames)
        #expect(third == expected)
        #expect(eager.speculationsUsed == 0)
    }

    @Test("batch runs never speculate: no eager decoder, prepareFinal does nothing")
    func batchNeverSpeculates() throws {
        let clip = try Self.clips()[1]
        let batch = try Self.recognizer(realtime: false)
        #expect(!batch.hasEagerFinalPass)
        let result = try Self.utterance(batch, clip.samples, frames: clip.frames, hintAt: clip.frames)
        #expect(result.text == "go forward ten meters")
        #expect(batch.speculationsStarted == 0 && batch.speculationsUsed == 0)
    }

    @Test("through the node in real time: hints before each speechEnded leave every final unchanged")
    func nodeFinalsAreUnchangedByHints() throws {
        let clips = try Self.clips()
        func finals(hints: Bool) throws -> [TranscriptUpdate] {
            let recorder = RecordingNodeRun(realtime: true, engine: "pocketsphinx")
            try recorder.start()
            var position = 0
            for clip in clips {
                let speechEnd = Double(position + clip.frames - 3200) / 16000
                try recorder.push(.speechStarted, at: Double(position) / 16000)
                // Audio up to the hint point (the end plus the 0.2 s tail), the hint, the rest, then the end.
                let hintPoint = clip.frames
                try recorder.push(Array(clip.samples[..<hintPoint]), at: position)
                if hints { try recorder.pushHint(at: speechEnd) }
                try recorder.push(Array(clip.samples[hintPoint...]), at: position + hintPoint)
                try recorder.push(.speechEnded, at: speechEnd)
                position += clip.samples.count
            }
            try recorder.finish()
            return recorder.transcripts.filter(\.isFinal)
        }
        let plain = try finals(hints: false)
        let eager = try finals(hints: true)
        #expect(plain.count == clips.count)
        #expect(eager == plain)
    }

    @Test("a hint while a speculation runs stops it at its next piece; the final is the newer one's")
    func aSecondHintStopsTheFirst() throws {
        let clips = try Self.clips()
        let plain = try Self.recognizer(realtime: true)
        let eager = try Self.recognizer(realtime: true)
        let clip = clips[0]
        let expected = try Self.utterance(plain, clip.samples, frames: clip.frames)
        // The first speculation is held before its second piece until the second hint has come; the final comes
        // once the second has begun (in a run it comes a hangover after the hint).
        let hold = Hold()
        defer { hold.release() }
        let begun = Mutex(0)
        let secondBegan = DispatchSemaphore(value: 0)
        eager.setBeforeEagerPiece { piece in
            if piece == 0, begun.withLock({ $0 += 1; return $0 }) == 2 { secondBegan.signal() }
            if piece == 1 { hold.holdFirstJob() }
        }
        try eager.startUtterance()
        try clip.samples.withUnsafeBufferPointer { try eager.process($0) }
        // A pause that was not the end (its decode runs), then the real one.
        eager.prepareFinal(speechEndsAfter: clip.frames - 8000)
        try #require(hold.waitUntilHeld(), "the first speculation never reached its second piece")
        eager.prepareFinal(speechEndsAfter: clip.frames)
        hold.release()
        try #require(secondBegan.wait(timeout: .now() + 60) == .success, "the second speculation never began")
        #expect(eager.speculationsStarted == 2)
        let result = try eager.endUtterance(speechEndsAfter: clip.frames)
        #expect(result == expected)
        #expect(eager.speculationsStopped == 1, "the first decode stopped after one piece")
        #expect(eager.speculationsUsed == 1, "the final is the second speculation's result")
        // The next utterance is unaffected.
        let next = try Self.utterance(plain, clips[1].samples, frames: clips[1].frames)
        #expect(try Self.utterance(eager, clips[1].samples, frames: clips[1].frames, hintAt: clips[1].frames) == next)
        #expect(eager.speculationsStopped == 1)
    }

    @Test("the next utterance stops a speculation of the last one that is still running")
    func theNextUtteranceStopsAStaleSpeculation() throws {
        let clips = try Self.clips()
        let eager = try Self.recognizer(realtime: true)
        let plain = try Self.recognizer(realtime: true)
        let hold = Hold()
        defer { hold.release() }
        eager.setBeforeEagerPiece { piece in if piece == 1 { hold.holdFirstJob() } }
        // A hint, and the speculation is held at its second piece; the utterance is left open (no end, as when
        // a run drops it) and the next one begins: that start must stop the speculation still running.
        let clip = clips[0]
        try eager.startUtterance()
        try clip.samples.withUnsafeBufferPointer { try eager.process($0) }
        eager.prepareFinal(speechEndsAfter: clip.frames - 8000)
        try #require(hold.waitUntilHeld(), "the speculation never reached its second piece")
        try eager.startUtterance()
        hold.release()
        let silence = [Float](repeating: 0, count: 160)
        try silence.withUnsafeBufferPointer { try eager.process($0) }
        _ = try eager.endUtterance()
        eager.waitForEagerPass()
        #expect(eager.speculationsStopped == 1, "the stale speculation stopped at its next piece")
        #expect(try Self.utterance(eager, clips[1].samples, frames: clips[1].frames, hintAt: clips[1].frames)
                == (try Self.utterance(plain, clips[1].samples, frames: clips[1].frames)))
        #expect(eager.speculationsStopped == 1)
    }

    /// Holds the first eager job that reaches it until `release()` (later jobs pass). Waits are bounded, so a
    /// broken eager pass fails the test instead of hanging the run.
    final class Hold: Sendable {
        private let held = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let state = Mutex((jobs: 0, released: false))

        /// On the eager queue.
        func holdFirstJob() {
            let first = state.withLock { state in
                state.jobs += 1
                return state.jobs == 1 && !state.released
            }
            guard first else { return }
            held.signal()
            _ = released.wait(timeout: .now() + 60)
        }

        func waitUntilHeld() -> Bool { held.wait(timeout: .now() + 60) == .success }

        /// Lets the held job go on (once; later calls do nothing).
        func release() {
            let first = state.withLock { state in
                defer { state.released = true }
                return !state.released
            }
            if first { released.signal() }
        }
    }
}

/// The speculation's states, without a decoder.
@Suite(.ownThreads) struct SpeculationStateTests {
    @Test("cancelled while waiting: never begins, and the queue still releases it")
    func cancelledWhileWaiting() {
        let job = Speculation(utterance: 1, frames: 10)
        #expect(job.cancelIfWaiting())
        #expect(job.cancelIfWaiting(), "cancelling twice still says cancelled")
        #expect(!job.begin())
    }

    @Test("cancel: a waiting job never begins; a running one is asked to stop and ends without a result")
    func cancelStopsARunningJob() {
        let waiting = Speculation(utterance: 1, frames: 10)
        waiting.cancel()
        #expect(!waiting.begin())
        let running = Speculation(utterance: 1, frames: 10)
        #expect(running.begin())
        #expect(!running.stopRequested)
        running.cancel()
        #expect(running.stopRequested)
        #expect(!running.cancelIfWaiting(), "a running job is not cancelled by cancelIfWaiting")
        running.finish(nil)
        #expect(running.wait() == nil)
        running.cancel()
        #expect(!running.stopRequested, "finished: nothing left to stop")
    }

    @Test("once begun it cannot be cancelled, and wait returns its result")
    func begunThenFinished() {
        let job = Speculation(utterance: 1, frames: 10)
        #expect(job.begin())
        #expect(!job.cancelIfWaiting())
        job.finish(RecognitionResult(text: "go forward"))
        #expect(job.wait()?.text == "go forward")
        #expect(!job.cancelIfWaiting())
    }
}

/// The node with a fake engine: the pause hint reaches the engine as `prepareFinal` with the frame count the
/// `speechEnded` at the same time gives `endUtterance(speechEndsAfter:)`.
@Suite(.serialized, .ownThreads) struct EagerFinalNodeTests {
    @Test("a pause hint leads to prepareFinal with the frames of the following endUtterance(speechEndsAfter:)")
    func hintBecomesPrepareFinal() throws {
        RecordingRecognizer.reset()
        let run = RecordingNodeRun(realtime: true, engine: RecordingRecognizer.engine.name)
        try run.start()
        try run.push(.speechStarted, at: 1.0)
        try run.push([Float](repeating: 0.1, count: 16000 * 2), at: 16000)  // 1.0 s … 3.0 s
        try run.pushHint(at: 2.5)
        try run.push(.speechEnded, at: 2.5)
        try run.finish()
        let calls = RecordingRecognizer.calls.withLock { $0 }
        let prepared = calls.compactMap { if case .prepare(let f) = $0 { return f } else { return nil } }
        let ended = calls.compactMap { if case .end(let f) = $0 { return f } else { return nil } }
        #expect(prepared.count == 1)
        #expect(ended.count == 1)
        #expect(prepared == ended)
        // From the utterance's start (1.0 s) to the end (2.5 s) plus the 0.2 s tail.
        #expect(prepared == [27200])
        // The hint is not observed; the speech events and the final are.
        #expect(!run.observed.contains { if case .custom(SpeechHints.speechPausing, _, _) = $0.payload { return true } else { return false } })
        #expect(run.transcripts.filter(\.isFinal).count == 1)
    }

    @Test("a hint that arrives before its audio is passed on once the audio has been fed")
    func earlyHintWaitsForItsAudio() throws {
        RecordingRecognizer.reset()
        let run = RecordingNodeRun(realtime: true, engine: RecordingRecognizer.engine.name)
        try run.start()
        try run.push(.speechStarted, at: 0)
        try run.push([Float](repeating: 0.1, count: 16000), at: 0)  // 0 … 1.0 s
        try run.pushHint(at: 0.9)  // needs audio up to 1.1 s
        #expect(RecordingRecognizer.calls.withLock { $0 }.allSatisfy { if case .prepare = $0 { return false } else { return true } })
        try run.push([Float](repeating: 0.1, count: 1600), at: 16000)
        try run.push([Float](repeating: 0.1, count: 1600), at: 17600)
        try run.push(.speechEnded, at: 0.9)
        try run.finish()
        let calls = RecordingRecognizer.calls.withLock { $0 }
        let prepared = calls.compactMap { if case .prepare(let f) = $0 { return f } else { return nil } }
        let ended = calls.compactMap { if case .end(let f) = $0 { return f } else { return nil } }
        #expect(prepared == [17600])
        #expect(ended == [17600])
    }

    @Test("batch runs do not pass hints on")
    func batchIgnoresHints() throws {
        RecordingRecognizer.reset()
        let run = RecordingNodeRun(realtime: false, engine: RecordingRecognizer.engine.name)
        try run.start()
        try run.push(.speechStarted, at: 0)
        try run.push([Float](repeating: 0.1, count: 32000), at: 0)
        try run.pushHint(at: 1.5)
        try run.push(.speechEnded, at: 1.5)
        try run.finish()
        let calls = RecordingRecognizer.calls.withLock { $0 }
        #expect(!calls.contains { if case .prepare = $0 { return true } else { return false } })
        #expect(calls.contains { if case .end(let f) = $0 { return f == 27200 } else { return false } })
    }
}

/// A recognizer node driven by hand, as if a VAD were upstream, on a context with `realtime` as given.
final class RecordingNodeRun {
    let node: RecognizerNode
    let context: NodeContext
    private let box = Box()
    private final class Box {
        var output: [Frame] = []
        var observed: [Event] = []
    }

    init(realtime: Bool, engine: String) {
        let values = try! ParameterValidation.validate(["engine": .string(engine), "partials": "on"],
                                                       against: RecognizerNode.descriptor, at: .root / "nodes" / "asr")
        node = try! RecognizerNode(configuration: NodeConfiguration(id: "asr", type: "recognizer", values: values))
        let box = self.box
        context = NodeContext(nodeID: "asr", inputFormat: SpeechFixtures.format, outputFormat: nil,
                              inputKinds: [.audio, .speech], clock: ManualClock(), options: RunOptions(realtime: realtime),
                              output: { box.output.append($1) }, observer: { box.observed.append($0) })
    }

    func start() throws { try node.start(context) }

    func push(_ samples: [Float], at position: Int) throws {
        for buffer in Signals.buffers(samples, format: SpeechFixtures.format, framesPerBuffer: 1600, startingAt: Int64(position)) {
            try node.process(buffer, context)
        }
    }

    func push(_ payload: EventPayload, at time: Double) throws {
        try node.handle(Event(node: "vad", time: time, payload: payload), context)
    }

    func pushHint(at time: Double) throws {
        try push(.custom(type: SpeechHints.speechPausing, kind: .speech, fields: JSONObject()), at: time)
    }

    func finish() throws {
        try node.finish(context)
        node.stop()
    }

    var observed: [Event] { box.observed }
    var transcripts: [TranscriptUpdate] {
        box.observed.compactMap { if case .transcript(let t) = $0.payload { return t } else { return nil } }
    }
}

/// A fake engine that records the calls the node makes.
final class RecordingRecognizer: SpeechRecognizer {
    enum Call: Equatable, Sendable {
        case start
        case prepare(Int)
        case end(Int?)
    }

    static let calls = Mutex<[Call]>([])
    static func reset() {
        calls.withLock { $0 = [] }
        _ = try? RecognizerEngines.register(engine)  // the first call registers it; later ones find it there
    }

    let capabilities = RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: true,
                                              languages: ["en-US"], sampleRate: 16000)
    private var fed = 0
    func startUtterance() throws {
        fed = 0
        Self.calls.withLock { $0.append(.start) }
    }
    func process(_ samples: UnsafeBufferPointer<Float>) throws { fed += samples.count }
    func partialHypothesis() -> String { "" }
    func prepareFinal(speechEndsAfter frames: Int) {
        precondition(frames <= fed, "prepareFinal beyond the audio fed")
        Self.calls.withLock { $0.append(.prepare(frames)) }
    }
    func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult {
        Self.calls.withLock { $0.append(.end(frames)) }
        return RecognitionResult(text: "words", words: [RecognizedWord(word: "words", start: 0, end: 0.5)])
    }
    func endUtterance() throws -> RecognitionResult {
        Self.calls.withLock { $0.append(.end(nil)) }
        return RecognitionResult(text: "words", words: [RecognizedWord(word: "words", start: 0, end: 0.5)])
    }

    static let engine = RecognizerEngine(
        name: "test-recording", summary: "Records the node's calls.",
        capabilities: { _ in RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: true,
                                                    languages: ["en-US"], sampleRate: 16000) },
        make: { _ in RecordingRecognizer() })
}
