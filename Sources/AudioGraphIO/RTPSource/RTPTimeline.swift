/// Keeps `rtp-source`'s output on the sender's clock when packets are lost: each decoded frame is placed by its
/// RTP timestamp, and a hole between the end of the previous frame and the start of the next (lost packets, or a
/// sender that paused without stopping its clock) is filled with silence of the hole's length, so the stream does
/// not shrink and every later event keeps its time.
///
/// A pure state machine (tested alone): `place` says how much silence goes before a frame.
///
/// - A hole shorter than `tolerance` is jitter in the timestamps, not a loss: nothing is inserted.
/// - A jump longer than `maximumGap` (the node's `timeout`: a silence that long would have ended the stream) or
///   backwards is a new timeline, as when a sender restarts with a new random RTP timestamp: nothing is
///   inserted and the frame starts the new timeline (counted in `discontinuities`).
struct RTPTimeline: Equatable, Sendable {
    /// Holes up to this long (seconds) are timing jitter.
    var tolerance: Double
    /// Holes longer than this (seconds) are a new timeline.
    var maximumGap: Double
    /// Where the next frame should start, in seconds of the sender's clock; nil before the first frame.
    private(set) var expectedStart: Double?
    /// Seconds of silence inserted so far.
    private(set) var concealedSeconds: Double = 0
    /// Holes filled so far.
    private(set) var concealedGaps = 0
    /// Jumps treated as a new timeline.
    private(set) var discontinuities = 0

    init(tolerance: Double, maximumGap: Double) {
        self.tolerance = tolerance
        self.maximumGap = maximumGap
    }

    /// A frame starting at `start` seconds (nil: no timestamp, placed right after the previous one) and lasting
    /// `duration` seconds arrived: returns the seconds of silence to emit before it.
    mutating func place(start: Double?, duration: Double) -> Double {
        defer { expectedStart = (start ?? expectedStart ?? 0) + duration }
        guard let start, let expected = expectedStart else { return 0 }
        let gap = start - expected
        if abs(gap) <= tolerance { return 0 }
        if gap < 0 || gap > maximumGap {
            discontinuities += 1
            return 0
        }
        concealedGaps += 1
        concealedSeconds += gap
        return gap
    }
}
