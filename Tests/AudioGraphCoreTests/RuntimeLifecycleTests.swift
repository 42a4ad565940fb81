@testable import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// Issue 40, item 1: the runtime's start, run and stop as one state machine (`RuntimeLifecycle`), tested as plain
/// values over every transition; and the race it closes: when a node's `start` threw, a command sent before (held
/// for the sources) or after was accepted and never answered, so `TranscriptionSession`'s steering calls and the
/// HTTP worker behind them waited forever.
@Suite struct RuntimeLifecycleTests {
    typealias Lifecycle = RuntimeLifecycle<String, String>
    static let failure = GraphError(.cannotCreateOutput, at: "nodes.out", "permission denied")

    @Test func idleAndStartingHoldCommandsInOrderAndKeepWaiters() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.state == .idle)
        #expect(lifecycle.send("a") == .hold)
        #expect(lifecycle.waitForStart("w1") == .wait)
        let began = lifecycle.beginStart()
        #expect(began && lifecycle.state == .starting)
        let again = lifecycle.beginStart()
        #expect(!again, "a runtime runs once")
        #expect(lifecycle.send("b") == .hold)
        #expect(lifecycle.waitForStart("w2") == .wait)
        let decided = lifecycle.started()
        #expect(decided.commands == ["a", "b"] && decided.waiters == ["w1", "w2"])
        #expect(lifecycle.state == .running)
    }

    @Test func runningPostsAndAnswersWaitersAtOnce() {
        var lifecycle = Lifecycle()
        _ = lifecycle.beginStart()
        _ = lifecycle.started()
        #expect(lifecycle.send("c") == .post)
        #expect(lifecycle.waitForStart("w") == .answer(nil))
        #expect(lifecycle.started().commands.isEmpty, "a second started changes nothing")
        #expect(lifecycle.startFailed(Self.failure).commands.isEmpty && lifecycle.state == .running,
                "a start that succeeded cannot fail afterwards")
        #expect(lifecycle.finished().isEmpty)
        #expect(lifecycle.state == .finished)
        #expect(lifecycle.send("d") == .refuse)
        #expect(lifecycle.waitForStart("late") == .answer(nil))
        let restarted = lifecycle.beginStart()
        #expect(!restarted)
    }

    @Test func aFailedStartFailsWhatWasHeldAndRefusesEverythingAfter() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.send("a") == .hold)
        #expect(lifecycle.waitForStart("w1") == .wait)
        _ = lifecycle.beginStart()
        #expect(lifecycle.send("b") == .hold)
        let decided = lifecycle.startFailed(Self.failure)
        #expect(decided.commands == ["a", "b"] && decided.waiters == ["w1"])
        #expect(lifecycle.state == .failedToStart(Self.failure))
        #expect(lifecycle.send("c") == .refuse)
        #expect(lifecycle.waitForStart("w2") == .answer(Self.failure))
        #expect(lifecycle.started().commands.isEmpty && lifecycle.state == .failedToStart(Self.failure))
        #expect(lifecycle.finished().isEmpty && lifecycle.state == .failedToStart(Self.failure),
                "finishing keeps the failure")
    }

    @Test func finishingBeforeAnyStartAnswersWhatWasHeld() {
        var lifecycle = Lifecycle()
        #expect(lifecycle.send("a") == .hold)
        #expect(lifecycle.finished() == ["a"])
        #expect(lifecycle.send("b") == .refuse)
    }

    /// Failed on the code before: the held command and the later one were accepted and never answered (the
    /// waits below timed out), and `send` after the failure returned true.
    @Test func aFailedStartAnswersEveryCommandNotRunning() async throws {
        var registry = testRegistry()
        try registry.register(FailingStartNode.self)
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 0.5},"#
            + #""out": {"type": "test-bad-output"}"#, links: #""src -> out""#), registry: registry)
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let outcomes = Mutex<[String: CommandDelivery]>([:])
        let held = runtime.send(.flush) { outcome in outcomes.withLock { $0["before"] = outcome } }
        #expect(held, "held until the start is decided")
        #expect(throws: GraphError.self) { try runtime.run() }
        let refused = runtime.send(.flush) { outcome in outcomes.withLock { $0["after"] = outcome } }
        #expect(!refused, "refused at once once the start failed")
        let answered = await eventually(timeout: 10) { outcomes.withLock { $0.count == 2 } }
        #expect(answered, "every command is answered: \(outcomes.withLock { $0 })")
        #expect(outcomes.withLock { $0 } == ["before": .notRunning, "after": .notRunning])
        await #expect(throws: GraphError.self) { try await runtime.waitUntilStarted() }
    }


    @Test func commandsSentBeforeTheStartAreDeliveredOnceByEverySource() throws {
        let graph = try buildGraph(config(#""a": {"type": "test-tone", "seconds": 0.1}, "b": {"type": "test-tone", "seconds": 2},"#
            + #""out": {"type": "test-recorder"}, "out2": {"type": "test-recorder"}"#, links: #""a -> out", "b -> out2""#))
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let outcomes = Mutex<[CommandDelivery]>([])
        runtime.send(.flush) { outcome in outcomes.withLock { $0.append(outcome) } }
        _ = try runtime.run()
        #expect(outcomes.withLock { $0 } == [.delivered])
        for id in ["out", "out2"] {
            let commands = recorder(graph, id).frames.filter { if case .control(.flush) = $0 { true } else { false } }
            #expect(commands.count == 1, "\(id) got the command once")
        }
        #expect(!runtime.send(.flush), "refused once the run is over")
    }
}
