import AudioGraphCore
import Foundation

/// Drives one node as a black box, like GStreamer's `GstHarness` or swift-nio's `EmbeddedChannel`: set its
/// input format, push frames, advance a manual clock, read what came out, and check nothing is left over.
///
/// ```swift
/// let meter = try NodeHarness(type: LevelMeterNode.self, parameters: ["intervalMs": 100],
///                             input: AudioFormat(sampleRate: 16000, channels: 1))
/// try meter.push(Signals.sine(frequency: 440, seconds: 1, sampleRate: 16000))
/// try meter.finish()
/// let levels = meter.events
/// ```
public final class NodeHarness<Node: AudioNode> {
    public let node: Node
    public let context: NodeContext
    public let clock: ManualClock
    public let inputFormat: AudioFormat?
    public let outputFormat: AudioFormat?
    /// Everything the node sent, in order, with the output port it went to.
    public private(set) var output: [(port: Int, frame: Frame)] = []
    /// Warnings the node raised.
    public private(set) var warnings: [String] = []
    private var stopped = false
    private let cancellation = CancellationFlag()

    /// Wraps an existing node instance and calls `start`, then `openOutputs`.
    /// - Parameter inputKinds: the frame kinds the node is told can arrive (default: audio when `input` is set).
    /// - Parameter options: the run's options the node sees (`realtime`, `verbose`).
    public init(_ node: Node, id: String = "node", input: AudioFormat?, inputKinds: Set<FrameKind>? = nil,
                feeders: Int = 1, clock: ManualClock = ManualClock(), options: RunOptions = RunOptions()) throws {
        self.node = node
        self.clock = clock
        self.inputFormat = input
        self.outputFormat = try node.outputFormat(for: input)
        let box = Box()
        self.context = NodeContext(
            nodeID: id, inputFormat: input, outputFormat: outputFormat,
            inputKinds: inputKinds ?? (input == nil ? [] : [.audio]), feeders: feeders, clock: clock, options: options, cancellation: cancellation,
            output: { port, frame in box.frames.append((port, frame)) },
            diagnostics: { box.warnings.append($0) })
        self.box = box
        try node.start(context)
        try node.openOutputs(context)
    }

    /// Makes the node from config-style parameters, validated and defaulted from its declaration, then starts it (and opens its outputs).
    public convenience init(type: Node.Type, id: String = "node", parameters: JSONObject = JSONObject(),
                            input: AudioFormat?, inputKinds: Set<FrameKind>? = nil,
                            baseDirectory: String = FileManager.default.currentDirectoryPath,
                            session: SessionSettings = SessionSettings(), feeders: Int = 1,
                            clock: ManualClock = ManualClock(), options: RunOptions = RunOptions()) throws {
        let values = try ParameterValidation.validate(parameters, against: Node.descriptor, at: .root / "nodes" / id)
        let configuration = NodeConfiguration(id: id, type: Node.descriptor.type, values: values,
                                              baseDirectory: baseDirectory, session: session)
        try self.init(try Node(configuration: configuration), id: id, input: input, inputKinds: inputKinds,
                      feeders: feeders, clock: clock, options: options)
    }

    private final class Box {
        var frames: [(Int, Frame)] = []
        var warnings: [String] = []
    }
    private let box: Box

    private func collect() {
        output.append(contentsOf: box.frames.map { (port: $0.0, frame: $0.1) })
        box.frames.removeAll()
        warnings.append(contentsOf: box.warnings)
        box.warnings.removeAll()
    }

    /// Pushes one buffer.
    public func push(_ buffer: AudioBuffer) throws {
        defer { collect() }
        try node.process(buffer, context)
    }

    /// Pushes samples (in the input format) as buffers of `framesPerBuffer` frames, positioned from `start`.
    public func push(_ samples: [Float], framesPerBuffer: Int = 1024, startingAt start: Int64 = 0) throws {
        guard let format = inputFormat else { preconditionFailure("the harness has no input format") }
        for buffer in Signals.buffers(samples, format: format, framesPerBuffer: framesPerBuffer, startingAt: start) {
            try push(buffer)
        }
    }

    public func push(_ event: Event) throws {
        defer { collect() }
        try node.handle(event, context)
    }

    public func push(_ command: ControlCommand) throws {
        defer { collect() }
        try node.handle(command, context)
    }

    /// End of stream: `finish` then `stop`.
    public func finish() throws {
        defer { collect() }
        defer { stop() }
        try node.finish(context)
    }

    /// `stop` without `finish` (what the runtime does after a failure). Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        node.stop()
        collect()
    }

    /// Raises the cancellation flag the node sees as `context.isCancelled`.
    public func cancel() { cancellation.cancel() }

    /// Audio buffers the node sent on `port`.
    public func buffers(port: Int = 0) -> [AudioBuffer] {
        output.compactMap { $0.port == port ? ($0.frame.audioBuffer) : nil }
    }

    /// All audio samples the node sent on `port`, concatenated.
    public func samples(port: Int = 0) -> [Float] { buffers(port: port).flatMap(\.samples) }

    /// Events the node sent (its own and forwarded ones).
    public var events: [Event] { output.compactMap { $0.frame.event } }

    /// Drops everything collected so far.
    public func clearOutput() { output.removeAll() }
}

extension NodeHarness where Node: MultiInputNode {
    /// Hands the node a block from one of its feeders, as the runtime does.
    public func push(_ buffer: AudioBuffer, from feeder: FeederID) throws {
        defer { collect() }
        try node.process(buffer, from: feeder, context)
    }

    /// Tells the node that `feeder`'s stream ended.
    public func end(_ feeder: FeederID) throws {
        defer { collect() }
        try node.feederEnded(feeder, context)
    }
}

extension NodeHarness where Node: SourceNode {
    /// Calls `produce` once; what it emitted is in `output` at once.
    @discardableResult
    public func produce() throws -> SourceStatus {
        defer { collect() }
        return try node.produce(context)
    }

    /// Calls `produce` until the source finishes (at most `limit` times), then `finish`.
    public func runToEnd(limit: Int = 10_000_000) throws {
        var calls = 0
        while calls < limit {
            calls += 1
            if try produce() == .finished { break }
        }
        try finish()
    }
}

extension Frame {
    public var audioBuffer: AudioBuffer? {
        if case .audio(let buffer) = self { return buffer }
        return nil
    }

    public var event: Event? {
        if case .event(let event) = self { return event }
        return nil
    }
}
