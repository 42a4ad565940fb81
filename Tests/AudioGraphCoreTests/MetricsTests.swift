@testable import AudioGraphCore
import AudioGraphTestKit
import Synchronization
import Testing

/// Stands in for a VAD: passes audio on and emits `speechStarted` at `start` and `speechEnded` at `end` (stream
/// seconds); the end is reported while the buffer holding `reportEndAt` passes (a real VAD waits for its hangover).
final class ScriptedVADNode: AudioNode {
    static let startParameter = Parameter.number("start", range: 0...1000, default: 0, doc: "speechStarted time.")
    static let endParameter = Parameter.number("end", range: 0...1000, default: 0, doc: "speechEnded time.")
    static let reportEndAtParameter = Parameter.number("reportEndAt", range: 0...1000, default: 0,
                                                       doc: "When speechEnded is emitted.")
    static let descriptor = NodeDescriptor(
        type: "test-script-vad", summary: "Scripted speech events.", category: .filter,
        parameters: [
            startParameter.spec, endParameter.spec, reportEndAtParameter.spec,
        ],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [.speech], forwardsInput: true)])
    let start: Double, end: Double, reportEndAt: Double
    init(configuration: NodeConfiguration) throws {
        start = configuration[Self.startParameter]
        end = configuration[Self.endParameter]
        reportEndAt = configuration[Self.reportEndAtParameter]
    }
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        context.emit(buffer)
        let range = buffer.startTime..<buffer.endTime
        if range.contains(start) { context.emit(.speechStarted, at: start) }
        if range.contains(reportEndAt) { context.emit(.speechEnded, at: end) }
    }
}

/// Stands in for a recognizer: "decoding" moves the manual clock. A partial (segment 1) once audio at
/// `partialAt` arrives, after `partialCost` seconds; the final at `speechEnded`, after `finalCost`.
final class ScriptedRecognizerNode: AudioNode {
    static let partialAtParameter = Parameter.number("partialAt", range: 0...1000, default: 0,
                                                     doc: "Stream time of the partial.")
    static let partialCostParameter = Parameter.number("partialCost", range: 0...1000, default: 0,
                                                       doc: "Clock advance before the partial.")
    static let finalCostParameter = Parameter.number("finalCost", range: 0...1000, default: 0,
                                                     doc: "Clock advance before the final.")
    static let descriptor = NodeDescriptor(
        type: "test-script-asr", summary: "Scripted transcripts.", category: .filter,
        parameters: [
            partialAtParameter.spec, partialCostParameter.spec, finalCostParameter.spec,
        ],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [.transcript], forwardsInput: false)])
    let partialAt: Double, partialCost: Double, finalCost: Double
    let clock: ManualClock
    var speechStart: Double?
    init(configuration: NodeConfiguration) throws {
        partialAt = configuration[Self.partialAtParameter]
        partialCost = configuration[Self.partialCostParameter]
        finalCost = configuration[Self.finalCostParameter]
        clock = MetricsTests.clock.withLock { $0 }!
    }
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        guard let speechStart, (buffer.startTime..<buffer.endTime).contains(partialAt) else { return }
        clock.advance(by: partialCost)
        context.emit(.transcript(TranscriptUpdate(segment: 1, revision: 1, isFinal: false, start: speechStart,
                                                  end: partialAt, text: "hello")), at: partialAt)
    }
    func handle(_ event: Event, _ context: NodeContext) throws {
        switch event.payload {
        case .speechStarted: speechStart = event.time
        case .speechEnded:
            clock.advance(by: finalCost)
            context.emit(.transcript(TranscriptUpdate(segment: 1, revision: 2, isFinal: true, start: speechStart ?? 0,
                                                      end: event.time, text: "hello world")), at: event.time)
        default: break
        }
    }
}

@Suite(.serialized) struct MetricsTests {
    /// The manual clock the scripted recognizer advances (set before each graph is built).
    static let clock = Mutex<ManualClock?>(nil)

    func registry() -> NodeRegistry {
        var registry = testRegistry()
        try! registry.register(ScriptedVADNode.self)
        try! registry.register(ScriptedRecognizerNode.self)
        return registry
    }

