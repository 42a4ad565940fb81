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

    public init(id: String? = nil, room: String? = nil, autoStartTranscription: Bool = false, captions: Bool = false,
                captionLanguage: String = "en-US") {
        self.id = id
        self.room = room
        self.autoStartTranscription = autoStartTranscription
        self.captions = captions
        self.captionLanguage = captionLanguage
    }

    /// The caption language codes a config may name (DESIGN.md section 2).
    public static let supportedLanguages = [
        "en-US", "de-DE", "en-GB", "es-ES", "fr-FR", "hi-IN", "hu-HU", "it-IT", "ja-JP", "ko-KR",
        "lt-LT", "ms-MY", "nl-NL", "pt-PT", "ru-RU", "sv-SE", "tr-TR", "zh", "zh-TW",
    ]
}
