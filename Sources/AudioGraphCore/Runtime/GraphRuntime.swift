import Foundation
import Synchronization

/// Runs a built `Graph`: starts every node, then has them open their outputs (`openOutputs`: a run that cannot
/// start leaves every output file as it was), streams frames from the sources through bounded queues to the
/// sinks, and stops every node at the end, whatever happened.
///
/// - Each source runs on a thread of its own; inline nodes run on the thread that feeds them; queued nodes
///   (recognizers, slow sinks) on a worker thread each, behind a bounded queue, so memory stays flat.
/// - End of stream flows down the graph: every node `finish`es in order, then passes it on.
/// - `cancel()` (SIGINT) stops the sources; the rest drains and finalizes, and the summary says `interrupted`.
/// - A node that throws stops the graph: sources stop, every other node still finishes and stops (files are
///   finalized), and `run` throws that node's error.
public final class GraphRuntime: @unchecked Sendable {
    // Why it is Sendable: `graph`, `clock`, `options` and `initialCommands` never change after init. `running`,
    // `startTime` and `timeline` are written only by `run`, before it opens `commandGate` and stores `started`
    // (release); other threads read them only after seeing either (the lock, or an acquiring load). Everything
    // else is a Mutex or an Atomic.
    private let graph: Graph
    let clock: any MediaClock
    /// When stream times' audio was there, for speech latency (metrics on).
    private(set) var timeline: StreamTimeline?
    private var startTime: Double = 0
    private let endTime = Mutex<Double?>(nil)
    private let options: RunOptions
    private let cancellation = CancellationFlag()
    private let firstError = Mutex<GraphError?>(nil)
    private let interruptedFlag = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private var running: [RunningNode] = []

    private let initialCommands: [ControlCommand]

    /// - Parameter initialCommands: control commands every source sends before its first block (a session's
    ///   starting state: transcription off, captions hidden).
    public init(graph: Graph, clock: any MediaClock = SystemClock(), options: RunOptions = RunOptions(),
                initialCommands: [ControlCommand] = []) {
        self.graph = graph
        self.clock = clock
        self.options = options
        self.initialCommands = initialCommands
    }

    /// Steers the running graph: every source sends `command` downstream ahead of its next block, and it keeps
    /// that place in the stream through every queue. Safe from any thread. Returns false when no source is running any
    /// more (the command went nowhere); `delivered` is called once the command is in the graph.
    @discardableResult
    public func send(_ command: ControlCommand, delivered: @escaping @Sendable () -> Void = {}) -> Bool {
        // Under the gate's lock a command either joins the list `run` hands to the sources, or sees them posted.
        let queuedBeforeStart = commandGate.withLock { gate -> Bool in
            guard !gate.open else { return false }
            gate.pending.append((command, delivered))
            return true
        }
        if queuedBeforeStart { return true }
        let sources = running.filter { $0.node.instance is any SourceNode }
        // Count the sources that take the command before any can pass it on.
        let remaining = Mutex(sources.count + 1)
        let finishOne: @Sendable () -> Void = {
            if remaining.withLock({ count -> Bool in count -= 1; return count == 0 }) { delivered() }
        }
        var accepted = 0
        for source in sources {
            if source.post(command, delivered: finishOne) { accepted += 1 } else { remaining.withLock { $0 -= 1 } }
        }
        guard accepted > 0 else { return false }
        finishOne()
        return true
    }

    /// Commands sent before the sources' inboxes exist, and whether they do: one lock for both, so a `send`
    /// racing `run` either lands in the list `run` drains or finds the sources ready (issue 19's start race).
    private struct CommandGate {
        var pending: [(ControlCommand, @Sendable () -> Void)] = []
        var open = false
    }
    private let commandGate = Mutex(CommandGate())

    /// Whether every node has started, and who waits to know.
    private enum StartOutcome { case pending, started, failed(GraphError) }
    private let startState = Mutex<(outcome: StartOutcome, waiters: [CheckedContinuation<GraphError?, Never>])>((.pending, []))

