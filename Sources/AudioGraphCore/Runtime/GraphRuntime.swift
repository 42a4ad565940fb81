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
    // `startTime` and `timeline` are written only by `run`, before it moves `lifecycle` to running and stores `started`
    // (release); other threads read them only after seeing either (the lock, or an acquiring load). Everything
    // else is a Mutex or an Atomic.
    let graph: Graph
    let clock: any MediaClock
    /// When stream times' audio was there, for speech latency (metrics on).
    private(set) var timeline: StreamTimeline?
    private var startTime: Double = 0
    private let endTime = Mutex<Double?>(nil)
    private let options: RunOptions
    let cancellation = CancellationFlag()
    private let firstError = Mutex<GraphError?>(nil)
    private let interruptedFlag = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private var running: [RunningNode] = []

    let initialCommands: [ControlCommand]
    /// Set by `run` before it moves `state` to running, read by `addParticipant` after seeing it there.
    private(set) var mainSources: [RunningNode] = []
    private(set) var runningByID: [String: RunningNode] = [:]
    private(set) var runOptions = RunOptions()
    private(set) var observers: (event: @Sendable (Event) -> Void, warning: @Sendable (String) -> Void) = ({ _ in }, { _ in })
    /// Every thread the run waits for (sources, queued workers, a call's participants), and a call while open.
    let threads = DispatchGroup()

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
    /// that place in the stream through every queue. Safe from any thread.
    ///
    /// `completion` is called exactly once: `.delivered` once every running source has passed the command into the
    /// graph, `.notRunning` when nothing will (the graph failed to start, or has ended). A command sent before
    /// the graph started is held and delivered ahead of anything sent later, or failed if the start fails.
    /// Returns false when the command was refused at once (`completion` has then been called with `.notRunning`).
    @discardableResult
    public func send(_ command: ControlCommand,
                     completion: @escaping @Sendable (CommandDelivery) -> Void = { _ in }) -> Bool {
        let once = Once(completion)
        let (action, participants, callOpen) = state.withLock { state -> (Lifecycle.SendAction, [RunningNode], Bool) in
            let action = state.lifecycle.send((command, once))
            if action != .refuse { state.call.record(command) }
            return (action, state.call.sources, state.call.phase == .open)
        }
        switch action {
        case .hold:
            return true
        case .refuse:
            once(.notRunning)
            return false
        case .post:
            // An open call keeps a steering command for those who join, even when nobody is connected now.
            return post(command, once, to: mainSources + participants, keptForNewcomers: callOpen)
        }
    }

    /// Posts `command` to every running source's inbox; `once` is answered when the last has passed it on, or
    /// `.notRunning` when none takes it any more (each closes its inbox as it ends).
    private func post(_ command: ControlCommand, _ once: Once, to sources: [RunningNode], keptForNewcomers: Bool = false) -> Bool {
        // Count the sources that take the command before any can pass it on.
        let remaining = Countdown(sources.count + 1)
        let finishOne: @Sendable () -> Void = { if remaining.tick() { once(.delivered) } }
        var accepted = 0
        for source in sources {
            if source.post(command, delivered: finishOne) { accepted += 1 } else { remaining.drop() }
        }
        guard accepted > 0 else {
            once(keptForNewcomers ? .delivered : .notRunning)
            return keptForNewcomers
        }
        finishOne()
        return true
    }

    /// Answers `.delivered` once it has been called `count` times.
    private static func countdown(_ count: Int, _ once: Once) -> @Sendable () -> Void {
        let remaining = Countdown(count)
        return { if remaining.tick() { once(.delivered) } }
    }

    /// A count shared by the sources that pass one command on.
    private final class Countdown: Sendable {
        private let remaining: Mutex<Int>
        init(_ count: Int) { remaining = Mutex(count) }
        /// Counts one down; true for the call that reaches zero.
        func tick() -> Bool { remaining.withLock { count -> Bool in count -= 1; return count == 0 } }
        func drop() { remaining.withLock { $0 -= 1 } }
    }

    /// A command's completion, called at most once whoever calls it.
    final class Once: Sendable {
        private let completion: Mutex<(@Sendable (CommandDelivery) -> Void)?>
        init(_ completion: @escaping @Sendable (CommandDelivery) -> Void) { self.completion = Mutex(completion) }
        func callAsFunction(_ outcome: CommandDelivery) {
            completion.withLock { completion in defer { completion = nil }; return completion }?(outcome)
        }
    }

    /// Start, run and stop, and the commands and waiters each decides (see `RuntimeLifecycle`): one lock, so a
    /// `send` or `waitUntilStarted` racing `run` is either held and answered by the start's outcome, or sees it.
    let state = Mutex(RuntimeState())

    /// Everything `state` guards: the lifecycle, and a call's participants.
    typealias Lifecycle = RuntimeLifecycle<(ControlCommand, Once), CheckedContinuation<GraphError?, Never>>

    /// A node's two start steps, every node through the first before any takes the second: `start` (models,
    /// devices, checks), then `openOutputs` (files), so a run that cannot start leaves every output as it was.
    static let startPhases: [@Sendable (any AudioNode, NodeContext) throws -> Void] = [{ try $0.start($1) }, { try $0.openOutputs($1) }]

    struct RuntimeState {
        var lifecycle = Lifecycle()
        var call = CallRoster()
    }

    /// Returns once every node started and opened its outputs (devices open, files created), or throws the error that
    /// stopped it — so a caller learns at once that a microphone or an output is unavailable.
    public func waitUntilStarted() async throws(GraphError) {
        let error: GraphError? = await withCheckedContinuation { continuation in
            if case .answer(let outcome) = state.withLock({ $0.lifecycle.waitForStart(continuation) }) {
                continuation.resume(returning: outcome)
            }
        }
        if let error { throw error }
    }

    /// Stops the sources; everything already read drains and every output is finalized. Safe from any thread
    /// (a signal handler's dispatch source, another task).
    public func cancel() {
        interruptedFlag.store(true, ordering: .releasing)
        cancellation.cancel()
        for flag in state.withLock({ $0.call.cancelAll() }) { flag.cancel() }
        endCall()
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
        precondition(state.withLock { $0.lifecycle.beginStart() }, "a GraphRuntime runs once")
        startTime = clock.now()
        let live = graph.nodes.contains { ($0.instance as? any SourceNode)?.isLive == true }
        var options = self.options
        // A call's participants speak in real time, even before the first one joins.
        options.realtime = graph.participants != nil
            || graph.nodes.contains { ($0.instance as? any SourceNode)?.isRealtime == true }
        if options.metrics { timeline = StreamTimeline(realtime: options.realtime) }
        var byID: [String: RunningNode] = [:]
        let callSlots = graph.participants?.sharedTargets.keys.map { ($0, 1) } ?? []
        let callSlot = Dictionary(uniqueKeysWithValues: callSlots)
        for node in graph.nodes {
            // A call's shared node waits for the call's end too, not only for its feeders of the moment.
            let feeders = graph.links.filter { $0.to == node.id }.count + (callSlot[node.id] ?? 0)
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
            var output: (Int, Frame) -> Void = { [unowned running] port, frame in running.send(frame, port: port) }
            if let speaker = graph.speakers[running.id] {
                // A source's `speaker`: every transcript made from its audio carries the name.
                let label = SpeakerLabel(speaker)
                let (send, observe) = (output, observer)
                output = { port, frame in send(port, label(frame)) }
                observer = { event in observe(label(event)) }
            }
            running.context = NodeContext(
                nodeID: running.id, inputFormat: running.node.inputFormat, outputFormat: running.node.outputFormat,
                inputKinds: running.node.inputKinds, feeders: graph.links.filter { $0.to == running.id }.count, clock: nodeClock, options: options, cancellation: cancellation,
                output: output, observer: observer, diagnostics: onWarning)
        }
        mainSources = self.running.filter { $0.node.instance is any SourceNode }
        runningByID = byID
        runOptions = options
        observers = (onEvent, onWarning)
        started.store(true, ordering: .releasing)

        // Start sinks first (they check their outputs can be made before sources open devices); only once every
        // node started (models loaded, devices open) are output files created, so a run that cannot start leaves
        // every output as it was.
        for phase in Self.startPhases {
            for running in self.running.reversed() {
                do {
                    try phase(running.node.instance, running.context)
                } catch {
                    stopAll()
                    let failure = GraphBuilder.wrap(error, node: running.node.configuration, code: .cannotCreateOutput)
                    let decided = state.withLock { $0.lifecycle.startFailed(failure) }
                    for (_, once) in decided.commands { once(.notRunning) }
                    for waiter in decided.waiters { waiter.resume(returning: failure) }
                    throw failure
                }
            }
        }
        // Under the lifecycle's lock the held commands reach the sources' inboxes (after the session's starting
        // state) before any later `send` can post.
        let (waiters, callEndedFirst) = state.withLock { state -> ([CheckedContinuation<GraphError?, Never>], Bool) in
            let decided = state.lifecycle.started()
            // A call stays open (its shared nodes waiting) until `endCall` or `cancel`, whoever comes first; one
            // ended before it started (cancelled at once) releases its shared nodes below.
            let callOpen = graph.participants != nil && state.call.open()
            if callOpen { threads.enter() }
            let sources = self.running.filter { $0.node.instance is any SourceNode }
            // Delivered once every source has passed it on, as for a command posted later. With no source, an open
            // call keeps it for the participants who join (`CallRoster`).
            if sources.isEmpty { for (_, once) in decided.commands { once(callOpen ? .delivered : .notRunning) } }
            let held = decided.commands.map { command, once in (command, Self.countdown(sources.count, once)) }
            for source in sources {
                source.inbox.withLock { inbox in inbox.waiting = initialCommands.map { ($0, {}) } + held }
            }
            return (decided.waiters, graph.participants != nil && !callOpen)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        if callEndedFirst { releaseCallSlots() }

        let group = threads
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
        for (_, once) in state.withLock({ $0.lifecycle.finished() }) { once(.notRunning) }
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
