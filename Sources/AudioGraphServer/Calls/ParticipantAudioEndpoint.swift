import AudioGraphCore
import Foundation
import Synchronization

/// How the participant audio endpoint takes audio (docs/calls.md, "Sending audio over a WebSocket").
public struct ParticipantAudioSettings: Sendable, Equatable {
    /// How much faster than real time a participant may send: reading stops while the stream is more than
    /// `leadSeconds` ahead of `maxRealtimeFactor` × the wall-clock time since its first sample. Default 1 (a
    /// live call); `audiograph serve --max-ingest-rate X` raises it (tests, replaying a recording).
    /// `.infinity`: no pacing.
    public var maxRealtimeFactor: Double
    /// How far ahead of real time a stream may run before reading pauses. Default 2 s.
    public var leadSeconds: Double
    /// Message size, idle timeout, close timeout.
    public var limits: WebSocketLimits

    public static let realtimeFactorRange = 0.1...1000.0

    public init(maxRealtimeFactor: Double = 1, leadSeconds: Double = 2, limits: WebSocketLimits = WebSocketLimits()) {
        self.maxRealtimeFactor = maxRealtimeFactor
        self.leadSeconds = leadSeconds
        self.limits = limits
    }
}

/// `GET /v1/sessions/{id}/participants/{participant}/audio`: a participant's audio over a WebSocket, into the
/// call through a `ParticipantAudioIngest`. Everything is decided before the upgrade, so a refusal is an HTTP
/// answer in the API's JSON error shape:
///
/// 1. the token: `Authorization: Bearer TOKEN`, or the subprotocol `bearer.TOKEN` (401), as for all of `/v1`;
/// 2. the WebSocket handshake (400 `bad_handshake`, 426 for a version other than 13);
/// 3. the query: `sampleRate`, `channels`, `encoding` (400 `bad_parameter` naming it);
/// 4. an ingest at all (501 `not_implemented`: this server runs no calls);
/// 5. the call and the right to send as `participant` (404, the same answer as for no such session);
/// 6. room in the call: the participant is not streaming already, fewer than `maxParticipants` are (409);
/// 7. the ingest opens the stream (its `ParticipantAudioError`).
final class ParticipantAudioEndpoint: Sendable {
    let ingest: (any ParticipantAudioIngest)?
    let settings: ParticipantAudioSettings
    /// Participants streaming now, by session id.
    private let streaming = Mutex<[String: Set<String>]>([:])

    init(ingest: (any ParticipantAudioIngest)?, settings: ParticipantAudioSettings) {
        self.ingest = ingest
        self.settings = settings
    }

    /// Whether `user` may send their own audio into the live call `sessionID` now (the web page's "Join with
    /// microphone").
    func canJoin(sessionID: String, user: String) -> Bool {
        ingest?.access(sessionID: sessionID)?.permits(user: user, toSendAs: user) ?? false
    }

    static let notImplemented = APIError(status: 501, code: "not_implemented",
                                         message: "this server takes no participant audio (it runs no calls)")

    /// The answer to `request` for `sessionID`'s `participant`; `user` gives a token's user (or throws 401).
    func answer(_ request: HTTPRequest, sessionID: String, participant: String,
                user: (String) throws(APIError) -> String) throws(APIError) -> HTTPResponse {
        guard let authorization = ParticipantAudioRequest.token(of: request, protocols: WebSocketHandshake.protocols(of: request)) else {
            throw .missingToken
        }
        let sender = try user(authorization)
        let handshake = try WebSocketHandshake(request: request)
        let asked = try ParticipantAudioRequest(sessionID: sessionID, participant: participant, request: request)
        guard let ingest else { throw Self.notImplemented }
        guard let access = ingest.access(sessionID: sessionID), access.permits(user: sender, toSendAs: participant) else {
            throw .notFound("no live session with this id")
        }
        try reserve(participant, in: sessionID, limit: access.maxParticipants)
        let stream: any ParticipantAudioStream
        do {
            stream = try ingest.openStream(sessionID: sessionID, participant: participant, format: asked.format)
        } catch {
            release(participant, in: sessionID)
            throw APIError(status: error.status, code: error.code, message: error.description)
        }
        let socket = ParticipantAudioSocket(stream: stream, request: asked, settings: settings) { [weak self] in
            self?.release(participant, in: sessionID)
        }
        let subprotocol = handshake.protocols.contains(ParticipantAudioRequest.subprotocol) ? ParticipantAudioRequest.subprotocol : nil
        return HTTPResponse(status: 101, headers: handshake.answerHeaders(subprotocol: subprotocol),
                            body: .webSocket(WebSocketUpgrade(delegate: socket, limits: settings.limits)))
    }

    /// Participants streaming into `sessionID` now.
    func streamingCount(in sessionID: String) -> Int { streaming.withLock { $0[sessionID]?.count ?? 0 } }

