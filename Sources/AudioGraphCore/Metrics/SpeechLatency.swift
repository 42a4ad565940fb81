/// How long a final transcript took, measured by the runtime for every node that emits transcripts.
///
/// - `speechEndToFinal`: from the end of speech (the `speechEnded` the node received, stamped by the VAD where
///   speech stopped, so it includes the VAD's hangover; without a VAD, or when that end lies before the
///   segment's start, the final's `end`) to the final's emission.
/// - `firstPartial`: from the start of speech (the `speechStarted` received, when it lies within half a second
///   before the segment's start or inside it; otherwise the partial's `start`) to the segment's first partial;
///   nil when the segment had none.
///
/// Both in seconds on the audio clock when the graph runs in real time (microphone, paced file): "how long
/// after they stopped talking did the caption become final". Faster than real time (batch), from when the
/// source emitted that audio.
public struct SpeechLatency: Sendable, Equatable {
    public var segment: Int
    /// Stream time the latency is measured from.
    public var speechEnd: Double
    public var speechEndToFinal: Double
    public var firstPartial: Double?

    public init(segment: Int, speechEnd: Double, speechEndToFinal: Double, firstPartial: Double?) {
        self.segment = segment
        self.speechEnd = speechEnd
        self.speechEndToFinal = speechEndToFinal
        self.firstPartial = firstPartial
    }

    /// The event name in `--events jsonl`.
    public static let eventType = "latency"

    /// As an event from node `node` at the speech end's stream time: `{"type":"latency","node":"asr",
    /// "time":12.34,"segment":3,"speechEndToFinal":0.41,"firstPartial":0.22}` (`firstPartial` only when known).
    public func event(node: String) -> Event {
        var fields = JSONObject()
        fields["segment"] = .number(Double(segment))
        fields["speechEndToFinal"] = .number(Event.rounded(speechEndToFinal))
        if let firstPartial { fields["firstPartial"] = .number(Event.rounded(firstPartial)) }
        return Event(node: node, time: speechEnd,
                     payload: .custom(type: Self.eventType, kind: FrameKind(Self.eventType), fields: fields))
    }

    /// Reads a latency event back (nil for any other event).
    public init?(_ event: Event) {
        guard case .custom(Self.eventType, _, let fields) = event.payload,
              let segment = fields["segment"]?.doubleValue, let toFinal = fields["speechEndToFinal"]?.doubleValue
        else { return nil }
        self.init(segment: Int(segment), speechEnd: event.time, speechEndToFinal: toFinal,
                  firstPartial: fields["firstPartial"]?.doubleValue)
    }
}

/// Follows one transcript-emitting node: the speech events it received and the transcripts it emitted, and
/// says the latency of each final. A value type with no clock of its own: the runtime passes "now" and how to
/// find when a stream time's audio was there, so tests script both.
struct SpeechLatencyTracker {
    private var speechStart: Double?
    private var speechEnd: Double?
    private var firstPartials: [Int: Double] = [:]

    /// The node received a `speechStarted` / `speechEnded` at stream time `time`.
    mutating func received(_ payload: EventPayload, at time: Double) {
        switch payload {
        case .speechStarted:
            speechStart = time
            speechEnd = nil
        case .speechEnded: speechEnd = time
        default: break
        }
    }

    /// How far before a segment's `start` its speech start may lie (the VAD's pre-roll, the recognizer's own
    /// lead-in); a start earlier than that belongs to speech the node did not transcribe (transcription was
    /// started in the middle of it).
    static let startSlack = 0.5

    /// The node emitted `update` at wall time `now`; returns the latency when it is a final.
    mutating func emitted(_ update: TranscriptUpdate, now: Double,
                          wallTime: (Double) -> Double?) -> SpeechLatency? {
        guard update.isFinal else {
            let start = speechStart.flatMap { $0 >= update.start - Self.startSlack && $0 <= update.end ? $0 : nil }
            if firstPartials[update.segment] == nil, let startWall = wallTime(start ?? update.start) {
                firstPartials[update.segment] = now - startWall
            }
            return nil
        }
        // A speech end from before this segment began is stale (an utterance that made no final, speech ended
        // while transcription was off): measure from the final's own end then.
        let end = speechEnd.flatMap { $0 >= update.start ? $0 : nil } ?? update.end
        let firstPartial = firstPartials.removeValue(forKey: update.segment)
        speechStart = nil
        speechEnd = nil
        guard let endWall = wallTime(end) else { return nil }
        return SpeechLatency(segment: update.segment, speechEnd: end, speechEndToFinal: now - endWall,
                             firstPartial: firstPartial)
    }
}
