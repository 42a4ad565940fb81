
/// A final result as the caption files record it.
public struct CaptionUtterance: Sendable, Equatable {
    public var segment: Int
    public var start: Double
    public var end: Double
    public var text: String
    public var confidence: Double?
    /// The result's own language, else the session's.
    public var language: String
    public var words: [TranscriptUpdate.Word]
    /// Who said it (a call's participant); nil in a single-speaker pipeline.
    public var speaker: String?

    public init(segment: Int, start: Double, end: Double, text: String, confidence: Double? = nil,
                language: String, words: [TranscriptUpdate.Word] = [], speaker: String? = nil) {
        self.speaker = speaker
        self.segment = segment
        self.start = start
        self.end = end
        self.text = text
        self.confidence = confidence
        self.language = language
        self.words = words
    }

    /// A final result; `language` is used when the result names none.
    public init(_ update: TranscriptUpdate, language: String) {
        let text = update.text.isEmpty ? CaptionUnits.joined(update.words.map(\.word)) : update.text
        self.init(segment: update.segment, start: update.start, end: update.end, text: text,
                  confidence: update.confidence, language: update.language ?? language, words: update.words,
                  speaker: update.speaker)
    }
}

/// A caption file format, as a pure writer of text: what the file starts with, what stays at its very end,
/// and the text each utterance adds in front of that end. A file holding the header, any number of additions
/// and the trailer is complete and valid, so a sink that writes each addition as it comes (rewriting only the
/// trailer) leaves a valid file between any two writes, whenever the process stops.
public protocol CaptionDocumentWriter {
    /// Written when the file is created.
    var header: String { get }
    /// Kept at the end of the file; each addition is written over it, followed by it again. Empty for SRT and
    /// WebVTT; `\n]}\n` for the JSON transcript.
    var trailer: String { get }
    /// The text one final result adds, as separate chunks (one per cue), each written and flushed alone.
    mutating func chunks(for utterance: CaptionUtterance, cues: [CaptionCue]) -> [String]
}

/// SubRip (`.srt`): numbered cues, `00:00:01,200 --> 00:00:03,400`, text lines, a blank line.
public struct SRTWriter: CaptionDocumentWriter {
    /// The number the next cue gets (SRT counts from 1).
    public private(set) var nextIndex = 1

    public init() {}

    public var header: String { "" }
    public var trailer: String { "" }

    /// A speaker's cues start with `Alice: ` (SRT has no speaker markup); one cue never holds two speakers.
    public mutating func chunks(for utterance: CaptionUtterance, cues: [CaptionCue]) -> [String] {
        cues.map { render(Self.labelled($0, utterance.speaker)) }
    }

    /// `cue` with `Alice: ` before its first line.
    static func labelled(_ cue: CaptionCue, _ speaker: String?) -> CaptionCue {
        guard let speaker, !cue.lines.isEmpty else { return cue }
        var labelled = cue
        labelled.lines[0] = SpeakerSegment.prefix(speaker) + cue.lines[0]
        return labelled
    }

    /// One cue block, numbered, ending with a blank line.
    public mutating func render(_ cue: CaptionCue) -> String {
        defer { nextIndex += 1 }
        // A blank line ends a block in SRT, so a cue's lines never hold one (lines are words joined by spaces).
        return "\(nextIndex)\n\(CaptionTime.format(cue.start, style: .srt)) --> \(CaptionTime.format(cue.end, style: .srt))\n"
            + cue.lines.joined(separator: "\n") + "\n\n"
    }
}

/// WebVTT (`.vtt`): a `WEBVTT` header, then `00:00:01.200 --> 00:00:03.400` and the lines of each cue.
/// `&`, `<` and `>` in the text are escaped as the format requires.
public struct WebVTTWriter: CaptionDocumentWriter {
    public init() {}

    public var header: String { "WEBVTT\n\n" }
    public var trailer: String { "" }

    /// A speaker's cues are voice spans (`<v Alice>…</v>`); one cue never holds two speakers.
    public mutating func chunks(for utterance: CaptionUtterance, cues: [CaptionCue]) -> [String] {
        cues.map { render($0, speaker: utterance.speaker) }
    }

    public func render(_ cue: CaptionCue, speaker: String? = nil) -> String {
        var text = cue.lines.map(Self.escape).joined(separator: "\n")
        // A voice's annotation ends at ">"; escaped, a name holds none, nor a line break.
        if let speaker { text = "<v \(Self.escape(speaker).replacingOccurrences(of: "\n", with: " "))>" + text + "</v>" }
        return "\(CaptionTime.format(cue.start, style: .webVTT)) --> \(CaptionTime.format(cue.end, style: .webVTT))\n"
            + text + "\n\n"
    }

    public static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// The transcript as one JSON document, one utterance per line:
///
/// ```json
/// {"session":"standup","language":"en-US","utterances":[
/// {"segment":1,"start":0.52,"end":2.9,"text":"go forward","confidence":0.81,"language":"en-US","words":[{"word":"go","start":0.52,"end":0.7}]}
/// ]}
/// ```
///
/// Times are stream seconds rounded to milliseconds; `confidence` is null when the recognizer gave none;
/// `words` lists the recognizer's words with their times (empty when it gave none).
public struct TranscriptJSONWriter: CaptionDocumentWriter {
    public let session: String?
    public let language: String
    private var count = 0

    public init(session: String?, language: String) {
        self.session = session
        self.language = language
    }

    public var header: String {
        let object = JSONObject([("session", session.map(JSONValue.string) ?? .null), ("language", .string(language))])
        var text = JSONWriter.compact(.object(object))
        text.removeLast()  // the closing brace: utterances follow
        return text + ",\"utterances\":["
    }

    public var trailer: String { "\n]}\n" }

    public mutating func chunks(for utterance: CaptionUtterance, cues: [CaptionCue]) -> [String] {
        defer { count += 1 }
        return [(count == 0 ? "\n" : ",\n") + JSONWriter.compact(Self.json(utterance))]
    }

    public static func json(_ utterance: CaptionUtterance) -> JSONValue {
        func time(_ seconds: Double) -> JSONValue { .number(Double(CaptionTime.milliseconds(seconds)) / 1000) }
        func confidence(_ value: Double?) -> JSONValue {
            guard let value, value.isFinite else { return .null }
            return .number((value * 1000).rounded() / 1000)
        }
        let words: [JSONValue] = utterance.words.map { word in
            var object = JSONObject([("word", .string(word.word)), ("start", time(word.start)), ("end", time(word.end))])
            if word.confidence != nil { object["confidence"] = confidence(word.confidence) }
            return .object(object)
        }
        return .object(JSONObject([
            ("segment", .number(Double(utterance.segment))),
            ("start", time(utterance.start)),
            ("end", time(utterance.end)),
            ("text", .string(utterance.text)),
            ("confidence", confidence(utterance.confidence)),
            ("language", .string(utterance.language)),
            ("words", .array(words)),
        ] + (utterance.speaker.map { [("speaker", JSONValue.string($0))] } ?? [])))
    }
}
