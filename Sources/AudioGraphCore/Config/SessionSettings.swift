import Foundation

/// The config's `session` block. Defaults follow the mobile captioning SDKs users know.
public struct SessionSettings: Sendable, Equatable {
    public var id: String?
    public var room: String?
    /// Start transcribing as soon as audio flows. Default false.
    public var autoStartTranscription: Bool
    /// Show captions (while transcription runs). Default false.
    public var captions: Bool
    /// Language of captions and recognition. Default en-US.
    public var captionLanguage: String
    /// The users who take part: who may read the session's transcripts and watch its live captions over the
    /// HTTP API. Empty (the default) means the user who runs the pipeline (`SessionSettings.currentUser`).
    public var participants: [String]
    /// Hide the "Start Transcription" / "Stop Transcription" control (the web page's button, the HTTP API's
    /// `POST /v1/sessions/{id}/transcription`, the terminal's `t` key). Default true, as in the calls SDK.
    public var hideTranscriptionButton: Bool
    /// Hide the "Show Captions" / "Hide Captions" control and the caption-language picker (the web page's
    /// button and picker, `POST /v1/sessions/{id}/captions` and `…/language`, the terminal's `c` key). Default
    /// true, as in the calls SDK.
    public var hideClosedCaptionButton: Bool
    /// Users who may send audio for any participant of the call over the HTTP API's participant audio endpoint
    /// (a gateway bridging a conference, a recorder); a participant may send only their own. Default none.
    public var relays: [String]
    /// Participants who may stream audio into the call at once (docs/calls.md); one more is refused with 409.
    /// Default 16.
    public var maxParticipants: Int
    /// The batch work item this run is, when a queue worker runs it (`audiograph batch --store` / `worker`); nil
    /// otherwise. Not a config key: only the worker sets it. The transcript store tags the session rows the run
    /// writes with it, so a retry of the item removes what the item's earlier attempts wrote and nothing else.
    public var workItem: String?

    public init(id: String? = nil, room: String? = nil, autoStartTranscription: Bool = false, captions: Bool = false,
                captionLanguage: String = "en-US", participants: [String] = [],
                hideTranscriptionButton: Bool = true, hideClosedCaptionButton: Bool = true, relays: [String] = [],
                maxParticipants: Int = SessionSettings.defaultMaxParticipants) {
        self.participants = participants
        self.relays = relays
        self.maxParticipants = maxParticipants
        self.hideTranscriptionButton = hideTranscriptionButton
        self.hideClosedCaptionButton = hideClosedCaptionButton
        self.id = id
        self.room = room
        self.autoStartTranscription = autoStartTranscription
        self.captions = captions
        self.captionLanguage = captionLanguage
    }

    public static let defaultMaxParticipants = 16
    /// What `maxParticipants` may be.
    public static let maxParticipantsRange = 1...1000

    /// `participants`, or the user who runs the pipeline when there are none.
    public var effectiveParticipants: [String] { participants.isEmpty ? [Self.currentUser] : participants }

    /// The user running this process: `$USER`, else the login name of the effective user id.
    public static var currentUser: String {
        if let user = ProcessInfo.processInfo.environment["USER"], !user.isEmpty { return user }
        return ProcessInfo.processInfo.userName
    }

    /// The caption language codes a config may name (DESIGN.md section 2).
    public static let supportedLanguages = [
        "en-US", "de-DE", "en-GB", "es-ES", "fr-FR", "hi-IN", "hu-HU", "it-IT", "ja-JP", "ko-KR",
        "lt-LT", "ms-MY", "nl-NL", "pt-PT", "ru-RU", "sv-SE", "tr-TR", "zh", "zh-TW",
    ]
}
