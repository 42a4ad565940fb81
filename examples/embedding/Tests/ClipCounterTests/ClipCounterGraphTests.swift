import AudioGraph
import AudioGraphTestKit
import ClipCounter
import Testing

/// The clip counter in a graph built in code, with a registry of its own, run by the real runtime.
@Suite("clip-counter in a graph")
struct ClipCounterGraphTests {
    /// The built-ins, the test kit's `test-tone` and the clip counter.
    func registry() throws -> NodeRegistry {
        var registry = NodeRegistry.builtins
        try registry.register(ToneSourceNode.self, origin: "AudioGraphTestKit")
        try registry.register(ClipCounterNode.self, origin: "ClipCounterTests")
        return registry
    }

    @Test("a node type name can be registered once")
    func registeredOnce() throws {
        var registry = try registry()
        #expect(registry.entry(for: "clip-counter")?.origin == "ClipCounterTests")
        #expect(throws: GraphError.self) { try registry.register(ClipCounterNode.self, origin: "again") }
    }

    @Test("events arrive as an AsyncSequence that ends with the run")
    func runsInAGraph() async throws {
        // A 440 Hz sine at 0.5 (-6 dBFS) for 1 s: over -7 dBFS twice a cycle, so one run of the whole second.
        let spec = GraphSpec(
            nodes: [
                NodeSpec(id: "tone", type: "test-tone", parameters: ["seconds": 1]),
                NodeSpec(id: "clip", type: "clip-counter", parameters: ["thresholdDb": -7]),
            ],
            links: try LinkSpec.chain("tone -> clip"),
            baseDirectory: ".")
        let graph = try GraphBuilder(registry: try registry()).build(spec)
        #expect(graph.node("clip")?.outputKinds.first?.contains(ClipCounterNode.clipKind) == true)

        let (events, result) = GraphRuntime(graph: graph).start()
        var received: [Event] = []
        for await event in events { received.append(event) }
        let summary = try await result.value

        #expect(!summary.interrupted)
        let runs = received.compactMap(ClipRun.init)
        #expect(runs.count == 1)
        #expect(runs.first.map { $0.start < 0.01 && $0.end > 0.99 } == true)
        let last = try #require(received.last.flatMap(ClipSummary.init))
        #expect(last.runs == 1 && abs(last.peakDb - -6.02) < 0.01)
    }
}
