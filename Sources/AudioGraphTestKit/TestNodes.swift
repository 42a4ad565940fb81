import AudioGraphCore
import Foundation
import Synchronization

/// `test-tone`: a source that emits a sine for `seconds` in blocks of `blockFrames`. Deterministic; for graph
/// and runtime tests that need no files.
public final class ToneSourceNode: SourceNode {
    static let sampleRate = Parameter.integer("sampleRate", range: 1000...384_000, default: 16000, doc: "Sample rate in Hz.")
    static let channels = Parameter.integer("channels", range: 1...8, default: 1, doc: "Channels.")
    static let seconds = Parameter.number("seconds", range: 0...86_400, default: 1, doc: "Length.")
    static let frequency = Parameter.number("frequency", range: 1...20_000, default: 440, doc: "Tone frequency in Hz.")
    static let blockFrames = Parameter.integer("blockFrames", range: 1...65536, default: 1024, doc: "Frames per buffer.")
    static let endless = Parameter.boolean("endless", default: false, doc: "Never end (until cancelled).")
    static let realtime = Parameter.boolean("realtime", default: false,
        doc: "Pace at 1x on the graph's clock (each block waits until its start is due).")
    static let live = Parameter.boolean("live", default: false, doc: "Act as a live source (implies realtime).")

    public static let descriptor = NodeDescriptor(
        type: "test-tone",
        summary: "Test source: a sine tone.",
        category: .source,
        parameters: [
            sampleRate.spec,
            channels.spec,
            seconds.spec,
            frequency.spec,
            blockFrames.spec,
            endless.spec,
            realtime.spec,
            live.spec,
        ],
        inputs: [],
        outputs: [.init(produces: [.audio], forwardsInput: false)])

    public let format: AudioFormat
    private let total: Int64
    private let blockFrames: Int
    private let frequency: Double
    private let endless: Bool
    private let realtime: Bool
    private let live: Bool
    private var position: Int64 = 0
    private var startTime: Double?

    public init(configuration: NodeConfiguration) throws {
        format = AudioFormat(sampleRate: configuration[Self.sampleRate], channels: configuration[Self.channels])
        total = Int64((configuration[Self.seconds] * Double(format.sampleRate)).rounded())
        blockFrames = configuration[Self.blockFrames]
        frequency = configuration[Self.frequency]
        endless = configuration[Self.endless]
        live = configuration[Self.live]
        realtime = live || configuration[Self.realtime]
    }

    public var totalFrames: Int64? { endless ? nil : total }
    public var isLive: Bool { live }
    public var isRealtime: Bool { realtime }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    public func produce(_ context: NodeContext) throws -> SourceStatus {
        let frames = endless ? blockFrames : Int(min(Int64(blockFrames), total - position))
        if frames <= 0 { return .finished }
        if realtime {
            let start = startTime ?? context.clock.now()
            startTime = start
            context.clock.sleep(until: start + Double(position) / Double(format.sampleRate),
                                cancellation: context.cancellationFlag)
        }
        var samples = [Float](repeating: 0, count: frames * format.channels)
        for i in 0..<frames {
            let t = Double(position + Int64(i)) / Double(format.sampleRate)
            let value = Float(0.5 * sin(2 * Double.pi * frequency * t))
            for c in 0..<format.channels { samples[i * format.channels + c] = value }
        }
        context.emit(AudioBuffer(format: format, samples: samples, position: position))
        position += Int64(frames)
        return .more
    }
}

/// `test-recorder`: a sink that keeps every frame it receives and the lifecycle calls it saw, readable from
/// any thread after (or during) a run.
public final class RecordingSinkNode: AudioNode, @unchecked Sendable {
    public static let descriptor = NodeDescriptor(
        type: "test-recorder",
        summary: "Test sink: records every frame.",
        category: .sink,
        parameters: [
            ParameterSpec("sampleRates", .string, doc: "Accepted sample rates, comma-separated (default any)."),
            ParameterSpec("channels", .integer(range: 1...8), doc: "The only channel count accepted (default any)."),
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [])

    /// What the recorder saw, in order.
    public enum Record: Sendable {
        case start(AudioFormat?)
        case frame(Frame)
        case finish
        case stop
    }

    // `@unchecked Sendable`: all state is behind this mutex.
    private let state = Mutex<[Record]>([])
    private let accepted: FormatRequirement

    public init(configuration: NodeConfiguration) throws {
        let rates = configuration.string("sampleRates")?.split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        accepted = FormatRequirement(sampleRates: rates, channels: configuration.int("channels").map { $0...$0 })
    }

    public var acceptedFormats: FormatRequirement { accepted }
    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }

    public var records: [Record] { state.withLock { $0 } }

    public var frames: [Frame] {
        records.compactMap { if case .frame(let f) = $0 { return f } else { return nil } }
    }

    public var buffers: [AudioBuffer] { frames.compactMap(\.audioBuffer) }
    public var events: [Event] { frames.compactMap(\.event) }
    public var samples: [Float] { buffers.flatMap(\.samples) }
    public var finished: Bool { records.contains { if case .finish = $0 { return true } else { return false } } }
    public var stopped: Bool { records.contains { if case .stop = $0 { return true } else { return false } } }

    public func start(_ context: NodeContext) throws { state.withLock { $0.append(.start(context.inputFormat)) } }
    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws { state.withLock { $0.append(.frame(.audio(buffer))) } }
    public func handle(_ event: Event, _ context: NodeContext) throws { state.withLock { $0.append(.frame(.event(event))) } }
    public func handle(_ command: ControlCommand, _ context: NodeContext) throws { state.withLock { $0.append(.frame(.control(command))) } }
    public func finish(_ context: NodeContext) throws { state.withLock { $0.append(.finish) } }
    public func stop() { state.withLock { $0.append(.stop) } }
}