    private func settleStart(_ outcome: StartOutcome) {
        let waiters = startState.withLock { state -> [CheckedContinuation<GraphError?, Never>] in
            guard case .pending = state.outcome else { return [] }
            state.outcome = outcome
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        let error: GraphError? = if case .failed(let e) = outcome { e } else { nil }
        for waiter in waiters { waiter.resume(returning: error) }
    }

    /// Returns once every node started and opened its outputs (devices open, files created), or throws the error that
    /// stopped it — so a caller learns at once that a microphone or an output is unavailable.
    public func waitUntilStarted() async throws(GraphError) {
        let error: GraphError? = await withCheckedContinuation { continuation in
            let decided = startState.withLock { state -> GraphError?? in
                switch state.outcome {
                case .pending:
                    state.waiters.append(continuation)
                    return .none
                case .started: return .some(nil)
                case .failed(let error): return .some(error)
                }
            }
            if case .some(let outcome) = decided { continuation.resume(returning: outcome) }
        }
        if let error { throw error }
    }

    /// Stops the sources; everything already read drains and every output is finalized. Safe from any thread
    /// (a signal handler's dispatch source, another task).
    public func cancel() {
        interruptedFlag.store(true, ordering: .releasing)
        cancellation.cancel()
    }

    /// How far each source has read: frames emitted and, when known, the total.
    public func progress() -> [SourceProgress] {
        guard started.load(ordering: .acquiring) else { return [] }
        return running.compactMap { node in
            guard let source = node.node.instance as? any SourceNode else { return nil }
            return SourceProgress(node: node.id, framesProduced: node.framesProduced.load(ordering: .relaxed),
                                  totalFrames: source.totalFrames, sampleRate: node.node.outputFormat?.sampleRate)
        }
    }

    func record(_ error: GraphError) {
        firstError.withLock { if $0 == nil { $0 = error } }
        cancellation.cancel()
    }

    /// Runs the graph to the end on the calling thread (it blocks). Can be called once.
    ///
    /// - Parameters:
    ///   - onEvent: every event any node emits, from the node's thread.
    ///   - onWarning: problems that did not stop the graph.
    public func run(onEvent: @escaping @Sendable (Event) -> Void = { _ in },
                    onWarning: @escaping @Sendable (String) -> Void = { _ in }) throws(GraphError) -> RunSummary {
        precondition(!started.load(ordering: .acquiring), "a GraphRuntime runs once")
        startTime = clock.now()
        let live = graph.nodes.contains { ($0.instance as? any SourceNode)?.isLive == true }
        var options = self.options
        options.realtime = graph.nodes.contains { ($0.instance as? any SourceNode)?.isRealtime == true }
        if options.metrics { timeline = StreamTimeline(realtime: options.realtime) }
        var byID: [String: RunningNode] = [:]
        for node in graph.nodes {
            let feeders = graph.links.filter { $0.to == node.id }.count
            let running = RunningNode(node: node, feeders: feeders, overflow: live ? .drop : .block,
                                      metrics: options.metrics, runtime: self)
            byID[node.id] = running
            self.running.append(running)
        }
        // The first source (a real-time one when there is one) is the audio clock for speech latency.
        let sources = self.running.filter { $0.node.instance is any SourceNode }
        let clockSource = sources.first { ($0.node.instance as? any SourceNode)?.isRealtime == true } ?? sources.first
        clockSource?.timeline = timeline
        for running in self.running {
            running.downstream = running.node.descriptor.outputs.indices.map { port in
                graph.links.filter { $0.from == running.id && $0.fromPort == port }.map { byID[$0.to]! }
            }
            var nodeClock: any MediaClock = clock
            var observer: (Event) -> Void = onEvent
            if let metrics = running.metrics {
                nodeClock = WaitCountingClock(base: clock, metrics: metrics)
                observer = { [unowned running] event in running.observed(event, forward: onEvent) }
            }
            running.context = NodeContext(
                nodeID: running.id, inputFormat: running.node.inputFormat, outputFormat: running.node.outputFormat,
                inputKinds: running.node.inputKinds, clock: nodeClock, options: options, cancellation: cancellation,
                output: { [unowned running] port, frame in running.send(frame, port: port) },
                observer: observer, diagnostics: onWarning)
        }
        commandGate.withLock { gate in
            for running in self.running where running.node.instance is any SourceNode {
                running.inbox.withLock { inbox in
                    inbox.waiting = initialCommands.map { ($0, {}) } + gate.pending
                }
            }
            gate.pending.removeAll()
            gate.open = true
        }
        started.store(true, ordering: .releasing)

        // Start sinks first (they check their outputs can be made before sources open devices); only once every
        // node started (models loaded, devices open) are output files created, so a run that cannot start leaves
        // every output as it was.
        let phases: [(any AudioNode, NodeContext) throws -> Void] = [{ try $0.start($1) }, { try $0.openOutputs($1) }]
        for phase in phases {
            for running in self.running.reversed() {
                do {
                    try phase(running.node.instance, running.context)
                } catch {
                    stopAll()
                    let failure = GraphBuilder.wrap(error, node: running.node.configuration, code: .cannotCreateOutput)
                    settleStart(.failed(failure))
                    throw failure
                }
            }
        }
        settleStart(.started)

        let group = DispatchGroup()
        for running in self.running {
            let isSource = running.node.instance is any SourceNode
            guard isSource || running.queue != nil else { continue }
            group.enter()
            let thread = Thread {
                if isSource { running.runSource() } else { running.runWorker() }
                group.leave()
            }
            thread.name = "audiograph.\(running.id)"
            thread.start()
        }
        group.wait()
        stopAll()
        let finished = clock.now()
        endTime.withLock { $0 = finished }

        let drops = self.running.compactMap { node in node.queue.map { (node.id, $0.dropped) } }.filter { $0.1 > 0 }
        for (id, count) in drops {
            onWarning("\(id): dropped \(count) frames because it could not keep up with live capture")
        }
        if let error = firstError.withLock({ $0 }) { throw error }
        return RunSummary(
            interrupted: interruptedFlag.load(ordering: .acquiring),
            sources: progress(),
            droppedFrames: Dictionary(uniqueKeysWithValues: drops),
            wallSeconds: finished - startTime,
            statistics: statistics())
    }

    /// What the runtime has counted so far for every node (all zero with metrics off); safe from any thread
    /// while the graph runs, and final once `run` returned.
    public func statistics() -> GraphStatistics {
        guard started.load(ordering: .acquiring) else { return GraphStatistics(wallSeconds: 0, nodes: []) }
        let end = endTime.withLock { $0 } ?? clock.now()
        return GraphStatistics(wallSeconds: end - startTime, nodes: running.map { running in
            let isSource = running.node.instance is any SourceNode
            return NodeStatistics(
                id: running.id, type: running.node.descriptor.type, isSource: isSource,
                sampleRate: (isSource ? running.node.outputFormat : running.node.inputFormat)?.sampleRate,
                counters: running.metrics?.snapshot() ?? NodeCounters(),
                queue: running.queue?.statistics, speech: running.metrics?.speech?.withLock { $0 })
        })
    }

    private func stopAll() {
        for running in running { running.node.instance.stop() }
    }

    /// Runs the graph on a thread of its own and delivers its events as an `AsyncSequence`; the stream ends when
    /// the run does. The run's outcome is awaited with `result`.
    public func start() -> (events: AsyncStream<Event>, result: Task<RunSummary, any Error>) {
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let outcome = Task<RunSummary, any Error> {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<RunSummary, any Error>) in
                let thread = Thread {
                    do {
                        let summary = try self.run(onEvent: { continuation.yield($0) })
                        continuation.finish()
                        done.resume(returning: summary)
                    } catch {
                        continuation.finish()
                        done.resume(throwing: error)
                    }
                }
                thread.start()
            }
        }
        return (events, outcome)
    }
}

/// How far a source has read.
public struct SourceProgress: Sendable, Equatable {
    public let node: String
    public let framesProduced: Int64
    public let totalFrames: Int64?
    public let sampleRate: Int?

    /// 0…1 when the total is known.
    public var fraction: Double? {
        guard let totalFrames, totalFrames > 0 else { return nil }
        return min(1, Double(framesProduced) / Double(totalFrames))
    }

    /// Seconds of audio read.
    public var seconds: Double {
        guard let sampleRate, sampleRate > 0 else { return 0 }
        return Double(framesProduced) / Double(sampleRate)
    }
}

/// What a finished run reports.
public struct RunSummary: Sendable {
    /// The run was cancelled (SIGINT); every output was still finalized.
    public let interrupted: Bool
    public let sources: [SourceProgress]
    /// Frames dropped per queued node (live capture only).
    public let droppedFrames: [String: Int]
    public let wallSeconds: Double
    /// What the runtime counted for every node (see `GraphStatistics`).
    public let statistics: GraphStatistics
}
