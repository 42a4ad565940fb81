/// An event in band with the audio. `time` is stream time in seconds (the audio's own clock); `node` is the id
/// of the node that emitted it (filled in by the runtime).
public struct Event: Sendable, Equatable {
    public var node: String
    public var time: Double
    public var payload: EventPayload
    /// Whose audio the event was made from: a call participant's, or a source's with `speaker` (nil otherwise).
    /// The runtime sets it; a transcript also carries it in `TranscriptUpdate.speaker`.
    public var speaker: String?

    public init(node: String = "", time: Double, payload: EventPayload, speaker: String? = nil) {
        self.node = node
        self.time = time
        self.payload = payload
        self.speaker = speaker
    }

    /// The event as the `--events jsonl` contract spells it (DESIGN.md section 5).
    public var json: JSONObject {
        var object = JSONObject()
        object["type"] = .string(payload.typeName)
        object["node"] = .string(node)
        if case .transcript = payload {} else { object["time"] = .number(Self.rounded(time)) }
        for entry in payload.fields.entries { object[entry.key] = entry.value }
        if let speaker, object["speaker"] == nil { object["speaker"] = .string(speaker) }
        return object
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}

/// What an event says.
public enum EventPayload: Sendable, Equatable {
    case level(LevelReading)
    case speechStarted
    case speechEnded
    case transcript(TranscriptUpdate)
    /// Any other event: `type` is its name in JSON, `fields` its other keys. Plugins use this.
    case custom(type: String, kind: FrameKind, fields: JSONObject)

    public var kind: FrameKind {
        switch self {
        case .level: return .level
        case .speechStarted, .speechEnded: return .speech
        case .transcript: return .transcript
        case .custom(_, let kind, _): return kind
        }
    }

    public var typeName: String {
        switch self {
        case .level: return "level"
        case .speechStarted: return "speechStarted"
        case .speechEnded: return "speechEnded"
        case .transcript: return "transcript"
        case .custom(let type, _, _): return type
        }
    }

    var fields: JSONObject {
        switch self {
        case .level(let reading): return reading.json
        case .speechStarted, .speechEnded: return JSONObject()
        case .transcript(let update): return update.json
        case .custom(_, _, let fields): return fields
        }
    }
}

/// One level-meter reading over a window of audio.
public struct LevelReading: Sendable, Equatable {
    /// Loudness for meters, 0…1: RMS dBFS of the loudest channel mapped linearly from `LevelReading.floorDb` (0)
    /// to 0 dBFS (1).
    public var level: Double
    /// RMS per channel in dBFS (a full-scale sine reads -3.01).
    public var rmsDb: [Double]
    /// Peak absolute sample per channel in dBFS.
    public var peakDb: [Double]

    /// The quietest level a meter shows: readings at or below it map to 0.
    public static let floorDb = -60.0

    public init(level: Double, rmsDb: [Double], peakDb: [Double]) {
        self.level = level
        self.rmsDb = rmsDb
        self.peakDb = peakDb
    }

    /// The normalized meter level for an RMS in dBFS.
    public static func normalizedLevel(rmsDb: Double) -> Double {
        min(max((rmsDb - floorDb) / -floorDb, 0), 1)
    }

    var json: JSONObject {
        func db(_ values: [Double]) -> JSONValue {
            .array(values.map { $0.isFinite ? .number(($0 * 10).rounded() / 10) : .number(-200) })
        }
        return JSONObject([("level", .number((level * 1000).rounded() / 1000)), ("rmsDb", db(rmsDb)),
                           ("peakDb", db(peakDb))])
    }
}

/// A recognizer result: partial (may still change) or final (never changes again). A caption sink replaces
/// the text of a segment on each revision instead of appending.
public struct TranscriptUpdate: Sendable, Equatable {
    public struct Word: Sendable, Equatable {
        public var word: String
        public var start: Double
        public var end: Double
        public var confidence: Double?

        public init(word: String, start: Double, end: Double, confidence: Double? = nil) {
            self.word = word
            self.start = start
            self.end = end
            self.confidence = confidence
        }
    }

    public var segment: Int
    public var revision: Int
    public var isFinal: Bool
    public var start: Double
    public var end: Double
    public var text: String
    public var confidence: Double?
    public var words: [Word]
    public var language: String?
    /// Who said it: the participant whose branch made it (a call), nil for a single-speaker pipeline.
    public var speaker: String?

    public init(segment: Int, revision: Int, isFinal: Bool, start: Double, end: Double, text: String,
                confidence: Double? = nil, words: [Word] = [], language: String? = nil, speaker: String? = nil) {
        self.speaker = speaker
        self.segment = segment
        self.revision = revision
        self.isFinal = isFinal
        self.start = start
        self.end = end
        self.text = text
        self.confidence = confidence
        self.words = words
        self.language = language
    }

    /// The fields of a `transcript` event (`final`, `segment`, `revision`, `start`, `end`, `text`, and
    /// `confidence`, `words`, `language`, `speaker` when known), as `--events jsonl` prints them.
    public var json: JSONObject {
        var object = JSONObject()
        object["final"] = .bool(isFinal)
        object["segment"] = .number(Double(segment))
        object["revision"] = .number(Double(revision))
        object["start"] = .number(Event.rounded(start))
        object["end"] = .number(Event.rounded(end))
        object["text"] = .string(text)
        if let confidence { object["confidence"] = .number((confidence * 1000).rounded() / 1000) }
        if !words.isEmpty {
            object["words"] = .array(words.map { word in
                var w = JSONObject()
                w["word"] = .string(word.word)
                w["start"] = .number(Event.rounded(word.start))
                w["end"] = .number(Event.rounded(word.end))
                if let c = word.confidence { w["confidence"] = .number((c * 1000).rounded() / 1000) }
                return .object(w)
            })
        }
        if let language { object["language"] = .string(language) }
        if let speaker { object["speaker"] = .string(speaker) }
        return object
    }
}
