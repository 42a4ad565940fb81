/// A transcript's segment as one speaker's: in a call every participant's recognizer numbers its segments from 1,
/// so "segment 3" names an utterance only together with who said it.
public struct SpeakerSegment: Hashable, Sendable {
    public var speaker: String?
    public var segment: Int

    public init(_ update: TranscriptUpdate) {
        speaker = update.speaker
        segment = update.segment
    }

    /// `Alice: ` before a speaker's caption text (SRT, plain text, the terminal); empty without a speaker.
    public static func prefix(_ speaker: String?) -> String {
        speaker.map { "\($0): " } ?? ""
    }
}
