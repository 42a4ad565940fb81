/// Calls (issue 35): each participant sends their audio over a network connection of their own (the server's
/// `GET /v1/sessions/{id}/participants/{participant}/audio` WebSocket, docs/calls.md). The transport ends at
/// these two protocols; the runtime implements them (a per-participant branch of the running graph).
///
/// ```
///  WebSocket ──► server: handshake, token, access, format ──► ParticipantAudioIngest.openStream
///  binary messages ──► Float32 samples ──► ParticipantAudioStream.write   (blocks: backpressure)
///  {"muted":…}     ──────────────────────► ParticipantAudioStream.setMuted
///  close / gone / idle / shutdown ───────► ParticipantAudioStream.close   (exactly once)
/// ```

/// Where a participant's network audio goes: the live calls of this process, by session id.
public protocol ParticipantAudioIngest: Sendable {
    /// Who may send audio to the live call `sessionID` names, and how many may send at once; nil when no call
    /// with that id takes audio now (the server answers 404, as for a session that does not exist).
    func access(sessionID: String) -> ParticipantAudioAccess?

    /// Opens `participant`'s stream in session `sessionID`, its samples in `format`. A participant who
    /// reconnects under the same name continues as the same speaker. Called before the WebSocket upgrade, so
    /// what it throws is the HTTP answer (`ParticipantAudioError.status`).
    func openStream(sessionID: String, participant: String,
                    format: AudioFormat) throws(ParticipantAudioError) -> any ParticipantAudioStream
}

/// One participant's audio on its way into a call. The server calls it from the connection's own thread, one
/// call at a time.
public protocol ParticipantAudioStream: AnyObject, Sendable {
    /// Interleaved Float32 samples in the stream's format (whole frames). Blocks the caller while the consumer
    /// is full (backpressure: the server stops reading the socket, so TCP slows the sender). Returns false when
    /// the consumer has gone (the server then closes the socket with 1001 Going Away).
    func write(_ samples: [Float]) -> Bool
    /// The participant muted (true) or unmuted (false) themselves. While muted the server writes nothing.
    func setMuted(_ muted: Bool)
    /// The stream ended: the socket closed (cleanly or not), the client went idle, or the server stops. The
    /// consumer finalizes the participant's last sentence. Called exactly once, and nothing after it.
    func close()
}

/// Who may send audio into one call: from the session's settings (`participants`, `relays`,
/// `maxParticipants` of the config's `session` block).
public struct ParticipantAudioAccess: Sendable, Equatable {
    /// Users who may send their own audio (participant name = their user name).
    public var participants: [String]
    /// Users who may send audio for any participant (a gateway bridging a conference, a recorder).
    public var relays: [String]
    /// Participants streaming at once; one more is refused before the upgrade.
    public var maxParticipants: Int

    public init(participants: [String], relays: [String] = [], maxParticipants: Int = SessionSettings.defaultMaxParticipants) {
        self.participants = participants
        self.relays = relays
        self.maxParticipants = maxParticipants
    }

    /// A session's access, as its settings say (`effectiveParticipants`: the user running it when none are named).
    public init(settings: SessionSettings) {
        self.init(participants: settings.effectiveParticipants, relays: settings.relays, maxParticipants: settings.maxParticipants)
    }

    /// Whether `user` may send `participant`'s audio: as themselves when they are a participant, or as anyone
    /// when they are a relay.
    public func permits(user: String, toSendAs participant: String) -> Bool {
        if relays.contains(user) { return true }
        return user == participant && participants.contains(user)
    }
}

/// Why a participant's stream cannot open; each maps to the HTTP answer the server gives before the upgrade.
public enum ParticipantAudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No live call with this id (404, as for a session that does not exist).
    case noSuchSession
    /// The call has as many participants streaming as it takes (409).
    case tooManyParticipants(limit: Int)
    /// The call exists but takes no audio now, e.g. it is ending (409); the text says why.
    case notAccepting(String)
    /// The call cannot take audio in this format (400); the text says which and why.
    case unsupportedFormat(String)

    /// The HTTP status the server answers with.
    public var status: Int {
        switch self {
        case .noSuchSession: 404
        case .tooManyParticipants, .notAccepting: 409
        case .unsupportedFormat: 400
        }
    }

    /// The API's error code (docs/http-api.md).
    public var code: String {
        switch self {
        case .noSuchSession: "not_found"
        case .tooManyParticipants: "too_many_participants"
        case .notAccepting: "not_accepting_audio"
        case .unsupportedFormat: "bad_parameter"
        }
    }

    public var description: String {
        switch self {
        case .noSuchSession: "no live session with this id"
        case .tooManyParticipants(let limit): "the session takes at most \(limit) participants streaming at once"
        case .notAccepting(let why): "the session takes no audio now: \(why)"
        case .unsupportedFormat(let why): why
        }
    }
}
