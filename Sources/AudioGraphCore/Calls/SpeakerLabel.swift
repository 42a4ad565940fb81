/// Puts a speaker's name on the events a node makes (a call participant's branch, a source's `speaker`): every
/// event's `speaker`, and a transcript's too; an event or transcript that already names one keeps it.
///
/// `segmentBase` keeps a participant's segments apart across reconnections: each branch's recognizer numbers its
/// segments from 1, so the second branch of one participant adds `SpeakerLabel.segmentsPerBranch`, the third
/// twice that, and (speaker, segment) stays unique in the captions and the store.
struct SpeakerLabel: Sendable {
    let speaker: String
    let segmentBase: Int

    /// Segment numbers each branch of a participant may use before the next one's.
    static let segmentsPerBranch = 100_000

    init(_ speaker: String, segmentBase: Int = 0) {
        self.speaker = speaker
        self.segmentBase = segmentBase
    }

    func callAsFunction(_ event: Event) -> Event {
        var labelled = event
        if labelled.speaker == nil { labelled.speaker = speaker }
        if case .transcript(var update) = event.payload, update.speaker == nil {
            update.speaker = speaker
            update.segment += segmentBase
            labelled.payload = .transcript(update)
        }
        return labelled
    }

    func callAsFunction(_ frame: Frame) -> Frame {
        guard case .event(let event) = frame else { return frame }
        return .event(self(event))
    }
}
