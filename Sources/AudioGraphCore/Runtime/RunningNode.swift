import Synchronization

/// A node while the graph runs: its instance, its context, where its outputs go, and its end-of-stream
/// bookkeeping.
///
/// Confinement (why `@unchecked Sendable` is sound): `receive` runs on one thread at a time — the source's
/// thread for a source and the nodes it feeds inline, the node's own worker for a queued node (the builder
/// queues every node with more than one feeder). `downstream` and `context` are set before any thread starts
/// and never change.
final class RunningNode: @unchecked Sendable {
    let node: Graph.Node
    var context: NodeContext!
    /// For each output port, the nodes it feeds.
    var downstream: [[RunningNode]] = []
    let queue: BoundedFrameQueue?
    private var endOfStreamRemaining: Int
    private(set) var failed = false
    private unowned let runtime: GraphRuntime

    /// Audio frames a source has emitted (read by progress bars from another thread).
    let framesProduced = Atomic<Int64>(0)

    /// Commands waiting to be injected by this source ahead of its next block (sessions steer the graph this
    /// way), with what to call once they are in the graph.
    let inbox = Mutex<(waiting: [(ControlCommand, @Sendable () -> Void)], closed: Bool)>(([], false))

    /// Queues a command for this source; false once the source has ended.
    func post(_ command: ControlCommand, delivered: @escaping @Sendable () -> Void) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.waiting.append((command, delivered))
            return true
        }
    }

    init(node: Graph.Node, feeders: Int, overflow: BoundedFrameQueue.Overflow, runtime: GraphRuntime) {
        self.node = node
        self.endOfStreamRemaining = feeders
        self.runtime = runtime
        self.queue = node.queueCapacity.map { BoundedFrameQueue(capacity: $0, overflow: overflow) }
    }

    var id: String { node.id }

    /// Hands a frame to this node: straight in when inline, through its queue when queued.
    func deliver(_ frame: Frame) {
        if let queue { queue.push(frame) } else { receive(frame) }
    }

    /// Sends a frame to everything linked to output `port`.
    func send(_ frame: Frame, port: Int) {
        if case .audio(let buffer) = frame, node.descriptor.category == .source {
            framesProduced.add(Int64(buffer.frameCount), ordering: .relaxed)
        }
        guard port < downstream.count else { return }
        for target in downstream[port] { target.deliver(frame) }
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
            for target in downstream[port] { target.deliver(.endOfStream) }
        }
    }

    /// Calls the node for one frame. Returns true once every feeder's end of stream has arrived.
    @discardableResult
    func receive(_ frame: Frame) -> Bool {
        if case .endOfStream = frame {
            endOfStreamRemaining -= 1
            guard endOfStreamRemaining <= 0 else { return false }
            if !failed {
                do { try node.instance.finish(context) } catch { fail(error) }
            }
            sendEndOfStream()
            return true
        }
        guard !failed else { return false }
        do {
            switch frame {
            case .audio(let buffer): try node.instance.process(buffer, context)
            case .event(let event): try node.instance.handle(event, context)
            case .control(let command): try node.instance.handle(command, context)
            case .endOfStream: break
            }
        } catch {
            fail(error)
        }
        return false
    }

    func fail(_ error: any Error) {
        failed = true
        runtime.record(GraphBuilder.wrap(error, node: node.configuration, code: .nodeFailed))
    }

    /// A source's loop: produce until finished or cancelled, then end the stream.
    func runSource() {
        if let source = node.instance as? any SourceNode {
            do {
                while !context.isCancelled {
                    drainInbox()
                    if try source.produce(context) == .finished { break }
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
            if receive(queue.pop()) { return }
        }
    }
}
