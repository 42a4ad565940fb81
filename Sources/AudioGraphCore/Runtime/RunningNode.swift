import Synchronization

/// A node while the graph runs: its instance, its context, where its outputs go, and its end-of-stream
/// bookkeeping.
///
/// Confinement (why `@unchecked Sendable` is sound): `receive` runs on one thread at a time — the source's
/// thread for a source and the nodes it feeds inline, the node's own worker for a queued node (the builder
/// queues every node with more than one feeder), and so do `failed`, `timeline` and the
/// call bookkeeping, which only `receive` and the calls it makes touch. `downstream` and `context` are set before
/// any thread starts and never change. What other threads read (`framesProduced`, `inbox`, the speech tracker,
/// the metrics, `endOfStreamRemaining`, which a call's new participant raises from another thread) is atomic or
/// behind a mutex.
final class RunningNode: @unchecked Sendable {
    let node: Graph.Node
    var context: NodeContext!
    /// For each output port, the nodes it feeds.
    var downstream: [[RunningNode]] = []
    let queue: BoundedFrameQueue?
    /// Feeders whose end of stream has not arrived (a call's shared node counts one more for the call itself).
    private let endOfStreamRemaining: Atomic<Int>
    private(set) var failed = false
    private unowned let runtime: GraphRuntime
    /// This node as a feeder of a `MultiInputNode`: unique for the run, so that participants' branches (the same
    /// node ids) stay apart.
    let feederID: FeederID
    /// The node's instance when it tells its feeders apart (a mixer).
    private let multiInput: (any MultiInputNode)?
    private static let serials = Atomic<Int>(0)

    /// Audio frames a source has emitted (read by progress bars from another thread).
    let framesProduced = Atomic<Int64>(0)

    /// What the runtime counts for this node; nil with metrics off.
    let metrics: NodeMetrics?
    /// For a node that emits transcripts (metrics on): the speech events it got and the finals it made.
    private let tracksSpeech: Bool
    private let speechTracker = Mutex(SpeechLatencyTracker())
    /// The first source reports its blocks here until the timeline needs no more (metrics on).
    var timeline: StreamTimeline?
    private let isSource: Bool
    private let isLiveSource: Bool
    /// What the current call has spent downstream and sent. Confined to the node's thread; behind a pointer so
    /// updates skip Swift's dynamic exclusivity checks (class properties pay one per access, per frame).
    private let call = UnsafeMutablePointer<CallBookkeeping>.allocate(capacity: 1)

    /// Commands waiting to be injected by this source ahead of its next block (sessions steer the graph this
    /// way), with what to call once they are in the graph.
    let inbox = Mutex<(waiting: [(ControlCommand, @Sendable () -> Void)], closed: Bool)>(([], false))

    /// A call's new participant feeds this node `count` more times (or, negative, a branch that failed to start
    /// never will). Called before that branch's threads start; the call's own count keeps it above zero.
    func addFeeders(_ count: Int) {
        endOfStreamRemaining.add(count, ordering: .acquiringAndReleasing)
    }

