@testable import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// A sink whose `start` fails, as an unwritable output would.
final class FailingStartNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "test-bad-output", summary: "Cannot create its output.", category: .sink, parameters: [],
        inputs: [.init(requires: [.audio])], outputs: [])
    init(configuration: NodeConfiguration) throws {}
    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }
    func start(_ context: NodeContext) throws {
        throw GraphError(.cannotCreateOutput, at: "/read-only/out.wav", "permission denied")
    }
}

@Suite struct RuntimeTests {
    func registry() -> NodeRegistry {
        var registry = testRegistry()
        try! registry.register(FailingStartNode.self)
        return registry
    }

    func run(_ graph: Graph, onEvent: @escaping @Sendable (Event) -> Void = { _ in }) throws(GraphError) -> RunSummary {
        try GraphRuntime(graph: graph, clock: ManualClock()).run(onEvent: onEvent)
    }

    @Test func streamsEverySampleAndFinishesInOrder() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 2.5, "blockFrames": 1000},"#
            + #""p": {"type": "test-pass"}, "out": {"type": "test-recorder"}"#, links: #""src -> p -> out""#))
        let summary = try run(graph)
        let out = recorder(graph, "out")
        #expect(out.samples.count == 40000)
        #expect(out.buffers.map(\.position) == (0..<40).map { Int64($0 * 1000) })
        #expect(summary.interrupted == false)
        #expect(summary.sources == [SourceProgress(node: "src", framesProduced: 40000, totalFrames: 40000, sampleRate: 16000)])
        guard case .start(AudioFormat(sampleRate: 16000, channels: 1))? = out.records.first else {
            Issue.record("start first, with the input format: \(out.records.first!)")
            return
        }
        #expect(out.records.suffix(2).map { "\($0)" } == ["finish", "stop"])
    }

    @Test func aTeeFeedsEveryBranchTheSameFrames() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 1}, "a": {"type": "test-recorder"},"#
            + #""q": {"type": "test-queued"}, "b": {"type": "test-recorder"}"#, links: #""src -> a", "src -> q -> b""#))
        _ = try run(graph)
        #expect(recorder(graph, "a").samples == recorder(graph, "b").samples)
        #expect(recorder(graph, "a").samples.count == 16000)
        #expect(recorder(graph, "b").finished)
    }

    @Test func aQueuedNodeGetsEveryFrameInOrder() throws {
        // The queue holds 4 frames; 1000 buffers must pass with none lost (file sources block, never drop).
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 64, "blockFrames": 1024},"#
            + #""q": {"type": "test-queued"}, "out": {"type": "test-recorder"}"#, links: #""src -> q -> out""#))
        _ = try run(graph)
        let positions = recorder(graph, "out").buffers.map(\.position)
        #expect(positions.count == 1000)
        #expect(positions == (0..<1000).map { Int64($0 * 1024) })
    }

    @Test func eventsReachTheObserverOnceWithTheNodeID() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 1, "blockFrames": 4000},"#
            + #""ev": {"type": "test-events"}, "p": {"type": "test-pass"}, "out": {"type": "test-recorder"}"#,
            links: #""src -> ev -> p -> out""#))
        let seen = Mutex<[Event]>([])
        _ = try run(graph) { event in seen.withLock { $0.append(event) } }
        let events = seen.withLock { $0 }
        #expect(events.count == 4)
        #expect(events.allSatisfy { $0.node == "ev" })
        #expect(events.map(\.time) == [0.25, 0.5, 0.75, 1.0])
        // Forwarded downstream in band, after the audio they describe.
        #expect(recorder(graph, "out").events == events)
    }

    @Test func aFailingNodeStopsTheGraphAndEverythingElseIsFinalized() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "endless": true},"#
            + #""bad": {"type": "test-pass", "failAfter": 3}, "after": {"type": "test-recorder"},"#
            + #""q": {"type": "test-queued"}, "side": {"type": "test-recorder"}"#,
            links: #""src -> bad -> after", "src -> q -> side""#))
        #expect(throws: GraphError(.nodeFailed, at: "node bad", "deliberate failure", node: "bad")) {
            try run(graph)
        }
        let after = recorder(graph, "after")
        #expect(after.buffers.count == 3)
        #expect(after.finished, "downstream of the failed node still gets end of stream")
        #expect(after.stopped)
        let side = recorder(graph, "side")
        #expect(side.finished && side.stopped, "a branch beside the failure is finalized")
    }

    @Test func aStartFailureStopsEveryNode() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone"}, "ok": {"type": "test-recorder"},"#
            + #""bad": {"type": "test-bad-output"}"#, links: #""src -> ok", "src -> bad""#), registry: registry())
        #expect(throws: GraphError(.cannotCreateOutput, at: "/read-only/out.wav", "permission denied", node: "bad")) {
            try run(graph)
        }
        #expect(recorder(graph, "ok").stopped)
        #expect(recorder(graph, "ok").buffers.isEmpty)
    }

    @Test func cancellingDrainsAndFinalizes() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "endless": true, "blockFrames": 160},"#
            + #""ev": {"type": "test-events"}, "q": {"type": "test-queued"}, "out": {"type": "test-recorder"}"#,
            links: #""src -> ev -> q -> out""#))
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let count = Atomic<Int>(0)
        // Cancel from the source's own thread after 50 events: deterministic, no timing involved.
        let summary = try runtime.run(onEvent: { _ in
            if count.add(1, ordering: .relaxed).newValue == 50 { runtime.cancel() }
        })
        #expect(summary.interrupted)
        let out = recorder(graph, "out")
        #expect(out.buffers.count == 50)
        #expect(out.finished && out.stopped)
    }

    @Test func asyncStartDeliversEventsAsASequence() async throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 1, "blockFrames": 1600},"#
            + #""ev": {"type": "test-events"}, "out": {"type": "test-recorder"}"#, links: #""src -> ev -> out""#))
        let (events, result) = GraphRuntime(graph: graph, clock: ManualClock()).start()
        var times: [Double] = []
        for await event in events { times.append(event.time) }
        let summary = try await result.value
        #expect(times.count == 10)
        #expect(summary.sources.first?.framesProduced == 16000)
    }

    @Test func rolesAreFoundByTypeNotName() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone"}, "one": {"type": "test-recorder"},"#
            + #""two": {"type": "test-recorder"}"#, links: #""src -> one", "src -> two""#))
        #expect(graph.instances(of: RecordingSinkNode.self).count == 2)
    }
}

