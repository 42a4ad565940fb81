/// A snapshot of what the runtime counted for every node: `GraphRuntime.statistics()` while the graph runs,
/// `RunSummary.statistics` at the end. What `audiograph run --stats` prints and `/metrics` exports.
public struct GraphStatistics: Sendable, Equatable {
    /// Seconds since the run started (to its end, once it ended).
    public var wallSeconds: Double
    /// In graph order (sources first).
    public var nodes: [NodeStatistics]

    public init(wallSeconds: Double, nodes: [NodeStatistics]) {
        self.wallSeconds = wallSeconds
        self.nodes = nodes
    }

    /// Processing time of every node together.
    public var totalProcessingSeconds: Double { nodes.reduce(0) { $0 + $1.counters.processingSeconds } }

    /// A node's share of all processing time, 0…1.
    public func timeShare(of node: NodeStatistics) -> Double {
        let total = totalProcessingSeconds
        return total > 0 ? node.counters.processingSeconds / total : 0
    }

    public subscript(id: String) -> NodeStatistics? { nodes.first { $0.id == id } }

    /// The same node ids' counters added up (batch workers total the files they ran).
    public mutating func accumulate(_ other: GraphStatistics) {
        wallSeconds += other.wallSeconds
        for node in other.nodes {
            if let index = nodes.firstIndex(where: { $0.id == node.id && $0.type == node.type }) {
                nodes[index].accumulate(node)
            } else {
                nodes.append(node)
            }
        }
    }
}

/// One node's counters (see `NodeCounters`), its queue, and its speech latencies when it emits transcripts.
public struct NodeStatistics: Sendable, Equatable {
    public var id: String
    public var type: String
    public var isSource: Bool
    /// The sample rate of the audio it takes (a source: makes); nil when it takes none.
    public var sampleRate: Int?
    public var counters: NodeCounters
    public var queue: QueueStatistics?
    public var speech: SpeechLatencyStatistics?

    public init(id: String, type: String, isSource: Bool, sampleRate: Int?, counters: NodeCounters,
                queue: QueueStatistics?, speech: SpeechLatencyStatistics?) {
        self.id = id
        self.type = type
        self.isSource = isSource
        self.sampleRate = sampleRate
        self.counters = counters
        self.queue = queue
        self.speech = speech
    }

    /// Seconds of audio it handled: received, or for a source, emitted.
    public var audioSeconds: Double {
        guard let sampleRate, sampleRate > 0 else { return 0 }
        return Double(isSource ? counters.framesOut : counters.framesIn) / Double(sampleRate)
    }

    /// Processing seconds per second of audio (0.01: a hundred times faster than real time); nil without audio.
    public var realTimeFactor: Double? {
        let audio = audioSeconds
        return audio > 0 ? counters.processingSeconds / audio : nil
    }

    mutating func accumulate(_ other: NodeStatistics) {
        counters.calls += other.counters.calls
        counters.processingNanoseconds += other.counters.processingNanoseconds
        counters.buffersIn += other.counters.buffersIn
        counters.framesIn += other.counters.framesIn
        counters.eventsIn += other.counters.eventsIn
        counters.commandsIn += other.counters.commandsIn
        counters.buffersOut += other.counters.buffersOut
        counters.framesOut += other.counters.framesOut
        counters.eventsOut += other.counters.eventsOut
        counters.latency.merge(other.counters.latency)
        if let theirs = other.queue {
            if var mine = queue {
                mine.depth = theirs.depth
                mine.maxDepth = max(mine.maxDepth, theirs.maxDepth)
                mine.dropped += theirs.dropped
                mine.droppedFrames += theirs.droppedFrames
                mine.fullWaits += theirs.fullWaits
                queue = mine
            } else {
                queue = theirs
            }
        }
        if let theirs = other.speech {
            var mine = speech ?? SpeechLatencyStatistics()
            mine.speechEndToFinal.merge(theirs.speechEndToFinal)
            mine.firstPartial.merge(theirs.firstPartial)
            speech = mine
        }
    }
}
