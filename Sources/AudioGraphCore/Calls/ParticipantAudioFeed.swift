import Foundation

/// One participant's audio on its way into the call's graph: the network side `write`s interleaved samples, the
/// participant's `participant-source` node `read`s them on its own thread. Bounded (`capacityFrames`): a writer
/// that gets ahead waits (backpressure to the sender), so memory stays flat however long the call.
///
/// `@unchecked Sendable`: every stored property after init is guarded by `condition`.
public final class ParticipantAudioFeed: @unchecked Sendable {
    /// Who speaks on it: the speaker every caption of the branch is labelled with.
    public let participant: String
    /// The format the samples arrive in.
    public let format: AudioFormat
    /// The most frames held at once.
    public let capacityFrames: Int

    private let condition = NSCondition()
    private var blocks: [[Float]] = []
    private var heldFrames = 0
    private var closed = false
    private var muted = false
    private var consumerGone = false
    private var muteObservers: [@Sendable (Bool) -> Void] = []

    public init(participant: String, format: AudioFormat, capacityFrames: Int? = nil) {
        self.participant = participant
        self.format = format
        self.capacityFrames = max(capacityFrames ?? format.sampleRate * 2, 1)
    }

    /// Hands interleaved samples to the graph, waiting while `capacityFrames` are held. Samples while muted are
    /// dropped. False once the consumer has gone (the branch ended) or the feed was closed: stop sending.
    @discardableResult
    public func write(_ samples: [Float]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, !consumerGone, !muted, heldFrames >= capacityFrames { condition.wait() }
        guard !closed, !consumerGone else { return false }
        guard !muted, !samples.isEmpty else { return true }
        blocks.append(samples)
        heldFrames += samples.count / max(format.channels, 1)
        condition.broadcast()
        return true
    }

    /// Pauses (`true`: what arrives is dropped) or resumes the participant's audio.
    public func setMuted(_ muted: Bool) {
        condition.lock()
        let changed = self.muted != muted
        self.muted = muted
        condition.broadcast()
        let observers = changed ? muteObservers : []
        condition.unlock()
        for observer in observers { observer(muted) }
    }

    /// Calls `observer` with the new value each time the participant mutes or unmutes (on the caller of
    /// `setMuted`'s thread).
    public func observeMuted(_ observer: @escaping @Sendable (Bool) -> Void) {
        condition.lock()
        muteObservers.append(observer)
        condition.unlock()
    }

    public var isMuted: Bool {
        condition.lock()
        defer { condition.unlock() }
        return muted
    }

    /// The participant left (the socket closed): what is held is still read, then the stream ends.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// What `read` found.
    public enum ReadResult: Equatable, Sendable {
        case samples([Float])
        /// Nothing arrived within the wait; ask again (the source checks for cancellation).
        case waiting
        /// Closed and everything read.
        case ended
    }

    /// The next block, waiting up to `timeout` seconds for one.
    public func read(timeout: Double) -> ReadResult {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(timeout)
        while blocks.isEmpty, !closed {
            if !condition.wait(until: deadline) { break }
        }
        guard !blocks.isEmpty else { return closed ? .ended : .waiting }
        let block = blocks.removeFirst()
        heldFrames -= block.count / max(format.channels, 1)
        condition.broadcast()
        return .samples(block)
    }

    /// The branch reading the feed has ended: writers are told to stop.
    public func consumerEnded() {
        condition.lock()
        consumerGone = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A source that reads a `ParticipantAudioFeed` (the `participant-source` node): the runtime attaches each
/// participant's feed to a fresh branch before it starts.
public protocol ParticipantFeedSource: SourceNode {
    func attach(_ feed: ParticipantAudioFeed)
}
