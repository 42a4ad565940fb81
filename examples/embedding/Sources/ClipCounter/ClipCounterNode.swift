import AudioGraph
import Foundation

/// `clip-counter`: a node type defined outside audiograph. It passes audio through untouched and finds *runs*
/// of samples at or above `thresholdDb` — clipping at the default -1 dBFS, or simply the loud passages at a
/// lower threshold. Each run is reported as a custom `clip` event once it has ended, and a `clipSummary`
/// event closes the stream.
///
/// A frame is "over" when any of its channels is at or above the threshold. Over frames closer together than
/// `minGapMs` belong to one run.
///
/// Events (as `audiograph run --events jsonl` would print them):
/// - `{"type":"clip","node":"clip","time":END,"start":S,"end":E,"frames":N,"peakDb":P}` — stamped with the
///   stream time at which the run ended (when it became known), so events stay in stream order;
/// - `{"type":"clipSummary","node":"clip","time":T,"runs":R,"frames":N,"peakDb":P}` — at end of stream, with
///   the loudest sample of the whole stream.
public final class ClipCounterNode: AudioNode {
    /// The frame kind of this node's events, declared on its output port so the graph builder knows a link
    /// from it carries them.
    public static let clipKind: FrameKind = "clip"

    static let thresholdDb = Parameter.number("thresholdDb", range: -60...0, default: -1,
                                              doc: "Level in dBFS at or above which a sample counts (-1: clipping).")
    static let minGapMs = Parameter.integer("minGapMs", range: 0...10_000, default: 20,
                                            doc: "Over samples closer together than this belong to one run.")

    public static let descriptor = NodeDescriptor(
        type: "clip-counter",
        summary: "Finds runs of samples at or above `thresholdDb`; emits a `clip` event per run and a "
            + "`clipSummary` at the end. Passes audio through.",
        category: .filter,
        parameters: [thresholdDb.spec, minGapMs.spec],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [clipKind], forwardsInput: true)])

    private let threshold: Float
    private let minGapMs: Int
    private var minGapFrames: Int64 = 1
    private var sampleRate = 1

    private struct Run {
        var start: Int64
        var last: Int64
        var frames = 0
        var peak: Float = 0
    }
    private var run: Run?
    /// Runs that ended inside the current buffer (kept to reuse its storage).
    private var ended: [Run] = []
    private var runs = 0
    private var overFrames = 0
    private var peak: Float = 0
    private var endPosition: Int64 = 0

    public init(configuration: NodeConfiguration) throws {
        threshold = Float(pow(10, configuration[Self.thresholdDb] / 20))
        minGapMs = configuration[Self.minGapMs]
    }

    public func start(_ context: NodeContext) throws {
        guard let format = context.inputFormat else { return }
        sampleRate = format.sampleRate
        minGapFrames = max(1, Int64(format.sampleRate * minGapMs / 1000))
        ended.reserveCapacity(4)
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        context.emit(buffer)
        let channels = buffer.format.channels
        ended.removeAll(keepingCapacity: true)
        buffer.samples.withUnsafeBufferPointer { samples in
            for frame in 0..<buffer.frameCount {
                var loudest: Float = 0
                for c in 0..<channels { loudest = max(loudest, abs(samples[frame * channels + c])) }
                peak = max(peak, loudest)
                let position = buffer.position + Int64(frame)
                if loudest >= threshold {
                    if run == nil { run = Run(start: position, last: position) }
                    run!.last = position
                    run!.frames += 1
                    run!.peak = max(run!.peak, loudest)
                } else if let current = run, position - current.last >= minGapFrames {
                    ended.append(current)
                    run = nil
                }
            }
        }
        for run in ended { report(run, context) }
        endPosition = buffer.endPosition
    }

    public func finish(_ context: NodeContext) throws {
        if let run {
            report(run, context)
            self.run = nil
        }
        let fields = JSONObject([("runs", .number(Double(runs))), ("frames", .number(Double(overFrames))),
                                 ("peakDb", .number(Self.rounded(Self.decibels(peak))))])
        context.emit(.custom(type: "clipSummary", kind: Self.clipKind, fields: fields), at: seconds(endPosition))
    }

    private func report(_ run: Run, _ context: NodeContext) {
        runs += 1
        overFrames += run.frames
        let end = seconds(run.last + 1)
        let fields = JSONObject([("start", .number(Self.rounded(seconds(run.start)))),
                                 ("end", .number(Self.rounded(end))),
                                 ("frames", .number(Double(run.frames))),
                                 ("peakDb", .number(Self.rounded(Self.decibels(run.peak))))])
        context.emit(.custom(type: "clip", kind: Self.clipKind, fields: fields), at: end)
    }

    private func seconds(_ position: Int64) -> Double { Double(position) / Double(sampleRate) }

    /// 20·log10(amplitude), at least -120.
    static func decibels(_ amplitude: Float) -> Double {
        amplitude > 0 ? max(20 * log10(Double(amplitude)), -120) : -120
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}

/// A `clip` event, decoded.
public struct ClipRun: Sendable, Equatable {
    /// Stream time of the first and just after the last over sample, in seconds.
    public var start: Double
    public var end: Double
    /// Over frames in the run.
    public var frames: Int
    /// Loudest sample of the run, in dBFS.
    public var peakDb: Double

    public init(start: Double, end: Double, frames: Int, peakDb: Double) {
        self.start = start
        self.end = end
        self.frames = frames
        self.peakDb = peakDb
    }

    /// The run an event reports, or nil if it is not a `clip` event.
    public init?(_ event: Event) {
        guard case .custom("clip", _, let fields) = event.payload,
              let start = fields["start"]?.doubleValue, let end = fields["end"]?.doubleValue,
              let frames = fields["frames"]?.intValue, let peakDb = fields["peakDb"]?.doubleValue else { return nil }
        self.init(start: start, end: end, frames: frames, peakDb: peakDb)
    }
}

/// A `clipSummary` event, decoded.
public struct ClipSummary: Sendable, Equatable {
    public var runs: Int
    public var frames: Int
    /// Loudest sample of the stream, in dBFS.
    public var peakDb: Double

    public init?(_ event: Event) {
        guard case .custom("clipSummary", _, let fields) = event.payload,
              let runs = fields["runs"]?.intValue, let frames = fields["frames"]?.intValue,
              let peakDb = fields["peakDb"]?.doubleValue else { return nil }
        self.runs = runs
        self.frames = frames
        self.peakDb = peakDb
    }
}
