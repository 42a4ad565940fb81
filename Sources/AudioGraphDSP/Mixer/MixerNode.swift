import AudioGraphCore

/// `mixer`: any number of inputs (a call's participants as they come and go, or fixed sources) summed into one
/// stream on the call's clock, for one recording of the call (`aac-sink`, `wav-sink`).
///
/// Where each feeder's audio lands (see `MixTimeline`):
/// - In a live graph (a participant, a microphone): at the time it reached the mixer on the graph's clock. A
///   feeder's first block is placed at its arrival, every later block right after the one before (so nothing
///   drifts with network jitter), and a feeder that fell silent (muted, or its sender paused) for more than
///   `resyncMs` is placed at its arrival again, with silence in between. The mixer writes a stretch of the call
///   `delayMs` after it happened, so audio a little late still lands in place; audio later than that is moved
///   to the first stretch not yet written and counted in a warning, never dropped.
/// - Otherwise (files): at its own stream position; the mixer writes what every feeder has reached.
///
/// Silence fills what nobody sent; the sum is clipped to -1…1. At the end the recording runs to the end of the
/// call (live) or of the longest feeder.
public final class MixerNode: MultiInputNode {
    static let sampleRate = Parameter.integer("sampleRate", range: 8000...192_000, default: 16000,
        doc: "Sample rate of the mix, in Hz; feeders in another format get a resampler.")
    static let channels = Parameter.integer("channels", range: 1...2, default: 1, doc: "Channels of the mix.")
    static let delayMs = Parameter.integer("delayMs", range: 20...10_000, default: 500,
        doc: "Live graphs: how long after a stretch of the call the mixer writes it, waiting for late audio.")
    static let resyncMs = Parameter.integer("resyncMs", range: 100...60_000, default: 1000,
        doc: "Live graphs: a feeder whose audio arrives this much later than its last block's end (muted, "
            + "paused) is placed at its arrival again.")

    public static let descriptor = NodeDescriptor(
        type: "mixer",
        summary: "Mixes any number of inputs (a call's participants as they come and go) into one stream on the "
            + "call's clock: each feeder's audio where it arrived, silence between, the sum clipped to -1…1.",
        category: .filter,
        parameters: [sampleRate.spec, channels.spec, delayMs.spec, resyncMs.spec],
        inputs: [.init(requires: [.audio], acceptsManyLinks: true)],
        outputs: [.init(produces: [.audio], forwardsInput: false)],
        execution: .queued(capacity: 256))

    private let format: AudioFormat
    private let delayFrames: Int64
    private let resyncFrames: Int64
    private var timeline: MixTimeline
    /// The graph's clock when the call started (live graphs place audio by arrival on it).
    private var origin: Double = 0
    private var live = false
    private var expectedFeeders = 0
    private var warnedLate = false
    private var warnedAhead = false

    public init(configuration: NodeConfiguration) throws {
        format = AudioFormat(sampleRate: configuration[Self.sampleRate], channels: configuration[Self.channels])
        delayFrames = Int64(configuration[Self.delayMs]) * Int64(format.sampleRate) / 1000
        resyncFrames = Int64(configuration[Self.resyncMs]) * Int64(format.sampleRate) / 1000
        timeline = MixTimeline(channels: format.channels)
    }

    public var acceptedFormats: FormatRequirement {
        FormatRequirement(sampleRates: [format.sampleRate], channels: format.channels...format.channels)
    }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    public func start(_ context: NodeContext) throws {
        origin = context.clock.now()
        live = context.options.realtime
        expectedFeeders = context.feeders
    }

    /// The call's clock now, in frames since the start.
    private func callFrames(_ context: NodeContext) -> Int64 {
        Int64(((context.clock.now() - origin) * Double(format.sampleRate)).rounded())
    }

    public func process(_ buffer: AudioBuffer, from feeder: FeederID, _ context: NodeContext) throws {
        let arrival = live ? callFrames(context) - Int64(buffer.frameCount) : nil
        let late = timeline.add(buffer, from: feeder, arrival: arrival, resync: resyncFrames)
        if late > 0, !warnedLate {
            warnedLate = true
            context.warn("mixer \"\(context.nodeID)\": audio from \"\(feeder.node)\" arrived "
                + String(format: "%.2f", Double(late) / Double(format.sampleRate))
                + " s after that stretch of the call was written; it was moved later (raise delayMs to wait longer)")
        }
        write(upTo: live ? callFrames(context) - delayFrames : timeline.reachedByAll(expecting: expectedFeeders), context)
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        try process(buffer, from: FeederID(node: "", serial: 0), context)
    }

    public func feederEnded(_ feeder: FeederID, _ context: NodeContext) throws {
        timeline.end(feeder, forget: live)
        if !live { write(upTo: timeline.reachedByAll(expecting: expectedFeeders), context) }
    }

    /// Events stay with the branches that made them: the mix is audio only.
    public func handle(_ event: Event, _ context: NodeContext) throws {}

    public func finish(_ context: NodeContext) throws {
        let end = max(timeline.furthestEnd, live ? callFrames(context) : 0)
        write(upTo: end, context)
    }

    /// Emits the mix up to call frame `target`; held audio beyond `MixTimeline.maxHeldSeconds` is written too,
    /// so memory stays bounded whatever a feeder does.
    private func write(upTo target: Int64, _ context: NodeContext) {
        var target = target
        let bound = timeline.furthestEnd - Int64(MixTimeline.maxHeldSeconds * Double(format.sampleRate))
        if bound > target {
            if !warnedAhead {
                warnedAhead = true
                context.warn("mixer \"\(context.nodeID)\": a feeder ran more than \(Int(MixTimeline.maxHeldSeconds)) s "
                    + "ahead of the others; the mix was written without waiting for them")
            }
            target = bound
        }
        timeline.take(upTo: target, blockFrames: 4096) { samples, position in
            context.emit(AudioBuffer(format: format, samples: samples, position: position))
        }
    }
}
