/// What flows along a link, in stream-time order.
public enum Frame: Sendable {
    /// Audio samples.
    case audio(AudioBuffer)
    /// An event in band with the audio (level, speech start/end, transcript, …).
    case event(Event)
    /// A control command, in its place in the stream like every other frame.
    case control(ControlCommand)
    /// The stream has ended: the receiver flushes (`finish`) and passes it on.
    case endOfStream

    public var kind: FrameKind? {
        switch self {
        case .audio: return .audio
        case .event(let event): return event.payload.kind
        case .control, .endOfStream: return nil
        }
    }
}

/// Commands that steer a running graph (the session layer sends these). A source puts one into the stream ahead
/// of its next block, and it keeps that place through every queue: it applies to the audio after it.
public enum ControlCommand: Sendable, Equatable {
    case startTranscription
    case stopTranscription
    case showCaptions
    case hideCaptions
    case setLanguage(String)
    /// Flush what is buffered now (end the current utterance, write pending cues).
    case flush
    /// A command for custom nodes.
    case custom(name: String, arguments: JSONObject)
}
