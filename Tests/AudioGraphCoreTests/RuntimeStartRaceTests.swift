/// Issue 19, item 1: the start handshake. A `send` that raced `run` (read "not started", lost the CPU while
/// `run` handed the early commands to the sources and set the flag, then appended to a list nobody read again)
/// was accepted and never delivered, so `TranscriptionSession.startTranscription()` waited forever.
@testable import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

@Suite struct RuntimeStartRaceTests {
    /// Senders hammer `send` from before the graph starts until just after it started. Every command `send` accepted must
    /// have been delivered by the time `run` returned and the senders stopped. Repeated, because the old window
    /// was a few instructions wide: the old code lost a command within the first few dozen runs here (2 cores).
    @Test func everyAcceptedCommandIsDeliveredWhileTheGraphStarts() throws {
        let senders = 3
        for attempt in 0..<300 {
            let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 0.25, "blockFrames": 400},"#
                + #""out": {"type": "test-recorder"}"#, links: #""src -> out""#))
            let runtime = GraphRuntime(graph: graph, clock: ManualClock())
            let accepted = Atomic<Int>(0)
            let delivered = Atomic<Int>(0)
            let finished = Atomic<Bool>(false)
            let ready = DispatchGroup()
            let done = DispatchGroup()
            let go = DispatchSemaphore(value: 0)
            for _ in 0..<senders {
                ready.enter()
                done.enter()
                Thread {
                    ready.leave()
                    go.wait()
                    // Send until the graph is seen started, then a few more (bounded: each command is a frame).
                    var afterStart = 0
                    while afterStart < 20, !finished.load(ordering: .acquiring) {
                        if runtime.send(.flush, completion: { if $0 == .delivered { delivered.add(1, ordering: .relaxed) } }) {
                            accepted.add(1, ordering: .relaxed)
                        }
                        if !runtime.progress().isEmpty { afterStart += 1 }
                    }
                    done.leave()
                }.start()
            }
            ready.wait()
            for _ in 0..<senders { go.signal() }
            _ = try runtime.run()
            finished.store(true, ordering: .releasing)
            done.wait()
            let sent = accepted.load(ordering: .relaxed)
            let arrived = delivered.load(ordering: .relaxed)
            #expect(arrived == sent, "attempt \(attempt): \(sent - arrived) of \(sent) accepted commands never delivered")
            if arrived != sent { return }
        }
    }
}
