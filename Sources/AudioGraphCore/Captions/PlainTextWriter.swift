import Foundation

/// Plain text (`.txt`): each final utterance's text on a line of its own, without times: the transcript to read
/// or grep (`audiograph transcribe -o txt`); a call's lines start with the speaker (`Alice: `).
public struct PlainTextWriter: CaptionDocumentWriter {
    public init() {}

    public var header: String { "" }
    public var trailer: String { "" }

    /// One line per utterance, whatever its cues; line breaks inside the text become spaces.
    public mutating func chunks(for utterance: CaptionUtterance, cues: [CaptionCue]) -> [String] {
        let words = utterance.text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return [SpeakerSegment.prefix(utterance.speaker) + words.trimmingCharacters(in: .whitespaces) + "\n"]
    }
}
