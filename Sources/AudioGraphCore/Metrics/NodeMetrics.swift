import Synchronization

/// The runtime's counters for one node while the graph runs: written by the thread running the node (one lock
/// per call, uncontended), read by anyone (`GraphRuntime.statistics()` from a metrics scrape).
final class NodeMetrics: Sendable {
    let counters = Mutex(NodeCounters())
    /// For nodes that emit transcripts.
    let speech: Mutex<SpeechLatencyStatistics>?
    /// Time spent sleeping on the media clock (a source paced at 1x), which is not processing.
    let clockWaitNanoseconds = Atomic<UInt64>(0)

    init(emitsTranscripts: Bool) {
        speech = emitsTranscripts ? Mutex(SpeechLatencyStatistics()) : nil
    }
}

/// The clock handed to a node: the graph's clock, with the time the node sleeps on it counted (so a paced
/// source's waiting is not reported as processing).
struct WaitCountingClock: MediaClock {
    let base: any MediaClock
    let metrics: NodeMetrics

    func now() -> Double { base.now() }

    func sleep(until deadline: Double, cancellation: CancellationFlag) {
        let before = MonotonicTime.nanoseconds()
        base.sleep(until: deadline, cancellation: cancellation)
        metrics.clockWaitNanoseconds.add(MonotonicTime.nanoseconds() &- before, ordering: .relaxed)
    }
}