@Suite struct BoundedFrameQueueTests {
    func buffer(_ position: Int64) -> Frame {
        .audio(AudioBuffer(format: AudioFormat(sampleRate: 8000, channels: 1), samples: [0], position: position))
    }

    @Test func dropPolicyCountsInsteadOfBlocking() {
        let queue = BoundedFrameQueue(capacity: 2, overflow: .drop)
        for i in 0..<5 { queue.push(buffer(Int64(i))) }
        #expect(queue.dropped == 3)
        #expect(queue.maximumDepth == 2)
        let stats = queue.statistics
        #expect(stats.dropped == 3 && stats.droppedFrames == 3 && stats.depth == 2 && stats.capacity == 2)
        #expect(queue.pop().audioBuffer?.position == 0)
        queue.push(.control(.flush))  // control frames are never dropped, and keep their place
        queue.push(buffer(5))  // full again: dropped
        #expect(queue.dropped == 4)
        #expect(queue.pop().audioBuffer?.position == 1)
        guard case .control(.flush) = queue.pop() else {
            Issue.record("control kept, after the audio queued before it")
            return
        }
        queue.push(.endOfStream)  // nor is the end of stream
        guard case .endOfStream = queue.pop() else {
            Issue.record("end of stream kept")
            return
        }
    }

    /// A command applies where its source put it: after the audio queued before it, before the audio after it.
    @Test func controlFramesKeepTheirPlace() {
        let queue = BoundedFrameQueue(capacity: 8, overflow: .block)
        queue.push(buffer(0))
        queue.push(buffer(1))
        queue.push(.control(.stopTranscription))
        queue.push(buffer(2))
        #expect(queue.pop().audioBuffer?.position == 0)
        #expect(queue.pop().audioBuffer?.position == 1)
        guard case .control(.stopTranscription) = queue.pop() else {
            Issue.record("the command after the audio before it")
            return
        }
        #expect(queue.pop().audioBuffer?.position == 2)
    }

    /// A full queue takes a command and the end of stream in a spare slot, at once and in order: a live queue
    /// still drops audio (capture never waits for a command), a file queue still makes audio wait.
    @Test(arguments: [BoundedFrameQueue.Overflow.drop, .block])
    func aCommandIntoAFullQueueTakesASpareSlot(overflow: BoundedFrameQueue.Overflow) {
        let queue = BoundedFrameQueue(capacity: 1, overflow: overflow)
        queue.push(buffer(0))
        let pushed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            queue.push(.control(.hideCaptions))
            queue.push(.endOfStream)
            pushed.signal()
        }
        #expect(pushed.wait(timeout: .now() + 60) == .success, "neither waited for room")
        #expect(queue.statistics.fullWaits == 0 && queue.statistics.depth == 3)
        if overflow == .drop {
            queue.push(buffer(1))
            #expect(queue.dropped == 1, "audio into a full live queue is still dropped")
        }
        #expect(queue.pop().audioBuffer?.position == 0)
        guard case .control(.hideCaptions) = queue.pop(), case .endOfStream = queue.pop() else {
            Issue.record("the command, then the end, in their places")
            return
        }
    }
}
