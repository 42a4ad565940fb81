/// A live transcription session as a server or a UI sees it: what it shows, its state, the calls that steer it,
/// and its captions, state changes and levels as they happen. `TranscriptionSession` (AudioGraphSessions) is the
/// one the framework runs; the HTTP server knows sessions only through this protocol, so it links none of the
/// audio, device or recognizer libraries.
public protocol SteerableSession: AnyObject, Sendable {
    /// What the session's settings show (`session.hideTranscriptionButton`, `session.hideClosedCaptionButton`).
    var controls: SessionControls { get }
    /// Transcribing, captions on, caption language: now.
    var currentState: TranscriptionSessionState { get }
    /// The caption language codes its recognizers can all do.
    var supportedCaptionLanguages: [String] { get }
    /// Its graph's per-node counters now (for `GET /metrics`).
    func statistics() -> GraphStatistics

    func startTranscription() async throws(TranscriptionSessionError)
    func stopTranscription() async throws(TranscriptionSessionError)
    func showCaptions() async throws(TranscriptionSessionError)
    func hideCaptions() async throws(TranscriptionSessionError)
    /// Switches the caption language from the next utterance on.
    func setCaptionLanguage(_ code: String) async throws(TranscriptionSessionError)

    /// Calls `observer` with every caption while captions are visible, and `.clear` when they stop being.
    func observeCaptions(_ observer: @escaping @Sendable (LiveCaption) -> Void)
    /// Calls `observer` with the new state after every successful steering call.
    func observeState(_ observer: @escaping @Sendable (TranscriptionSessionState) -> Void)
    /// Calls `observer` with every level-meter reading (stream time, reading).
    func observeLevels(_ observer: @escaping @Sendable (_ time: Double, _ reading: LevelReading) -> Void)
    /// Calls `observer` with every level-meter reading and whose audio it measures (a call participant, a
    /// source's `speaker`; nil for neither). Default: `observeLevels`'s readings, without a speaker.
    func observeSpeakerLevels(_ observer: @escaping @Sendable (_ time: Double, _ reading: LevelReading, _ speaker: String?) -> Void)
    /// Calls `observer` with who is in the call (connected or not, muted or not) on every change: a participant
    /// joining, leaving, muting. Default: never (a session that is not a call).
    func observeParticipants(_ observer: @escaping @Sendable ([ParticipantPresence]) -> Void)
}

extension SteerableSession {
    public func observeSpeakerLevels(_ observer: @escaping @Sendable (_ time: Double, _ reading: LevelReading, _ speaker: String?) -> Void) {
        observeLevels { time, reading in observer(time, reading, nil) }
    }

    public func observeParticipants(_ observer: @escaping @Sendable ([ParticipantPresence]) -> Void) {}
}

/// One participant of a call as viewers see them: whether they are connected now and whether they muted.
public struct ParticipantPresence: Sendable, Equatable {
    public var name: String
    public var connected: Bool
    public var muted: Bool

    public init(name: String, connected: Bool, muted: Bool) {
        self.name = name
        self.connected = connected
        self.muted = muted
    }
}