    /// Queues a command for this source; false once the source has ended.
    func post(_ command: ControlCommand, delivered: @escaping @Sendable () -> Void) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.waiting.append((command, delivered))
            return true
        }
    }

    init(node: Graph.Node, feeders: Int, overflow: BoundedFrameQueue.Overflow, metrics enabled: Bool,
         runtime: GraphRuntime) {
        self.node = node
        self.endOfStreamRemaining = Atomic(feeders)
        self.runtime = runtime
        let multiInput = node.instance as? any MultiInputNode
        self.multiInput = multiInput
        self.feederID = FeederID(node: node.id, serial: Self.serials.add(1, ordering: .relaxed).newValue)
        self.queue = node.queueCapacity.map {
            BoundedFrameQueue(capacity: $0, overflow: overflow, timed: enabled, tagsFeeders: multiInput != nil)
        }
        let emitsTranscripts = node.descriptor.outputs.contains { $0.produces.contains(.transcript) }
        self.metrics = enabled ? NodeMetrics(emitsTranscripts: emitsTranscripts) : nil
        self.tracksSpeech = enabled && emitsTranscripts
        let source = node.instance as? any SourceNode
        self.isSource = source != nil
        self.isLiveSource = source?.isLive ?? false
        call.initialize(to: CallBookkeeping())
    }

    deinit {
        call.deinitialize(count: 1)
        call.deallocate()
    }

    /// When this node's last counted call ended (read by the node that called it inline, on the same thread).
    var lastCallEnd: UInt64 { call.pointee.end }

    var id: String { node.id }

    /// Hands a frame to this node: straight in when inline, through its queue when queued. `feeder` is who sent
    /// it (nil: the runtime itself, e.g. a call's end).
    func deliver(_ frame: Frame, from feeder: FeederID?) {
        if let queue { queue.push(frame, from: feeder) } else { receive(frame, from: feeder) }
    }

    /// Sends a frame to everything linked to output `port`.
    func send(_ frame: Frame, port: Int) {
        if case .audio(let buffer) = frame, isSource {
            framesProduced.add(Int64(buffer.frameCount), ordering: .relaxed)
            if let timeline { report(buffer, to: timeline) }
        }
        guard port < downstream.count else { return }
        guard metrics != nil else {
            for target in downstream[port] { target.deliver(frame, from: feederID) }
            return
        }
        switch frame {
        case .audio(let buffer):
            call.pointee.sentBuffers += 1
            call.pointee.sentFrames += Int64(buffer.frameCount)
        case .event: call.pointee.sentEvents += 1
        case .control, .endOfStream: break
        }
        deliverTimed(frame, to: downstream[port])
    }

    /// Delivers downstream, counting the time as not this node's. One clock read per boundary: an inline
    /// target starts its call at this node's reading and this node resumes at the target's end reading.
    private func deliverTimed(_ frame: Frame, to targets: [RunningNode]) {
        guard !targets.isEmpty else { return }
        let start = MonotonicTime.nanoseconds()
        var now = start
        for target in targets {
            if target.queue == nil, target.metrics != nil {
                target.receive(frame, from: feederID, startedAt: now)
                now = target.lastCallEnd
            } else {
                target.deliver(frame, from: feederID)
                now = MonotonicTime.nanoseconds()
            }
        }
        call.pointee.downstream &+= now &- start
    }

    private func report(_ buffer: AudioBuffer, to timeline: StreamTimeline) {
        let rate = Double(buffer.format.sampleRate)
        guard rate > 0 else { return }
        let start = Double(buffer.position) / rate
        timeline.sourceEmitted(start: start, end: start + Double(buffer.frameCount) / rate, live: isLiveSource,
                               at: runtime.clock.now())
        if !timeline.wantsBlocks { self.timeline = nil }
    }

    /// Every event the node emits passes here on its way to the run's observer; a final transcript is followed
    /// by its `latency` event.
    func observed(_ event: Event, forward: (Event) -> Void) {
        forward(event)
        guard tracksSpeech, case .transcript(let update) = event.payload else { return }
        let timeline = runtime.timeline
        let now = runtime.clock.now()
        let latency = speechTracker.withLock { tracker in
            tracker.emitted(update, now: now) { timeline?.wallTime(ofStreamTime: $0) }
        }
        guard let latency else { return }
        metrics?.speech?.withLock { $0.record(latency) }
        forward(latency.event(node: id))
    }

    /// Sends every waiting command into the graph, on all output ports; `close` refuses later ones.
    func drainInbox(close: Bool = false) {
        let waiting = inbox.withLock { inbox -> [(ControlCommand, @Sendable () -> Void)] in
            defer { inbox.waiting.removeAll() }
            if close { inbox.closed = true }
            return inbox.waiting
        }
        for (command, delivered) in waiting {
            for port in downstream.indices { send(.control(command), port: port) }
            delivered()
        }
    }

    func sendEndOfStream() {
        for port in downstream.indices {
            if metrics != nil {
                deliverTimed(.endOfStream, to: downstream[port])
            } else {
                for target in downstream[port] { target.deliver(.endOfStream, from: feederID) }
            }
        }
    }

    /// Calls the node for one frame, counted. Returns true once every feeder's end of stream has arrived.
    /// - Parameters:
    ///   - waitedNanoseconds: how long the frame waited in this node's queue.
    ///   - startedAt: the monotonic time the call starts at, when the caller just read it.
    @discardableResult
    func receive(_ frame: Frame, from feeder: FeederID?, waitedNanoseconds: UInt64 = 0, startedAt: UInt64? = nil) -> Bool {
        guard let metrics else { return receiveUncounted(frame, from: feeder) }
        if tracksSpeech, case .event(let event) = frame {
            speechTracker.withLock { $0.received(event.payload, at: event.time) }
        }
        return counted(metrics, input: frame, waitedNanoseconds: waitedNanoseconds, startedAt: startedAt) {
            receiveUncounted(frame, from: feeder)
        }
    }

    /// Runs one call into the node and adds it to the counters: its own time (less what it spent downstream or
    /// asleep on the media clock), what it received and sent, and the frame's latency.
    @inline(__always)
    private func counted<Result>(_ metrics: NodeMetrics, input: Frame?, waitedNanoseconds: UInt64,
                                 startedAt: UInt64? = nil, _ body: () throws -> Result) rethrows -> Result {
        call.pointee = CallBookkeeping()
        let clockWaitBefore = metrics.clockWaitNanoseconds.load(ordering: .relaxed)
        let start = startedAt ?? MonotonicTime.nanoseconds()
        defer {
            let end = MonotonicTime.nanoseconds()
            let done = call.pointee
            let elapsed = end &- start
            let clockWait = metrics.clockWaitNanoseconds.load(ordering: .relaxed) &- clockWaitBefore
            let own = elapsed &- min(elapsed, done.downstream &+ clockWait)
            metrics.calls.addFromSingleWriter(1)
            metrics.processingNanoseconds.addFromSingleWriter(own)
            switch input {
            case .audio(let buffer)?:
                metrics.buffersIn.addFromSingleWriter(1)
                metrics.framesIn.addFromSingleWriter(Int64(buffer.frameCount))
            case .event?: metrics.eventsIn.addFromSingleWriter(1)
            case .control?: metrics.commandsIn.addFromSingleWriter(1)
            case .endOfStream?, nil: break
            }
            if done.sentBuffers > 0 {
                metrics.buffersOut.addFromSingleWriter(done.sentBuffers)
                metrics.framesOut.addFromSingleWriter(done.sentFrames)
            }
            if done.sentEvents > 0 { metrics.eventsOut.addFromSingleWriter(done.sentEvents) }
            metrics.latency.record(nanoseconds: waitedNanoseconds &+ own)
            call.pointee.end = end
        }
        return try body()
    }

    private func receiveUncounted(_ frame: Frame, from feeder: FeederID?) -> Bool {
        if case .endOfStream = frame {
            if let multiInput, let feeder, !failed {
                do { try multiInput.feederEnded(feeder, context) } catch { fail(error) }
            }
            guard endOfStreamRemaining.subtract(1, ordering: .acquiringAndReleasing).newValue <= 0 else { return false }
            if !failed {
                do { try node.instance.finish(context) } catch { fail(error) }
            }
            sendEndOfStream()
            return true
        }
        guard !failed else { return false }
        do {
            switch frame {
            case .audio(let buffer):
                if let multiInput, let feeder {
                    try multiInput.process(buffer, from: feeder, context)
                } else {
                    try node.instance.process(buffer, context)
                }
            case .event(let event): try node.instance.handle(event, context)
            case .control(let command): try node.instance.handle(command, context)
            case .endOfStream: break
            }
        } catch {
            fail(error)
        }
        return false
    }

    /// Where this node's failure goes: the whole run's (stopping it), or a call participant's branch's (stopping
    /// only that branch). Set before any thread starts.
    var onFailure: (@Sendable (GraphError) -> Void)?

    func fail(_ error: any Error) {
        failed = true
        let failure = GraphBuilder.wrap(error, node: node.configuration, code: .nodeFailed)
        if let onFailure { onFailure(failure) } else { runtime.record(failure) }
    }

    /// A source's loop: produce until finished or cancelled, then end the stream.
    func runSource() {
        if let source = node.instance as? any SourceNode {
            do {
                while !context.isCancelled {
                    drainInbox()
                    let status = if let metrics {
                        try counted(metrics, input: nil, waitedNanoseconds: 0) { try source.produce(context) }
                    } else {
                        try source.produce(context)
                    }
                    if status == .finished { break }
                }
            } catch {
                fail(error)
            }
        }
        // Commands sent before the end go in ahead of the end of stream; later ones are refused.
        drainInbox(close: true)
        sendEndOfStream()
    }

    /// A queued node's worker loop: take frames until the end of stream.
    func runWorker() {
        guard let queue else { return }
        while true {
            let (frame, feeder, waited) = queue.popTimed()
            if receive(frame, from: feeder, waitedNanoseconds: waited) { return }
        }
    }
}

/// A call's bookkeeping: time spent downstream, what it sent, and when it ended.
struct CallBookkeeping {
    var downstream: UInt64 = 0
    var sentBuffers: Int64 = 0
    var sentFrames: Int64 = 0
    var sentEvents: Int64 = 0
    var end: UInt64 = 0
}
