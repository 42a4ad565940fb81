/// What the runtime counted for one node: calls, time spent in them, frames in and out, and per-frame latency.
///
/// Counted by the runtime around every call into the node, never by the node itself, so plugins and embedders'
/// nodes are measured like the built-in ones.
public struct NodeCounters: Sendable, Equatable {
    /// Calls into the node: `process`, `handle` and `finish` (a source: `produce`).
    public var calls: Int64 = 0
    /// Wall time inside those calls, less the time spent in the nodes they fed inline and waiting for a full
    /// queue downstream or on the media clock (a source paced at 1x), in nanoseconds.
    public var processingNanoseconds: UInt64 = 0
    /// Audio buffers and frames (samples per channel) received.
    public var buffersIn: Int64 = 0
    public var framesIn: Int64 = 0
    /// Events and control commands received.
    public var eventsIn: Int64 = 0
    public var commandsIn: Int64 = 0
    /// Audio buffers and frames sent downstream (once per buffer, whatever the number of links).
    public var buffersOut: Int64 = 0
    public var framesOut: Int64 = 0
    /// Events sent downstream, including ones passed on.
    public var eventsOut: Int64 = 0
    /// Per frame: time waiting in the node's queue plus the node's own time on it.
    public var latency = LatencyHistogram()

    public init() {}

    /// Seconds of processing.
    public var processingSeconds: Double { Double(processingNanoseconds) / 1e9 }
}

/// A node's input queue, when it has one.
public struct QueueStatistics: Sendable, Equatable {
    /// Items (audio buffers, events, commands) it holds at most.
    public var capacity: Int
    /// Items in it now.
    public var depth: Int
    /// The most it ever held.
    public var maxDepth: Int
    /// Items thrown away because it was full (live capture only: nothing is dropped from a file).
    public var dropped: Int
    /// The audio frames (samples per channel) in the buffers thrown away.
    public var droppedFrames: Int
    /// Times a producer found it full and waited (file sources: back-pressure, nothing lost).
    public var fullWaits: Int
}
