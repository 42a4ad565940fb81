/// A node of the graph: a source, a filter or a sink.
///
/// Every method has a default, so a node overrides only what it does (like swift-nio's `ChannelHandler`):
/// a level meter is one `process(_:_:)`, a pass-through node is nothing at all.
///
/// ## Lifecycle (what each call owes)
/// 1. `init(configuration:)` — at build time, before any audio flows. Validate parameters beyond what the
///    declaration checks and open *inputs* (a file source reads its header here so its format is known).
///    Throw a `GraphError` naming the parameter (`configuration.error(...)`). Do not create outputs yet.
/// 2. `outputFormat(for:)` — at build time: the audio format this node produces given its input format
///    (`nil` input for sources). Formats are settled here, never discovered while audio flows.
/// 3. `start(_:)` — once, before the first frame: load models, connect devices, allocate buffers, and check
///    that output files can be made (`OutputPaths.checkCreatable`) without making them.
/// 3b. `openOutputs(_:)` — once, after every node's `start` succeeded: create output files (truncating one
///    that exists). A run that cannot start (a model that does not load) so leaves every output as it was. A
///    failure here stops the run as a failed `start` does.
/// 4. `process` / `handle` — zero or more times, in stream order, from one thread at a time.
/// 5. `finish(_:)` — once, at end of stream: flush what is buffered and emit the last frames. Not called when
///    the node itself failed.
/// 6. `stop()` — always, last, even after a failure elsewhere or a failed `start`: release resources and leave
///    outputs valid (close files so headers are written). Must not throw; must be idempotent.
///
/// Threading: the runtime calls a node from one thread at a time (its feeder's, or its own when
/// `Execution.queued`), so nodes need no locks for their own state.
public protocol AudioNode: AnyObject, SendableMetatype {
    /// The node type's declaration: name, parameters, ports, formats.
    static var descriptor: NodeDescriptor { get }

    /// Creates the node from validated parameters.
    init(configuration: NodeConfiguration) throws

    /// The format of the audio this node outputs, given its input's (`nil` for sources and for nodes fed no
    /// audio). Return `nil` if the node outputs no audio. Default: the input format (pass-through).
    func outputFormat(for input: AudioFormat?) throws -> AudioFormat?

    /// The formats this node's input accepts. Default: the descriptor's `acceptedFormats`.
    var acceptedFormats: FormatRequirement { get }

    func start(_ context: NodeContext) throws
    /// Every node has started: create the output files. Default: nothing.
    func openOutputs(_ context: NodeContext) throws
    /// Audio arrived. Default: pass it on unchanged.
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws
    /// An event arrived. Default: pass it on unchanged.
    func handle(_ event: Event, _ context: NodeContext) throws
    /// A control command arrived. Default: pass it on unchanged.
    func handle(_ command: ControlCommand, _ context: NodeContext) throws
    /// End of stream: flush. The runtime passes the end of stream on afterwards.
    func finish(_ context: NodeContext) throws
    /// Release everything; leave outputs valid. Always called last.
    func stop()
}

extension AudioNode {
    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { input }
    public var acceptedFormats: FormatRequirement { Self.descriptor.acceptedFormats }
    public func start(_ context: NodeContext) throws {}
    public func openOutputs(_ context: NodeContext) throws {}
    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws { context.emit(buffer) }
    public func handle(_ event: Event, _ context: NodeContext) throws { context.forward(event) }
    public func handle(_ command: ControlCommand, _ context: NodeContext) throws { context.send(command) }
    public func finish(_ context: NodeContext) throws {}
    public func stop() {}
}

/// What a source's `produce` reports.
public enum SourceStatus: Sendable, Equatable {
    /// More will come: call `produce` again.
    case more
    /// The stream has ended (the runtime sends end-of-stream downstream).
    case finished
}

/// A node with no inputs that makes a stream.
public protocol SourceNode: AudioNode {
    /// Emits the next block of audio through `context` (a few milliseconds' worth, so cancellation is prompt).
    /// Called repeatedly on the source's own thread until it returns `.finished` or the graph is cancelled.
    func produce(_ context: NodeContext) throws -> SourceStatus

    /// Frames in the whole stream, when known (file sources), for progress bars.
    var totalFrames: Int64? { get }

    /// A live source (a microphone) cannot wait: when a queued node falls behind, its frames are dropped and
    /// counted instead of blocking capture.
    var isLive: Bool { get }

    /// The stream arrives at the pace of the audio (a microphone, or a file played at 1x): someone may be
    /// watching as it happens, so nodes give live feedback (partial transcripts). Default: `isLive`.
    var isRealtime: Bool { get }
}

extension SourceNode {
    public var totalFrames: Int64? { nil }
    public var isLive: Bool { false }
    public var isRealtime: Bool { isLive }
}
