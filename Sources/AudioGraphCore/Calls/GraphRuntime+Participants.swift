import Foundation
import Synchronization

/// A call: participants join and leave while the graph runs. Each gets a branch of the config's `participant`
/// block joined to the graph's shared nodes (caption sinks, the store), started and ended without pausing or
/// disturbing anyone else's.
extension GraphRuntime {
    /// A participant's branch while it runs.
    public final class ParticipantBranch: Sendable {
        public let participant: String
        public let feed: ParticipantAudioFeed
        private let done = Mutex<(ended: Bool, error: GraphError?, waiters: [CheckedContinuation<GraphError?, Never>])>((false, nil, []))
        let cancellation = CancellationFlag()

        init(participant: String, feed: ParticipantAudioFeed) {
            self.participant = participant
            self.feed = feed
        }

        /// Returns once the branch has ended (the participant left and their last sentence went through, or a
        /// node of theirs failed: its error).
        public func waitUntilEnded() async -> GraphError? {
            await withCheckedContinuation { continuation in
                let ended = done.withLock { state -> GraphError?? in
                    if state.ended { return .some(state.error) }
                    state.waiters.append(continuation)
                    return .none
                }
                if case .some(let error) = ended { continuation.resume(returning: error) }
            }
        }

        public var hasEnded: Bool { done.withLock { $0.ended } }

        func failed(_ error: GraphError) {
            done.withLock { if $0.error == nil { $0.error = error } }
            cancellation.cancel()
        }

        func ended() {
            let (error, waiters) = done.withLock { state in
                state.ended = true
                defer { state.waiters.removeAll() }
                return (state.error, state.waiters)
            }
            for waiter in waiters { waiter.resume(returning: error) }
        }
    }

    /// Brings `feed`'s participant into the running call: builds their branch for the feed's format (a resampler
    /// inserted where the block needs one), joins it to the shared nodes, starts its nodes, and runs it on
    /// threads of its own until the feed closes (the participant left) or the call ends. A node that fails in
    /// the branch ends that branch only.
    ///
    /// Throws when the graph has no `participant` block, the call is not running (not started, ended), or the
    /// branch cannot be built or started (its error, naming the node).
    @discardableResult
    public func addParticipant(_ feed: ParticipantAudioFeed) throws(GraphError) -> ParticipantBranch {
        guard let participants = graph.participants else {
            throw GraphError(.invalidConfig, at: "participant", "this graph has no \"participant\" block: it takes no participants")
        }
        guard state.withLock({ $0.lifecycle.state == .running && $0.call.phase == .open }) else {
            throw Self.notInCall
        }
        let built = try participants.build(participant: feed.participant, format: feed.format)
        let branch = ParticipantBranch(participant: feed.participant, feed: feed)
        var byID: [String: RunningNode] = [:]
        var nodes: [RunningNode] = []
        for node in built.nodes {
            let feeders = built.links.filter { $0.to == node.id }.count
            let running = RunningNode(node: node, feeders: feeders, overflow: .block, metrics: false, runtime: self)
            running.onFailure = { [branch] error in branch.failed(error) }
            byID[node.id] = running
            nodes.append(running)
        }
        let shared = runningByID
        let segmentBase = state.withLock { $0.call.nextSegmentBase(for: feed.participant) }
        for running in nodes {
            running.downstream = running.node.descriptor.outputs.indices.map { port in
                (built.links + built.sharedLinks).filter { $0.from == running.id && $0.fromPort == port }
                    .compactMap { byID[$0.to] ?? shared[$0.to] }
            }
            running.context = branchContext(for: running, speaker: feed.participant, segmentBase: segmentBase,
                                            cancellation: branch.cancellation)
        }
        guard let source = nodes.first(where: { $0.node.instance is any ParticipantFeedSource }),
              let feedSource = source.node.instance as? any ParticipantFeedSource else {
            throw GraphError(.invalidConfig, at: "participant", "the participant block has no participant-source")
        }
        feedSource.attach(feed)
        // Every shared node waits for this branch's end of stream too, counted before anything can arrive.
        let sharedFeeds = Dictionary(built.sharedLinks.map { ($0.to, 1) }, uniquingKeysWith: +)
        for (id, count) in sharedFeeds { shared[id]?.addFeeders(count) }
        func undo() {
            for running in nodes { running.node.instance.stop() }
            for (id, count) in sharedFeeds { shared[id]?.addFeeders(-count) }
            feed.consumerEnded()
        }
        // As for the graph: every node starts, then outputs are opened.
        for phase in Self.startPhases {
            for running in nodes.reversed() {
                do {
                    try phase(running.node.instance, running.context)
                } catch {
                    undo()
                    throw GraphBuilder.wrap(error, node: running.node.configuration, code: .cannotCreateOutput)
                }
            }
        }
        // Under the runtime's lock: the branch starts in the session's current state and takes every command sent
        // from now on, or the call ended meanwhile and it never runs.
        let joined = state.withLock { state -> Bool in
            let commands = state.call.startingCommands(after: initialCommands)
            source.inbox.withLock { $0.waiting = commands.map { ($0, {}) } }
            guard state.call.join(source, cancellation: branch.cancellation) else { return false }
            threads.enter()
            return true
        }
        guard joined else {
            undo()
            throw Self.notInCall
        }
        let group = DispatchGroup()
        for running in nodes where running === source || running.queue != nil {
            group.enter()
            let thread = Thread {
                if running === source { running.runSource() } else { running.runWorker() }
                group.leave()
            }
            thread.name = "audiograph.\(feed.participant).\(running.id)"
            thread.start()
        }
        group.notify(queue: .global()) { [self] in
            for running in nodes { running.node.instance.stop() }
            feed.consumerEnded()
            state.withLock { $0.call.leave(source) }
            branch.ended()
            threads.leave()
        }
        return branch
    }

    /// Ends the call: no one joins any more, and the shared nodes finish once every branch still running has
    /// ended (the participants leave, or `cancel` stops them). `run` returns after that. Idempotent.
    public func endCall() {
        guard state.withLock({ $0.call.end() }) else { return }
        releaseCallSlots()
        threads.leave()
    }

    /// The call's own end of stream to each shared node (they finish once every branch has ended too).
    func releaseCallSlots() {
        for id in graph.participants?.sharedTargets.keys.sorted() ?? [] {
            runningByID[id]?.deliver(.endOfStream, from: nil)
        }
    }

    /// Whether the graph is a call (it has a `participant` block).
    public var takesParticipants: Bool { graph.participants != nil }

    static let notInCall = GraphError(.unavailable, at: "participant", "the call is not running (not started yet, or ended)")

    /// A branch node's context: the run's options and observers, the branch's own cancellation, and every
    /// transcript it makes labelled with the participant.
    private func branchContext(for running: RunningNode, speaker: String, segmentBase: Int,
                               cancellation: CancellationFlag) -> NodeContext {
        let (onEvent, onWarning) = observers
        let label = SpeakerLabel(speaker, segmentBase: segmentBase)
        return NodeContext(
            nodeID: running.id, inputFormat: running.node.inputFormat, outputFormat: running.node.outputFormat,
            inputKinds: running.node.inputKinds, clock: clock, options: runOptions, cancellation: cancellation,
            output: { [unowned running] port, frame in running.send(label(frame), port: port) },
            observer: { event in onEvent(label(event)) }, diagnostics: onWarning)
    }
}
