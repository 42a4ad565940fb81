@testable import AudioGraphCore
import AudioGraphTestKit
import Testing

/// The per-node `queue` key: a node of any kind can be given a thread and a queue of its own, of any size.
@Suite struct NodeQueueConfigTests {
    let nodes = #""src": {"type": "test-tone", "seconds": 1}, "p": {"type": "test-pass", "queue": 3},"#
        + #""q": {"type": "test-queued", "queue": 100}, "out": {"type": "test-recorder"}"#

    @Test("queue makes an inline node queued and resizes a queued node's queue; others keep theirs")
    func queueKeySetsCapacity() throws {
        let graph = try buildGraph(config(nodes, links: #""src -> p -> q -> out""#))
        let capacities = Dictionary(uniqueKeysWithValues: graph.nodes.map { ($0.id, $0.queueCapacity) })
        #expect(capacities == ["src": nil, "p": 3, "q": 100, "out": nil])
        // It is not a parameter of the node type.
        #expect(graph.nodes.first { $0.id == "p" }?.configuration.values["queue"] == nil)
        // Every frame still passes, in order, through the new queue.
        let summary = try GraphRuntime(graph: graph, clock: ManualClock()).run()
        #expect(recorder(graph, "out").samples.count == 16000)
        #expect(summary.statistics["p"]?.queue?.capacity == 3)
        // Audio fills at most the 3 slots; the end of stream may take one of the spare slots past them (a full queue
        // never makes it wait), so the deepest the queue gets is 4 (CI once saw 4 where this said 3).
        let maxDepth = try #require(summary.statistics["p"]?.queue?.maxDepth)
        #expect(maxDepth <= 3 + 1, "\(maxDepth)")
    }

    @Test("--set node.queue=N overrides it")
    func queueOverride() throws {
        let graph = try buildGraph(config(nodes, links: #""src -> p -> q -> out""#), overrides: ["out.queue=7"])
        #expect(graph.nodes.first { $0.id == "out" }?.queueCapacity == 7)
    }

    @Test("a bad queue names its JSON path", arguments: [#""many""#, "0", "2.5", "70000"])
    func badQueue(value: String) {
        let json = config(#""src": {"type": "test-tone"}, "out": {"type": "test-recorder", "queue": \#(value)}"#,
                          links: #""src -> out""#)
        do {
            _ = try buildGraph(json)
            Issue.record("queue \(value) was accepted")
        } catch {
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.out.queue", "\(error)")
            #expect(error.message.contains("from 1 to 65536"), "\(error)")
        }
    }

    @Test("queue on a source is an error naming its path")
    func queueOnASource() {
        let json = config(#""src": {"type": "test-tone", "queue": 8}, "out": {"type": "test-recorder"}"#,
                          links: #""src -> out""#)
        do {
            _ = try buildGraph(json)
            Issue.record("queue on a source was accepted")
        } catch {
            #expect(error.location == "nodes.src.queue" && error.message.contains("a source has no input"), "\(error)")
        }
    }
}
