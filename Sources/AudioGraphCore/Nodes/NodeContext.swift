import Synchronization

/// A node's window on the running graph: where it sends frames, its negotiated formats, the clock, and
/// whether the graph is stopping. The runtime makes one per node; the test kit makes one per harness.
///
/// Confinement: a context is used only by its node, on the thread the runtime calls the node from.
public final class NodeContext {
    /// The node's id in the config.
    public let nodeID: String
    /// The negotiated audio format of the node's input (`nil` for sources and nodes fed no audio).
    public let inputFormat: AudioFormat?
    /// The negotiated format of the audio the node outputs (`nil` if it outputs none).
    public let outputFormat: AudioFormat?
    /// Frame kinds that can arrive on the node's inputs (e.g. a recognizer follows `speech` events when a VAD
    /// is upstream, and finds utterances itself otherwise).
    public let inputKinds: Set<FrameKind>
    /// How many links feed the node when the graph starts (a call's participants add more while it runs). A
    /// `MultiInputNode` waits for this many feeders before it mixes by stream position.
    public let feeders: Int
    /// The clock paced nodes (realtime sources) sleep on. A manual clock in tests.
    public let clock: any MediaClock
    /// Run-wide settings such as `verbose`.
    public let options: RunOptions

    /// The graph's stop flag, for clocks and blocking reads that should wake when the graph stops.
    public let cancellationFlag: CancellationFlag
    private let output: (Int, Frame) -> Void
    private let observer: (Event) -> Void
    private let diagnostics: (String) -> Void

    /// - Parameters:
    ///   - output: delivers a frame to everything linked to an output port (by port index).
    ///   - observer: sees every event this node emits (for `--events`, sessions and embedders).
    ///   - diagnostics: receives warnings for the user.
    public init(nodeID: String, inputFormat: AudioFormat?, outputFormat: AudioFormat?,
                inputKinds: Set<FrameKind> = [.audio], feeders: Int = 1, clock: any MediaClock,
                options: RunOptions = RunOptions(), cancellation: CancellationFlag = CancellationFlag(),
                output: @escaping (Int, Frame) -> Void, observer: @escaping (Event) -> Void = { _ in },
                diagnostics: @escaping (String) -> Void = { _ in }) {
        self.nodeID = nodeID
        self.inputFormat = inputFormat
        self.outputFormat = outputFormat
        self.inputKinds = inputKinds
        self.feeders = feeders
        self.clock = clock
        self.options = options
        self.cancellationFlag = cancellation
        self.output = output
        self.observer = observer
        self.diagnostics = diagnostics
    }

    /// True once the graph is stopping (SIGINT, a failure elsewhere): sources return `.finished` promptly.
    public var isCancelled: Bool { cancellationFlag.isCancelled }

    /// Sends audio downstream.
    public func emit(_ buffer: AudioBuffer, port: Int = 0) {
        output(port, .audio(buffer))
    }

    /// Emits a new event made by this node, stamped with its id, at stream time `time`.
    public func emit(_ payload: EventPayload, at time: Double, port: Int = 0) {
        let event = Event(node: nodeID, time: time, payload: payload)
        observer(event)
        output(port, .event(event))
    }

    /// Passes on an event made upstream, unchanged.
    public func forward(_ event: Event, port: Int = 0) {
        output(port, .event(event))
    }

    /// Sends a control command downstream.
    public func send(_ command: ControlCommand, port: Int = 0) {
        output(port, .control(command))
    }

    /// Tells the user something went wrong without stopping the graph (dropped frames, clipping).
    public func warn(_ message: String) {
        diagnostics("\(nodeID): \(message)")
    }
}

/// A flag the runtime raises to stop a graph; sources poll it. Safe to share between threads.
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }
    public func cancel() { flag.store(true, ordering: .releasing) }
}

/// Settings for a whole run.
public struct RunOptions: Sendable {
    /// Let libraries print their own logs (pocketsphinx's chatter is silenced otherwise).
    public var verbose: Bool
    /// The graph runs at the pace of its audio (set by the runtime when a source `isRealtime`).
    public var realtime: Bool
    /// The runtime counts every node's time, frames, queue and speech latency (`GraphRuntime.statistics()`,
    /// `latency` events). On by default; its cost is measured in benchmarks/metrics.sh.
    public var metrics: Bool
    public init(verbose: Bool = false, realtime: Bool = false, metrics: Bool = true) {
        self.verbose = verbose
        self.realtime = realtime
        self.metrics = metrics
    }
}
