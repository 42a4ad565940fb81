import AudioGraphCore

/// The recognizer node's utterance bookkeeping, as a value with no engine and no I/O: segment ids and
/// revisions, where the current utterance starts and how far it has been fed, when a partial is due, the
/// pause hint waiting for its audio, and the FIFO of utterances that have ended but whose final result the
/// engine still holds (deferred finals). The node asks it what to do and does it.
///
/// Segment ids increase. An utterance whose final is empty and that gave no partial said nothing: its id is
/// taken again by the next utterance when nothing began in between (a deferred one leaves a gap instead).
public struct UtteranceTracker: Sendable {
    /// The utterance being fed.
    public struct Current: Sendable, Equatable {
        public var segment: Int
        /// Stream position of its first frame (the engine's lead-in before the speech included).
        public var start: Int64
        /// Where the VAD said speech starts (its pre-roll included): the captions' start.
        public var speechStart: Int64
        /// Stream position up to which audio has been given to the engine.
        public var fedUpTo: Int64
        public var framesSincePartial = 0
        /// Revisions emitted so far (partials).
        public var revision = 0
        public var lastPartial = ""
        /// A pause hint's frame count not yet passed to the engine (waiting for its audio to be fed).
        public var pendingFinalFrames: Int?
    }

    /// An utterance that has ended and waits for its final result.
    public struct Ended: Sendable, Equatable {
        public var segment: Int
        /// Stream position of its first frame (word times count from here).
        public var start: Int64
        /// Where speech started, for the final's start.
        public var speechStart: Int64
        /// Where speech ended (never past the audio fed).
        public var end: Int64
        /// Partials emitted for it.
        public var revision: Int
    }

    /// What to do after feeding audio.
    public struct FeedActions: Sendable, Equatable {
        /// Ask the engine for a partial hypothesis now.
        public var takePartial = false
        /// Call `prepareFinal(speechEndsAfter:)` with this.
        public var prepareFinal: Int?
        /// The utterance reached `maxUtteranceFrames`: end it and begin the next.
        public var cut = false
    }

    public let sampleRate: Int
    /// Frames between partial hypotheses; 0 for none.
    public let partialInterval: Int
    public let wantsPartials: Bool
    public let maxUtteranceFrames: Int64
    /// Frames of audio before the VAD's start of speech (`UtteranceContext.leadIn`).
    public let leadInFrames: Int64
    /// Frames kept after the VAD's end of speech for the final pass (`UtteranceContext.tail`).
    public let tailFrames: Int

    public private(set) var current: Current?
    /// Ended utterances whose results are not known yet, oldest first.
    public private(set) var pending: [Ended] = []
    /// The id the newest utterance took.
    public private(set) var lastSegment = 0
    /// Stream position where transcription last started; audio before it is never fed.
    public var activeFrom: Int64 = 0
    /// Where the last ended utterance's audio ends (its final's tail included): a lead-in never reaches before it.
    public private(set) var previousAudioEnd: Int64 = 0

    public init(sampleRate: Int, partialInterval: Int, wantsPartials: Bool, maxUtteranceFrames: Int64,
                context: UtteranceContext = UtteranceContext()) {
        self.sampleRate = sampleRate
        self.partialInterval = partialInterval
        self.wantsPartials = wantsPartials && partialInterval > 0
        self.maxUtteranceFrames = maxUtteranceFrames
        leadInFrames = Int64((max(0, context.leadIn) * Double(sampleRate)).rounded())
        tailFrames = Int((max(0, context.tail) * Double(sampleRate)).rounded())
    }

    public var inUtterance: Bool { current != nil }

    /// Begins an utterance whose speech starts at `position` (or later when audio before it is gone, `earliest`
    /// being the ring's start, or was before the transcription started), its audio `leadInFrames` earlier but
    /// not before the previous utterance's audio. Returns where its audio starts.
    @discardableResult
    public mutating func begin(at position: Int64, earliest: Int64) -> Int64 {
        precondition(current == nil, "an utterance is already open")
        let speechStart = max(position, earliest, activeFrom)
        let start = min(speechStart, max(position - leadInFrames, earliest, activeFrom, previousAudioEnd))
        lastSegment += 1
        current = Current(segment: lastSegment, start: start, speechStart: speechStart, fedUpTo: start)
        return start
    }

    /// How many of `count` frames at `position` were fed already (a replay overlaps the live buffer that
    /// triggered it); `count` when none is new or no utterance is open.
    public func alreadyFed(_ count: Int, at position: Int64) -> Int {
        guard let current else { return count }
        return Int(max(0, min(Int64(count), current.fedUpTo - position)))
    }