    /// 3 s of tone in 0.1 s blocks → scripted VAD (speech 0.5…1.2, reported at 1.8) → scripted recognizer
    /// (partial once audio at 0.8 arrives, 0.05 s to decode; final 0.2 s after speechEnded) → a sink.
    func runSpeech(source: String, metrics: Bool = true) throws -> (events: [Event], summary: RunSummary) {
        let clock = ManualClock()
        Self.clock.withLock { $0 = clock }
        let graph = try buildGraph(config(
            #""src": {"type": "test-tone", "seconds": 3, "blockFrames": 1600\#(source)},"#
                + #""vad": {"type": "test-script-vad", "start": 0.5, "end": 1.2, "reportEndAt": 1.8},"#
                + #""asr": {"type": "test-script-asr", "partialAt": 0.8, "partialCost": 0.05, "finalCost": 0.2},"#
                + #""out": {"type": "test-captions"}"#,
            links: #""src -> vad -> asr -> out""#), registry: registry())
        let events = Mutex<[Event]>([])
        let summary = try GraphRuntime(graph: graph, clock: clock, options: RunOptions(metrics: metrics))
            .run(onEvent: { event in events.withLock { $0.append(event) } })
        return (events.withLock { $0 }, summary)
    }

    func latencies(_ events: [Event]) -> [SpeechLatency] { events.compactMap(SpeechLatency.init) }

    @Test("paced at 1x: latencies on the audio clock (speech end 1.2 s, final at 2.0 s → 0.8 s; first partial 0.35 s)")
    func pacedLatencyIsOnTheAudioClock() throws {
        let (events, summary) = try runSpeech(source: #", "realtime": true"#)
        let measured = latencies(events)
        #expect(measured.count == 1)
        let latency = try #require(measured.first)
        #expect(latency.segment == 1)
        #expect(latency.speechEnd == 1.2)
        // The final is emitted at clock 1.8 + 0.2; the audio at 1.2 was there at clock 1.2.
        #expect(abs(latency.speechEndToFinal - 0.8) < 1e-9)
        // The partial: audio at 0.8 arrived at clock 0.8, decoded by 0.85; speech started at 0.5.
        #expect(abs(try #require(latency.firstPartial) - 0.35) < 1e-9)
        // The latency event follows its final, from the recognizer, stamped at the speech end.
        let finalIndex = try #require(events.firstIndex { if case .transcript(let u) = $0.payload { u.isFinal } else { false } })
        #expect(events[finalIndex + 1].node == "asr")
        #expect(events[finalIndex + 1].json["type"] == .string("latency"))
        let speech = try #require(summary.statistics["asr"]?.speech)
        #expect(speech.speechEndToFinal.count == 1)
        #expect(speech.speechEndToFinal.quantile(0.5).map { abs($0 - 0.8) < 1e-9 } == true)
        #expect(speech.firstPartial.quantile(0.95).map { abs($0 - 0.35) < 1e-9 } == true)
    }

    @Test("faster than real time: latencies from when the source emitted that audio")
    func batchLatencyIsFromTheSourcesEmission() throws {
        let (events, _) = try runSpeech(source: "")
        let latency = try #require(latencies(events).first)
        // No pacing: the clock moves only by decoding. The block holding 1.2 s left the source at clock 0.05
        // (after the partial's decode); the final came at 0.05 + 0.2.
        #expect(abs(latency.speechEndToFinal - 0.2) < 1e-9)
        // The block holding 0.5 s left at clock 0; the partial came at 0.05.
        #expect(abs(try #require(latency.firstPartial) - 0.05) < 1e-9)
    }

    @Test("with metrics off: no latency events and nothing counted")
    func metricsOff() throws {
        let (events, summary) = try runSpeech(source: #", "realtime": true"#, metrics: false)
        #expect(latencies(events).isEmpty)
        #expect(events.contains { if case .transcript(let u) = $0.payload { u.isFinal } else { false } })
        #expect(summary.statistics.nodes.allSatisfy { $0.counters == NodeCounters() && $0.speech == nil })
    }

    @Test("frames, buffers, events and calls are counted per node; a queue's high-water mark stays in its capacity")
    func countsFramesPerNode() throws {
        let graph = try buildGraph(config(
            #""src": {"type": "test-tone", "seconds": 2, "blockFrames": 1000}, "ev": {"type": "test-events"},"#
                + #""q": {"type": "test-queued"}, "out": {"type": "test-recorder"}"#,
            links: #""src -> ev -> q -> out""#), registry: registry())
        let summary = try GraphRuntime(graph: graph, clock: ManualClock()).run()
        let stats = summary.statistics
        #expect(stats.nodes.map(\.id) == ["src", "ev", "q", "out"])
        let src = try #require(stats["src"]), ev = try #require(stats["ev"])
        let q = try #require(stats["q"]), out = try #require(stats["out"])
        #expect(src.isSource && src.counters.framesOut == 32000 && src.counters.buffersOut == 32)
        #expect(src.counters.calls == 33)  // 32 blocks and the produce that says finished
        #expect(src.audioSeconds == 2)
        #expect(ev.counters.framesIn == 32000 && ev.counters.buffersIn == 32)
        #expect(ev.counters.framesOut == 32000 && ev.counters.eventsOut == 32)
        #expect(q.counters.framesIn == 32000 && q.counters.eventsIn == 32 && q.counters.eventsOut == 32)
        #expect(out.counters.framesIn == 32000 && out.counters.eventsIn == 32 && out.counters.framesOut == 0)
        // Every frame's latency is recorded: 32 buffers + 32 events + the end of stream's finish call.
        #expect(out.counters.latency.count == 65)
        let queue = try #require(q.queue)
        #expect(queue.capacity == 4 && queue.maxDepth >= 1 && queue.maxDepth <= 4 + 1 && queue.dropped == 0,
                "the end of stream may take a spare slot past the capacity: \(queue)")
        #expect(stats["ev"]?.queue == nil)
        #expect(stats.nodes.allSatisfy { $0.counters.processingNanoseconds > 0 })
        let shares = stats.nodes.map { stats.timeShare(of: $0) }.reduce(0, +)
        #expect(abs(shares - 1) < 1e-9)
    }

    @Test("the --stats json object names every node with its counters")
    func statisticsJSON() throws {
        let (_, summary) = try runSpeech(source: #", "realtime": true"#)
        let json = summary.statistics.json
        #expect(json["type"] == .string("stats"))
        let nodes = try #require(json["nodes"]?.objectValue)
        #expect(nodes.keys == ["src", "vad", "asr", "out"])
        let asr = try #require(nodes["asr"]?.objectValue)
        #expect(asr["type"] == .string("test-script-asr"))
        #expect(asr["framesIn"] == .number(48000))
        #expect(asr["speechEndToFinal"]?.objectValue?["p50"] == .number(0.8))
        #expect(asr["firstPartial"]?.objectValue?["count"] == .number(1))
        #expect(nodes["src"]?.objectValue?["framesOut"] == .number(48000))
        let table = summary.statistics.table
        #expect(table.contains("asr: speech end → final p50 800.0ms p95 800.0ms over 1 finals"))
        #expect(table.split(separator: "\n").first?.hasPrefix("node") == true)
    }
}
