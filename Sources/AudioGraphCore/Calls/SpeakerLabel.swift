/// Puts a speaker's name on the transcripts a node makes (a call participant's branch, a source's `speaker`);
/// a transcript that already names one keeps it.
struct SpeakerLabel: Sendable {
    let speaker: String

    init(_ speaker: String) { self.speaker = speaker }

    func callAsFunction(_ event: Event) -> Event {
        guard case .transcript(var update) = event.payload, update.speaker == nil else { return event }
        update.speaker = speaker
        var labelled = event
        labelled.payload = .transcript(update)
        return labelled
    }

    func callAsFunction(_ frame: Frame) -> Frame {
        guard case .event(let event) = frame else { return frame }
        return .event(self(event))
    }
}
