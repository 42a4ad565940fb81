import AudioGraphCore

/// The mixer's call timeline: where each feeder's next frame goes, and the sum of everything placed but not yet
/// written. Positions are call frames since the start; `written` is how far the mix has been handed out.
struct MixTimeline {
    /// The most audio held beyond what was written, in seconds of the call, before the mixer writes on
    /// regardless (a feeder running far ahead of the others must not grow memory).
    static let maxHeldSeconds = 30.0

    let channels: Int
    /// Call frames handed out so far: everything before is final.
    private(set) var written: Int64 = 0
    /// The furthest call frame any feeder's audio reaches.
    private(set) var furthestEnd: Int64 = 0
    /// Summed samples of call frames from `written` on, starting at `heldStart` (samples, interleaved).
    private var held: [Float] = []
    private var heldStart = 0
    private var feeders: [FeederID: Feeder] = [:]

    private struct Feeder {
        /// Call frame where this feeder's next block goes if it follows on.
        var next: Int64
        /// The stream position that next block should have.
        var nextPosition: Int64
        var ended: Bool
    }

    init(channels: Int) { self.channels = channels }

    /// Places `buffer` and adds it to the mix. `arrival` (live graphs) is the call frame the block's first
    /// frame arrived at: a new feeder starts there, and one whose audio arrives more than `resync` frames after
    /// its last block's end starts there again. Returns how many frames late the block was (placed at `written`
    /// instead), 0 when in place.
    mutating func add(_ buffer: AudioBuffer, from feeder: FeederID, arrival: Int64?, resync: Int64) -> Int64 {
        var start: Int64
        if let known = feeders[feeder], !known.ended {
            // A gap in the feeder's own positions (loss concealed as a jump) stays a gap.
            start = known.next + max(0, buffer.position - known.nextPosition)
            if let arrival, arrival - start > resync { start = arrival }
        } else {
            start = arrival ?? buffer.position
        }
        var late: Int64 = 0
        if start < written {
            late = written - start
            start = written
        }
        let frames = Int64(buffer.frameCount)
        mixIn(buffer.samples, at: start)
        feeders[feeder] = Feeder(next: start + frames, nextPosition: buffer.endPosition, ended: false)
        furthestEnd = max(furthestEnd, start + frames)
        return late
    }

    /// `feeder` ended: the others no longer wait for it. With `forget` (live graphs, where nobody counts
    /// feeders) it is dropped at once, so a long call of comings and goings holds only who is there.
    mutating func end(_ feeder: FeederID, forget: Bool = false) {
        if forget {
            feeders[feeder] = nil
        } else if feeders[feeder] != nil {
            feeders[feeder]!.ended = true
        } else {
            feeders[feeder] = Feeder(next: 0, nextPosition: 0, ended: true)
        }
    }

    /// How far every feeder has reached (files): nothing new until `expecting` feeders have been heard from,
    /// then the least of the open feeders' ends, or everything once all ended.
    func reachedByAll(expecting: Int) -> Int64 {
        guard feeders.count >= expecting else { return written }
        let open = feeders.values.filter { !$0.ended }.map(\.next)
        return open.min() ?? furthestEnd
    }

    /// Hands out the mix from `written` up to call frame `target` in blocks of at most `blockFrames`, clipped
    /// to -1…1, silence where nothing was placed.
    mutating func take(upTo target: Int64, blockFrames: Int, emit: ([Float], Int64) -> Void) {
        while written < target {
            let frames = Int(min(Int64(blockFrames), target - written))
            let count = frames * channels
            var block = [Float](repeating: 0, count: count)
            let available = min(count, held.count - heldStart)
            if available > 0 {
                for index in 0..<available {
                    block[index] = min(1, max(-1, held[heldStart + index]))
                }
                heldStart += available
            }
            emit(block, written)
            written += Int64(frames)
        }
        if heldStart >= held.count {
            held.removeAll(keepingCapacity: true)
            heldStart = 0
        } else if heldStart > held.count / 2 {
            held.removeFirst(heldStart)
            heldStart = 0
        }
    }

    /// Adds samples into the held mix at call frame `start` (at or after `written`).
    private mutating func mixIn(_ samples: [Float], at start: Int64) {
        let offset = heldStart + Int(start - written) * channels
        let end = offset + samples.count
        if held.count < end { held.append(contentsOf: repeatElement(0, count: end - held.count)) }
        held.withUnsafeMutableBufferPointer { held in
            for (index, sample) in samples.enumerated() { held[offset + index] += sample }
        }
    }
}
