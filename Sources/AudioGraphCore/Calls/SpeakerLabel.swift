/// Puts a speaker's name on the events a node makes (a call participant's branch, a source's `speaker`): every
/// event's `speaker`, and a transcript's too; an event or transcript that already names one keeps it.
struct SpeakerLabel: Sendable {
    let speaker: String

    init(_ speaker: String) { self.speaker = speaker }

    func callAsFunction(_ event: Event) -> Event {
        var labelled = event
        if labelled.speaker == nil { labelled.speaker = speaker }
        if case .transcript(var update) = event.payload, update.speaker == nil {
            update.speaker = speaker
            labelled.payload = .transcript(update)
        }
        return labelled
    }

    func callAsFunction(_ frame: Frame) -> Frame {
        guard case .event(let event) = frame else { return frame }
        return .event(self(event))
    }
}
