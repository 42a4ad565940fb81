import AudioGraphCore

import AudioGraphStore

/// A stored transcript as a subtitle or transcript file, written by the caption sink's own writers
/// (`SRTWriter`, `WebVTTWriter`, `TranscriptJSONWriter`) with its default cue rules, so a download is the file a
/// `caption-sink` of that format would have written for the same finals.
public enum TranscriptDownload: String, CaseIterable, Sendable {
    case srt, vtt, json

    /// The file name extension that asks for it (`/v1/transcripts/{tid}.srt`).
    public var fileExtension: String { rawValue }

    public var contentType: String {
        switch self {
        case .srt: return "application/x-subrip; charset=utf-8"
        case .vtt: return "text/vtt; charset=utf-8"
        case .json: return "application/json; charset=utf-8"
        }
    }

    /// The whole file for `detail`; `session` is the JSON document's `session`.
    public func render(_ detail: TranscriptDetail, session: String?) -> String {
        var writer: any CaptionDocumentWriter
        switch self {
        case .srt: writer = SRTWriter()
        case .vtt: writer = WebVTTWriter()
        case .json: writer = TranscriptJSONWriter(session: session, language: detail.language)
        }
        var builder = CueBuilder()
        var text = writer.header
        for stored in detail.utterances {
            let update = TranscriptUpdate(segment: stored.segment, revision: 1, isFinal: true, start: stored.start, end: stored.end,
                                          text: stored.text, confidence: stored.confidence,
                                          words: stored.words.map { .init(word: $0.word, start: $0.start, end: $0.end) },
                                          language: stored.language.isEmpty ? nil : stored.language)
            let utterance = CaptionUtterance(update, language: detail.language)
            // As the sink: an utterance with no text and no words makes no cue.
            guard !utterance.text.allSatisfy(\.isWhitespace) || !utterance.words.isEmpty else { continue }
            text += writer.chunks(for: utterance, cues: builder.cues(for: update)).joined()
        }
        return text + writer.trailer
    }
}
