
/// What a live-caption viewer (the HTTP API's caption stream, a UI) is told: a recognizer's result to show, or
/// "clear the screen". A `TranscriptionSession` sends these only while captions are visible (transcription
/// running and captions on), and `clear` when they stop being visible.
public enum LiveCaption: Sendable, Equatable {
    /// A partial (replaces its segment's text) or a final (fixes it).
    case update(TranscriptUpdate)
    /// Transcription stopped or captions were hidden: show nothing.
    case clear
}
