import AudioGraphCore
import AudioGraphTestKit
import Foundation

/// A pass-through filter; `fail-after` buffers makes it throw (to test failure handling).
final class PassNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "test-pass", summary: "Passes everything on.", category: .filter,
        parameters: [ParameterSpec("failAfter", .integer(range: 0...1_000_000), doc: "Throw on this buffer.")],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [], forwardsInput: true)])
    let failAfter: Int?
    var seen = 0
    init(configuration: NodeConfiguration) throws { failAfter = configuration.int("failAfter") }
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        if let failAfter, seen >= failAfter {
            throw GraphError(.nodeFailed, at: "node \(context.nodeID)", "deliberate failure")
        }
        seen += 1
        context.emit(buffer)
    }
}

/// A slow consumer behind a queue of 4 frames (tests the bounded queue).
final class QueuedPassNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "test-queued", summary: "Passes audio on, from a queue.", category: .filter, parameters: [],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [], forwardsInput: true)],
        execution: .queued(capacity: 4))
    init(configuration: NodeConfiguration) throws {}
}

/// Needs transcript frames (stands in for a caption sink).
final class TranscriptSinkNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "test-captions", summary: "Needs transcripts.", category: .sink, parameters: [],
        inputs: [.init(requires: [.transcript])], outputs: [])
    init(configuration: NodeConfiguration) throws {}
    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }
}

/// Emits a `level`-kind event per buffer and passes audio on (stands in for a level meter).
final class EventMakerNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "test-events", summary: "One event per buffer.", category: .filter, parameters: [],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [.level], forwardsInput: true)])
    init(configuration: NodeConfiguration) throws {}
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        context.emit(buffer)
        context.emit(.level(LevelReading(level: 0.5, rmsDb: [-30], peakDb: [-20])), at: buffer.endTime)
    }
}

/// Stands in for the real resampler so the builder can insert one: changes the format by dropping or
/// repeating frames (good enough to test negotiation, not audio).
final class FakeResamplerNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "resampler", summary: "Test converter.", category: .filter,
        parameters: [
            ParameterSpec("sampleRate", .integer(range: 1000...384_000), doc: "Rate."),
            ParameterSpec("channels", .integer(range: 1...8), doc: "Channels."),
        ],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [.audio], forwardsInput: true)])
    let rate: Int?
    let channels: Int?
    var position: Int64 = 0
    init(configuration: NodeConfiguration) throws {
        rate = configuration.int("sampleRate")
        channels = configuration.int("channels")
    }
    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? {
        input.map { AudioFormat(sampleRate: rate ?? $0.sampleRate, channels: channels ?? $0.channels) }
    }
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        let out = context.outputFormat!
        let frames = buffer.frameCount * out.sampleRate / buffer.format.sampleRate
        let samples = [Float](repeating: 0, count: frames * out.channels)
        context.emit(AudioBuffer(format: out, samples: samples, position: position))
        position += Int64(frames)
    }
}

func testRegistry() -> NodeRegistry {
    var registry = NodeRegistry()
    for type in [ToneSourceNode.self, RecordingSinkNode.self, PassNode.self, QueuedPassNode.self,
                 TranscriptSinkNode.self, EventMakerNode.self, FakeResamplerNode.self, ParticipantSourceNode.self,
                 BlockTranscriberNode.self] as [any AudioNode.Type] {
        try! registry.register(type)
    }
    return registry
}

/// Parses and builds a config (as JSON text) with the test registry.
func buildGraph(_ json: String, overrides: [String] = [], registry: NodeRegistry = testRegistry(),
                base: String = FileManager.default.temporaryDirectory.path) throws(GraphError) -> Graph {
    let spec = try ConfigLoader.parse(json, baseDirectory: base, fileName: "test.json", overrides: overrides)
    return try GraphBuilder(registry: registry).build(spec)
}

/// The error building `json` throws, or nil.
func buildError(_ json: String, overrides: [String] = []) -> GraphError? {
    do {
        _ = try buildGraph(json, overrides: overrides)
        return nil
    } catch {
        return error
    }
}

/// A config with these nodes and links.
func config(_ nodes: String, links: String, extra: String = "") -> String {
    "{\"version\": 1, \(extra) \"nodes\": {\(nodes)}, \"links\": [\(links)]}"
}

func recorder(_ graph: Graph, _ id: String) -> RecordingSinkNode {
    graph.node(id)!.instance as! RecordingSinkNode
}
