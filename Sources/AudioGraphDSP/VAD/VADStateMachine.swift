/// The VAD's decision logic, apart from any signal processing: per-frame speech/non-speech decisions in,
/// `speechStarted` / `speechPausing` / `speechEnded` actions out (swift-nio style: a pure value that returns what to
/// do).
///
/// Times are stream positions in samples. Each decision covers one frame `[start, end)`; frames arrive in order
/// and without gaps.
///
/// - **minSpeech**: a run of consecutive speech frames is reported only once it lasts `minSpeech` samples; a
///   shorter run (a click, a cough) is dropped. `minSpeech` 0 reports the first speech frame at once.
/// - **hangover**: once speaking, speech continues through non-speech gaps shorter than `hangover`; a gap that
///   reaches `hangover` ends it. The end is stamped where the gap began (the end of the last speech frame), and
///   reported when the gap reaches `hangover`.
/// - **pauseHint**: when a gap inside speech reaches `pauseHint` (only if `0 < pauseHint < hangover`), speech *may*
///   be ending: `.speechPausing` is reported once for that gap, stamped where the gap began — the stamp the
///   `.speechEnded` will have if the gap goes on to reach `hangover`. Speech resuming before `pauseHint` reports
///   nothing; speech resuming after it simply goes on (no action cancels the hint).
/// - **preRoll**: the reported start is moved back by `preRoll` so a consumer that keeps that much audio does not
///   cut the first word, but never before 0 and never before the previous speech's end.
/// - **maxSpeech**: speech that has gone on for `maxSpeech` samples since its (reported) start is split so that no
///   utterance outgrows what the recognizer decodes well: `.speechSplit(at:)` ends it and starts the next at the
///   same position, the quietest point of the last `splitSearch` samples — a non-speech frame inside speech (a
///   pause between words) when there is one, else the quietest frame (by the classifier's `levelDb`) — so a word
///   is not cut in the middle. The split is stamped at the middle of that frame. 0: never split.
/// - **finish**: at the end of the stream, speech still going on ends at the stream's end (the frames not yet
///   decided there count as speech); speech in a gap shorter than `hangover` ends where the gap began; a run
///   still shorter than `minSpeech` is dropped.
///
/// ```
///            speech ≥ minSpeech: .speechStarted(run start − preRoll)
///   silence ───────────────► candidate ─────────────────────────────► speaking
///      ▲  ◄─────────────────────┘  non-speech                          │  ▲ speech
///      │                                                               ▼  │
///      └──────────────── gap ≥ hangover: .speechEnded(gap start) ──── (gap)
///                                                                      │
///                                   gap = pauseHint (once per gap): .speechPausing(gap start)
/// ```
public struct VADStateMachine: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// Speech started at this position (preRoll applied).
        case speechStarted(at: Int64)
        /// A gap inside speech reached `pauseHint`: speech may end at this position (the gap's start). Speech may
        /// also resume; if it ends in this gap, `speechEnded` carries the same position.
        case speechPausing(at: Int64)
        /// Speech ended at this position.
        case speechEnded(at: Int64)
        /// Speech reached `maxSpeech`: it ends at this position and the next utterance starts there (reported as
        /// a `speechEnded` and a `speechStarted` with the same time).
        case speechSplit(at: Int64)
    }

    public enum State: Sendable, Equatable {
        /// No speech.
        case silence
        /// Speech frames since `runStart`, not yet `minSpeech` long.
        case candidate(runStart: Int64)
        /// Speaking; the last speech frame ended at `lastSpeechEnd` (earlier than the newest frame's end while in a
        /// gap).
        case speaking(lastSpeechEnd: Int64)
    }

    public let minSpeech: Int64
    public let hangover: Int64
    public let preRoll: Int64
    /// Gap length after which `.speechPausing` is reported; 0 (or ≥ `hangover`): never.
    public let pauseHint: Int64
    /// Speech length at which speech is split (0: never).
    public let maxSpeech: Int64
    /// How far back from `maxSpeech` the split point is looked for.
    public let splitSearch: Int64
    public private(set) var state: State = .silence
    /// Whether the current gap inside speech has been reported with `.speechPausing`.
    public private(set) var pauseReported = false
    /// The end of the last reported speech (starts are never placed before it).
    public private(set) var previousEnd: Int64 = 0
    /// The end of the newest frame.
    public private(set) var lastFrameEnd: Int64 = 0
    /// Where the current speech was reported to start (the last split, or its `speechStarted`).
    public private(set) var utteranceStart: Int64 = 0
    /// Frames of the current speech inside the split search window: (start, end, level, isSpeech).
    private var recent: [SplitCandidate] = []

    struct SplitCandidate: Sendable, Equatable {
        var start: Int64
        var end: Int64
        var levelDb: Float
        var isSpeech: Bool
    }

    /// Durations in samples.
    public init(minSpeech: Int64, hangover: Int64, preRoll: Int64, pauseHint: Int64 = 0, maxSpeech: Int64 = 0,
                splitSearch: Int64 = 0) {
        precondition(minSpeech >= 0 && hangover >= 0 && preRoll >= 0 && pauseHint >= 0 && maxSpeech >= 0 && splitSearch >= 0)
        self.minSpeech = minSpeech
        self.hangover = hangover
        self.preRoll = preRoll
        self.pauseHint = pauseHint
        self.maxSpeech = maxSpeech
        self.splitSearch = min(splitSearch, maxSpeech / 2)
    }

    /// Durations in milliseconds at `sampleRate`.
    public init(minSpeechMs: Int, hangoverMs: Int, preRollMs: Int, pauseHintMs: Int = 0, maxSpeechMs: Int = 0,
                splitSearchMs: Int = 0, sampleRate: Int) {
        func samples(_ ms: Int) -> Int64 { Int64(ms) * Int64(sampleRate) / 1000 }
        self.init(minSpeech: samples(minSpeechMs), hangover: samples(hangoverMs), preRoll: samples(preRollMs),
                  pauseHint: samples(pauseHintMs), maxSpeech: samples(maxSpeechMs), splitSearch: samples(splitSearchMs))
    }

    /// Whether speech has been reported and not yet ended.
    public var isSpeaking: Bool {
        if case .speaking = state { return true }
        return false
    }

    /// One frame's decision, for samples `[start, end)`, with its level (dB; only compared with other frames',
    /// to place splits). Returns what to report, if anything.
    public mutating func frame(start: Int64, end: Int64, isSpeech: Bool, levelDb: Float = 0) -> Action? {
        precondition(end > start, "a frame covers at least one sample")
        let wasSpeaking = isSpeaking
        let action = decide(start: start, end: end, isSpeech: isSpeech)
        guard maxSpeech > 0, wasSpeaking, isSpeaking else { return action }
        recent.append(SplitCandidate(start: start, end: end, levelDb: levelDb, isSpeech: isSpeech))
        recent.removeAll { $0.end <= end - splitSearch }
        guard action == nil, end - utteranceStart >= maxSpeech, let at = splitPoint() else { return action }
        utteranceStart = at
        recent.removeAll { $0.end <= at }
        if case .speaking(let lastSpeechEnd) = state { state = .speaking(lastSpeechEnd: max(lastSpeechEnd, at)) }
        return .speechSplit(at: at)
    }

    private mutating func decide(start: Int64, end: Int64, isSpeech: Bool) -> Action? {
        lastFrameEnd = end
        switch state {
        case .silence:
            guard isSpeech else { return nil }
            return beginRun(at: start, frameEnd: end)
        case .candidate(let runStart):
            guard isSpeech else {
                state = .silence
                return nil
            }
            return beginRun(at: runStart, frameEnd: end)
        case .speaking(let lastSpeechEnd):
            if isSpeech {
                state = .speaking(lastSpeechEnd: end)
                pauseReported = false
                return nil
            }
            let gap = end - lastSpeechEnd
            if gap >= hangover {
                state = .silence
                previousEnd = lastSpeechEnd
                pauseReported = false
                return .speechEnded(at: lastSpeechEnd)
            }
            if pauseHint > 0 && gap >= pauseHint && !pauseReported {
                // pauseHint < hangover here: the gap has not reached hangover.
                pauseReported = true
                return .speechPausing(at: lastSpeechEnd)
            }
            return nil
        }
    }

    /// End of stream at `position` (the end of the last sample). Speech still going on in the last frame ends at
    /// `position`; speech in a gap still shorter than `hangover` ends where the gap began, as it would have had the
    /// stream gone on.
    public mutating func finish(at position: Int64) -> Action? {
        defer {
            state = .silence
            pauseReported = false
        }
        switch state {
        case .silence, .candidate:
            return nil
        case .speaking(let lastSpeechEnd):
            let inGap = lastFrameEnd > lastSpeechEnd
            let end = inGap ? lastSpeechEnd : max(position, lastSpeechEnd)
            previousEnd = end
            return .speechEnded(at: end)
        }
    }

    /// The quietest pause frame of the search window, else its quietest frame: its middle.
    private func splitPoint() -> Int64? {
        let window = recent.filter { $0.start > utteranceStart }
        let pauses = window.filter { !$0.isSpeech }
        guard let best = (pauses.isEmpty ? window : pauses).min(by: { $0.levelDb < $1.levelDb }) else { return nil }
        return (best.start + best.end) / 2
    }

    private mutating func beginRun(at runStart: Int64, frameEnd: Int64) -> Action? {
        if frameEnd - runStart >= minSpeech {
            state = .speaking(lastSpeechEnd: frameEnd)
            pauseReported = false
            let start = max(runStart - preRoll, previousEnd, 0)
            utteranceStart = start
            recent.removeAll()
            return .speechStarted(at: start)
        }
        state = .candidate(runStart: runStart)
        return nil
    }
}