    private func reserve(_ participant: String, in sessionID: String, limit: Int) throws(APIError) {
        let refusal = streaming.withLock { streaming -> APIError? in
            let current = streaming[sessionID, default: []]
            if current.contains(participant) {
                return APIError(status: 409, code: "already_streaming",
                                message: "\(participant) is sending audio to this session already")
            }
            if current.count >= limit {
                let error = ParticipantAudioError.tooManyParticipants(limit: limit)
                return APIError(status: error.status, code: error.code, message: error.description)
            }
            streaming[sessionID, default: []].insert(participant)
            return nil
        }
        if let refusal { throw refusal }
    }

    private func release(_ participant: String, in sessionID: String) {
        streaming.withLock { streaming in
            streaming[sessionID]?.remove(participant)
            if streaming[sessionID]?.isEmpty == true { streaming[sessionID] = nil }
        }
    }
}

/// One participant's WebSocket: binary messages become Float32 samples written to the stream, `{"muted":…}`
/// texts mute and unmute it, reading is paced to `maxRealtimeFactor`, and the stream is closed when the
/// connection ends, however it ends.
///
/// `@unchecked Sendable`: made on libmicrohttpd's thread and handed once to the connection's thread, which alone
/// calls it from then on (or, when the upgrade never happens, libmicrohttpd's thread calls `ended` alone).
final class ParticipantAudioSocket: WebSocketDelegate, @unchecked Sendable {
    private let stream: any ParticipantAudioStream
    private let encoding: ParticipantAudioEncoding
    private let frameBytes: Int
    private var pacer: ParticipantAudioPacer
    private var muted = false
    private let onEnd: @Sendable () -> Void
    private let clock: @Sendable () -> Double

    init(stream: any ParticipantAudioStream, request: ParticipantAudioRequest, settings: ParticipantAudioSettings,
         clock: @escaping @Sendable () -> Double = WebSocketConnection.monotonic, onEnd: @escaping @Sendable () -> Void) {
        self.stream = stream
        encoding = request.encoding
        frameBytes = request.encoding.bytesPerSample * request.format.channels
        pacer = ParticipantAudioPacer(sampleRate: Double(request.format.sampleRate), factor: settings.maxRealtimeFactor,
                                      leadSeconds: settings.leadSeconds)
        self.clock = clock
        self.onEnd = onEnd
    }

    func received(binary bytes: UnsafeRawBufferPointer, on connection: WebSocketConnection) {
        guard bytes.count % frameBytes == 0 else {
            connection.close(code: WebSocketCloseCode.invalidPayload,
                             reason: "\(bytes.count) bytes is not whole \(encoding.rawValue) frames of \(frameBytes) bytes")
            return
        }
        guard let samples = encoding.decode(bytes) else {
            connection.close(code: WebSocketCloseCode.invalidPayload, reason: "a sample is not a finite float")
            return
        }
        pacer.add(frames: bytes.count / frameBytes, now: clock())
        guard !muted, !samples.isEmpty else { return }
        if !stream.write(samples) {
            connection.close(code: WebSocketCloseCode.goingAway, reason: "the call takes no more audio")
        }
    }

    func received(text: String, on connection: WebSocketConnection) {
        guard let muted = Self.muted(text) else {
            connection.close(code: WebSocketCloseCode.unsupportedData, reason: "the only text message is {\"muted\":true|false}")
            return
        }
        self.muted = muted
        stream.setMuted(muted)
    }

    func readingPause(now: Double) -> Double { pacer.pause(now: now) }

    func ended() {
        stream.close()
        onEnd()
    }

    /// The value of a `{"muted":true|false}` message, nil for any other text.
    static func muted(_ text: String) -> Bool? {
        guard let object = (try? JSONParser.parse(text))?.objectValue, object.keys == ["muted"] else { return nil }
        return object["muted"]?.boolValue
    }
}

/// Pacing of one stream: how long to stop reading so that the audio received stays within `leadSeconds` of
/// `factor` × the wall-clock time since its first sample. A value: `now` is given.
struct ParticipantAudioPacer: Sendable, Equatable {
    let sampleRate: Double
    let factor: Double
    let leadSeconds: Double
    private(set) var start: Double?
    private(set) var frames = 0

    init(sampleRate: Double, factor: Double, leadSeconds: Double) {
        self.sampleRate = sampleRate
        self.factor = factor
        self.leadSeconds = leadSeconds
    }

    mutating func add(frames count: Int, now: Double) {
        if start == nil { start = now }
        frames += count
    }

    /// Seconds to wait before reading more; 0 to read now.
    func pause(now: Double) -> Double {
        guard let start, factor.isFinite, factor > 0 else { return 0 }
        let ahead = Double(frames) / sampleRate - ((now - start) * factor + leadSeconds)
        return ahead > 0 ? ahead / factor : 0
    }
}