    /// Records that the frames up to `end` were fed (`fresh` of them new). `replay` feeds never cut.
    public mutating func fed(_ fresh: Int, upTo end: Int64, replay: Bool = false) -> FeedActions {
        guard var utterance = current else { return FeedActions() }
        var actions = FeedActions()
        utterance.fedUpTo = end
        utterance.framesSincePartial += fresh
        if let frames = utterance.pendingFinalFrames, end - utterance.start >= Int64(frames) {
            utterance.pendingFinalFrames = nil
            actions.prepareFinal = frames
        }
        if wantsPartials && utterance.framesSincePartial >= partialInterval {
            utterance.framesSincePartial = 0
            actions.takePartial = true
        }
        actions.cut = !replay && end - utterance.start >= maxUtteranceFrames
        current = utterance
        return actions
    }

    /// A partial hypothesis to emit for `text`, or nil when it is empty or unchanged.
    public mutating func partial(_ text: String, language: String) -> TranscriptUpdate? {
        guard var utterance = current, !text.isEmpty, text != utterance.lastPartial else { return nil }
        utterance.lastPartial = text
        utterance.revision += 1
        current = utterance
        return TranscriptUpdate(segment: utterance.segment, revision: utterance.revision, isFinal: false,
                                start: seconds(utterance.speechStart), end: seconds(utterance.fedUpTo), text: text,
                                language: language)
    }

    /// The frames of the current utterance that a speech end at `position` keeps for the final pass: up to the
    /// end plus the tail. The same for a pause hint and the `speechEnded` at the same time.
    public func finalFrames(speechEndingAt position: Int64) -> Int? {
        guard let current else { return nil }
        return Int(position - current.start) + tailFrames
    }

    /// The VAD heard a pause at `position`: returns the frames to pass to `prepareFinal` now, or keeps them
    /// until that much audio has been fed (a resampler may deliver the hint before its audio).
    public mutating func pause(at position: Int64) -> Int? {
        guard var utterance = current, let frames = finalFrames(speechEndingAt: position) else { return nil }
        guard utterance.fedUpTo - utterance.start < Int64(frames) else { return frames }
        utterance.pendingFinalFrames = frames
        current = utterance
        return nil
    }

    /// Ends the current utterance at `position`; it waits in `pending` for its result. Returns the frames to
    /// give `endUtterance(speechEndsAfter:)` when the VAD said speech ended there (nil otherwise, or when no
    /// utterance was open).
    public mutating func end(at position: Int64, speechEnded: Bool) -> Int? {
        guard let utterance = current else { return nil }
        let frames = speechEnded ? finalFrames(speechEndingAt: position) : nil
        current = nil
        previousAudioEnd = speechEnded ? position + Int64(tailFrames) : min(position, utterance.fedUpTo)
        pending.append(Ended(segment: utterance.segment, start: utterance.start, speechStart: utterance.speechStart,
                             end: min(position, utterance.fedUpTo), revision: utterance.revision))
        return frames
    }

    /// Pairs `results` with the oldest pending utterances, in order, and returns the finals to emit (empty
    /// results of utterances that gave no partial are dropped). More results than pending utterances is an
    /// engine error.
    public mutating func resolve(_ results: [RecognitionResult], language: String) throws(UnexpectedResult) -> [TranscriptUpdate] {
        var updates: [TranscriptUpdate] = []
        for result in results {
            guard !pending.isEmpty else { throw UnexpectedResult(text: result.text) }
            let utterance = pending.removeFirst()
            guard !result.text.isEmpty || utterance.revision > 0 else {
                // Nothing was said: the next utterance takes the id, unless one has begun since.
                if utterance.segment == lastSegment && current == nil && pending.isEmpty { lastSegment -= 1 }
                continue
            }
            let offset = seconds(utterance.start)
            let words = result.words.map {
                RecognizedWord(word: $0.word, start: offset + $0.start, end: offset + $0.end, confidence: $0.confidence)
            }
            // The utterance starts where the VAD said speech started (a lead-in before it is context), never after
            // its first word, and ends where the VAD said speech ended (audio fed past it is its hangover), never
            // before its last word.
            let start = min(seconds(utterance.speechStart), words.first?.start ?? seconds(utterance.speechStart))
            let end = max(seconds(utterance.end), words.last?.end ?? offset)
            updates.append(TranscriptUpdate(segment: utterance.segment, revision: utterance.revision + 1, isFinal: true,
                                            start: start, end: end, text: result.text, confidence: result.confidence,
                                            words: words, language: language))
        }
        return updates
    }

    /// An engine returned a result for no utterance.
    public struct UnexpectedResult: Error, Sendable {
        public var text: String
    }

    public func seconds(_ position: Int64) -> Double { Double(position) / Double(sampleRate) }
}
