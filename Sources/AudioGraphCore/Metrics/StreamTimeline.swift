import Synchronization

/// When the audio at a given stream time was there: the yardstick for speech latency.
///
/// - Real-time graphs (a microphone, a file paced at 1x): the audio clock. Stream time `t` is "now" at wall time
///   `anchor + t`, the anchor fixed by the first block the source emits (a live source emits a block once it has
///   been captured, so at its end; a paced file at its start).
/// - Faster-than-real-time graphs (batch): the wall time at which the source emitted the block holding `t`, kept
///   for the last 4096 blocks (older times map to the oldest block kept).
final class StreamTimeline: Sendable {
    private struct State {
        var anchor: Double?
        var blockEnds: [Double] = []
        var wallTimes: [Double] = []
        var head = 0
    }

    static let capacity = 4096
    let realtime: Bool
    private let state = Mutex(State())

    init(realtime: Bool) {
        self.realtime = realtime
    }

    /// Whether the source still needs to report its blocks (a real-time graph needs only its first).
    var wantsBlocks: Bool {
        realtime ? state.withLock { $0.anchor == nil } : true
    }

    /// The source emitted the audio `[start, end)` (stream seconds) at wall time `wall`.
    func sourceEmitted(start: Double, end: Double, live: Bool, at wall: Double) {
        state.withLock { state in
            if realtime {
                if state.anchor == nil { state.anchor = wall - (live ? end : start) }
                return
            }
            if state.blockEnds.count < Self.capacity {
                state.blockEnds.append(end)
                state.wallTimes.append(wall)
            } else {
                state.blockEnds[state.head] = end
                state.wallTimes[state.head] = wall
                state.head = (state.head + 1) % Self.capacity
            }
        }
    }

    /// The wall time at which the audio at stream time `t` was there; nil before any audio.
    func wallTime(ofStreamTime t: Double) -> Double? {
        state.withLock { state in
            if realtime { return state.anchor.map { $0 + t } }
            let count = state.blockEnds.count
            guard count > 0 else { return nil }
            // Oldest first from `head`; binary search for the first block ending after `t`.
            var low = 0, high = count
            while low < high {
                let middle = (low + high) / 2
                if state.blockEnds[(state.head + middle) % count] > t { high = middle } else { low = middle + 1 }
            }
            return state.wallTimes[(state.head + min(low, count - 1)) % count]
        }
    }
}
