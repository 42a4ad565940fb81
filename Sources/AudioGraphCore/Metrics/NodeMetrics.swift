import Synchronization

/// The runtime's counters for one node while the graph runs. Each is written by one thread only (the thread
/// running the node: calls into a node never overlap), so an update is a relaxed load and store — no locked
/// instruction, no lock — and anyone may read them (`GraphRuntime.statistics()` from a metrics scrape) at any
/// time; a snapshot taken mid-call may be a frame apart between counters.
final class NodeMetrics: Sendable {
    let calls = Atomic<Int64>(0)
    let processingNanoseconds = Atomic<UInt64>(0)
    let buffersIn = Atomic<Int64>(0)
    let framesIn = Atomic<Int64>(0)
    let eventsIn = Atomic<Int64>(0)
    let commandsIn = Atomic<Int64>(0)
    let buffersOut = Atomic<Int64>(0)
    let framesOut = Atomic<Int64>(0)
    let eventsOut = Atomic<Int64>(0)
    let latency = AtomicLatencyHistogram()
    /// For nodes that emit transcripts (a few updates per utterance: a lock is fine).
    let speech: Mutex<SpeechLatencyStatistics>?
    /// Time spent sleeping on the media clock (a source paced at 1x), which is not processing.
    let clockWaitNanoseconds = Atomic<UInt64>(0)

    init(emitsTranscripts: Bool) {
        speech = emitsTranscripts ? Mutex(SpeechLatencyStatistics()) : nil
    }

    /// The counters now.
    func snapshot() -> NodeCounters {
        var counters = NodeCounters()
        counters.calls = calls.load(ordering: .relaxed)
        counters.processingNanoseconds = processingNanoseconds.load(ordering: .relaxed)
        counters.buffersIn = buffersIn.load(ordering: .relaxed)
        counters.framesIn = framesIn.load(ordering: .relaxed)
        counters.eventsIn = eventsIn.load(ordering: .relaxed)
        counters.commandsIn = commandsIn.load(ordering: .relaxed)
        counters.buffersOut = buffersOut.load(ordering: .relaxed)
        counters.framesOut = framesOut.load(ordering: .relaxed)
        counters.eventsOut = eventsOut.load(ordering: .relaxed)
        counters.latency = latency.snapshot()
        return counters
    }
}

extension Atomic where Value == Int64 {
    /// Adds `amount` when this thread is the only writer: a relaxed load and store, no read-modify-write.
    @inline(__always)
    func addFromSingleWriter(_ amount: Int64) {
        store(load(ordering: .relaxed) &+ amount, ordering: .relaxed)
    }
}

extension Atomic where Value == UInt64 {
    /// Adds `amount` when this thread is the only writer.
    @inline(__always)
    func addFromSingleWriter(_ amount: UInt64) {
        store(load(ordering: .relaxed) &+ amount, ordering: .relaxed)
    }
}

/// `LatencyHistogram`'s buckets as atomics, for one writer and any readers.
final class AtomicLatencyHistogram: @unchecked Sendable {
    // `@unchecked Sendable`: the buckets are atomics, allocated once and freed in deinit.
    private let buckets: UnsafeMutablePointer<Atomic<Int64>>
    private let sum = Atomic<UInt64>(0)

    init() {
        buckets = .allocate(capacity: LatencyHistogram.bucketCount)
        for index in 0..<LatencyHistogram.bucketCount { (buckets + index).initialize(to: Atomic(0)) }
    }

    deinit {
        buckets.deinitialize(count: LatencyHistogram.bucketCount)
        buckets.deallocate()
    }

    @inline(__always)
    func record(nanoseconds value: UInt64) {
        buckets[LatencyHistogram.bucket(for: value)].addFromSingleWriter(1)
        sum.addFromSingleWriter(value)
    }

    /// The histogram now. Taken while frames are recorded, `count` is the buckets' sum (not the separately
    /// loaded counter), so quantiles always find their rank.
    func snapshot() -> LatencyHistogram {
        let counts = (0..<LatencyHistogram.bucketCount).map { buckets[$0].load(ordering: .relaxed) }
        return LatencyHistogram(counts: counts, count: counts.reduce(0, +), sumNanoseconds: sum.load(ordering: .relaxed))
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
        metrics.clockWaitNanoseconds.addFromSingleWriter(MonotonicTime.nanoseconds() &- before)
    }
}
