import AudioGraphCore

/// `level-meter`: passes audio through untouched and, every `intervalMs` of stream time, emits a `level` event
/// with RMS and peak per channel in dBFS and a 0…1 `level` for meters (see `LevelReading`).
///
/// Each event is emitted right after the buffer in which its window ends, stamped with the stream time of the
/// window's end.
public final class LevelMeterNode: AudioNode {
    static let intervalMs = Parameter.integer("intervalMs", range: 10...60_000, default: 100,
                                              doc: "Length of each measuring window, in milliseconds of audio.")

    public static let descriptor = NodeDescriptor(
        type: "level-meter",
        summary: "Measures RMS and peak level (dBFS) per channel; passes audio through. Its 0…1 `level` is the "
            + "loudest channel's RMS mapped linearly from -60 dBFS (0) to 0 dBFS (1); a full-scale sine reads -3.01 dBFS RMS.",
        category: .filter,
        parameters: [intervalMs.spec],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [.level], forwardsInput: true)])

    private let intervalMs: Int
    private var analyzer = LevelAnalyzer(channels: 1, windowFrames: 1)
    private var measuring = false
    /// Readings completed inside the current buffer (kept to reuse its storage).
    private var pending: [(LevelReading, Int64)] = []
    private var sampleRate = 1
    private var lastPosition: Int64 = 0

    public init(configuration: NodeConfiguration) throws {
        intervalMs = configuration[Self.intervalMs]
    }

    public func start(_ context: NodeContext) throws {
        guard let format = context.inputFormat else { return }
        sampleRate = format.sampleRate
        let window = max(1, format.sampleRate * intervalMs / 1000)
        analyzer = LevelAnalyzer(channels: format.channels, windowFrames: window)
        measuring = true
        pending.reserveCapacity(8)
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        context.emit(buffer)
        guard measuring else { return }
        pending.removeAll(keepingCapacity: true)
        buffer.samples.withUnsafeBufferPointer { samples in
            analyzer.add(samples) { reading, frame in
                pending.append((reading, buffer.position + Int64(frame)))
            }
        }
        for (reading, end) in pending {
            context.emit(.level(reading), at: Double(end) / Double(sampleRate))
        }
        lastPosition = buffer.endPosition
    }

    public func finish(_ context: NodeContext) throws {
        if measuring, let reading = analyzer.flush() {
            context.emit(.level(reading), at: Double(lastPosition) / Double(sampleRate))
        }
    }
}
