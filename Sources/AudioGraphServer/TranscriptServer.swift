import AudioGraphCore
import AudioGraphStore
import Synchronization

/// `audiograph serve` as a library: the HTTP API over a store, on libmicrohttpd, with the live sessions of
/// this process.
///
/// ```swift
/// let store = try SQLiteTranscriptStore(path: "out/transcripts.sqlite")
/// let server = try TranscriptServer(store: store, listen: ListenAddress("127.0.0.1:8080")!)
/// let live = server.attach(session, id: "standup", room: "standup", participants: ["alice"])
/// …
/// server.shutdown()
/// ```
public final class TranscriptServer: Sendable {
    public typealias Store = any TranscriptStore & AccessTokenStore

    public let live: LiveSessions
    /// What `GET /metrics` answers: `audiograph_live_sessions`, and every attached session's per-node series.
    public let metrics: MetricsEndpoint
    private let daemon: HTTPDaemon

    /// Starts serving `store` at `listen` with `threads` worker threads. `publicURL` is what served
    /// `transcriptUrl`s start with (default `http://HOST:PORT` of the listening socket). `limits`: what one
    /// client may hold (connections per address, the time to send a request, the idle timeout).
    /// `participantAudio`: where participants' audio sent to `GET /v1/sessions/{id}/participants/{p}/audio`
    /// goes (the live calls; docs/calls.md); without one that endpoint answers 501. `participantAudioSettings`:
    /// its pacing (`maxRealtimeFactor`) and limits.
    public init(store: Store, listen: ListenAddress, threads: Int = 4, publicURL: String? = nil,
                limits: HTTPClientLimits = HTTPClientLimits(), participantAudio: (any ParticipantAudioIngest)? = nil,
                participantAudioSettings: ParticipantAudioSettings = ParticipantAudioSettings()) throws(HTTPServerError) {
        let live = LiveSessions()
        let metrics = MetricsEndpoint()
        metrics.set("live sessions") { exposition in
            exposition.add(gauge: "audiograph_live_sessions", help: "Sessions this server runs now.", value: Double(live.count))
        }
        let holder = APIHolder()
        daemon = try HTTPDaemon(address: listen, threads: threads, limits: limits) { request in holder.handle(request) }
        holder.set(TranscriptsAPI(store: store, tokens: AccessTokens(store: store), live: live,
                                  publicURL: publicURL ?? daemon.baseURL, metrics: metrics,
                                  participantAudio: participantAudio, participantAudioSettings: participantAudioSettings))
        self.live = live
        self.metrics = metrics
    }

    /// `http://HOST:PORT` of the listening socket.
    public var baseURL: String { daemon.baseURL }
    public var port: UInt16 { daemon.port }
    /// Connections closed so far for not sending a whole request in time.
    public var requestTimeouts: Int { daemon.requestTimeouts }
    /// WebSockets open now (participants' audio).
    public var webSocketsOpen: Int { daemon.webSocketsOpen }

    /// Publishes `session`'s captions (and its state changes, as `state` events) as live session `id`, steerable
    /// by its participants over the control API as its settings allow, until `LiveSessions.remove` (or `shutdown`), and its
    /// per-node statistics on `GET /metrics` labelled `session="ID"`, with `audiograph_session_running` 1 while
    /// it is live. Once it ended its final totals stay (running 0); a later session with the same id replaces
    /// them.
    @discardableResult
    public func attach(_ session: any SteerableSession, id: String, room: String, participants: [String]) -> LiveSession {
        let live = self.live.attach(session, id: id, room: room, participants: participants)
        metrics.set("session \(id)") { exposition in
            let labels: PrometheusExposition.Labels = [("session", id)]
            exposition.add(gauge: "audiograph_session_running",
                           help: "1 while the session runs; 0 once it ended (its final totals stay).",
                           labels: labels, value: live.isEnded ? 0 : 1)
            exposition.add(session.statistics(), labels: labels)
        }
        return live
    }

    /// Ends every live session (viewers get `end`), closes every participant's WebSocket (1001, their streams
    /// closed), lets requests in flight finish (up to `timeout` seconds) and stops. Idempotent.
    public func shutdown(timeout: Double = 10) {
        live.endAll()
        daemon.shutdown(timeout: timeout)
    }
}

/// The API, set once the daemon's port is known (the API's URLs need it).
private final class APIHolder: Sendable {
    private let api = Mutex<TranscriptsAPI?>(nil)

    func set(_ api: TranscriptsAPI) { self.api.withLock { $0 = api } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let api = api.withLock({ $0 }) else { return .error(.storeUnavailable("the server is starting")) }
        return api.handle(request)
    }
}
