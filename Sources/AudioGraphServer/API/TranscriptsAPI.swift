import AudioGraphCore
import AudioGraphStore
import Foundation

/// The HTTP API of docs/http-api.md as a plain function from request to answer: routing, authentication,
/// paging, and the JSON. It knows nothing of sockets (`HTTPDaemon` serves it), so every rule is tested by
/// calling `handle` directly.
///
/// Store calls block; `handle` runs on a worker thread of the daemon.
public final class TranscriptsAPI: Sendable {
    private let store: any TranscriptStore
    private let tokens: AccessTokens
    private let live: LiveSessions
    private let publicURL: String
    private let metrics: MetricsEndpoint?
    /// `GET /v1/sessions/{id}/participants/{participant}/audio` (docs/calls.md).
    let participantAudio: ParticipantAudioEndpoint
    /// Pages answered (`…/transcripts` and `calls`), per user and request, while the store stays unchanged.
    private let pages = StoreAnswerCache<PageKey, HTTPResponse>(budget: 32 << 20, cost: { $0.bodySize + 256 })

    /// What a page answer depends on besides the store's contents.
    private struct PageKey: Hashable, Sendable {
        var route: String
        var user: String
        var subject: String
        var position: PagePosition
        var limit: Int
        var transcribedOnly: Bool = false
    }

    /// - Parameters:
    ///   - publicURL: what `transcriptUrl`s in answers start with (`http://HOST:PORT`).
    ///   - metrics: what `GET /metrics` answers (no token needed: counters only); nil: 404.
    ///   - participantAudio: where participants' audio goes (the live calls); nil: the endpoint answers 501.
    ///   - participantAudioSettings: its pacing and limits.
    public init(store: any TranscriptStore, tokens: AccessTokens, live: LiveSessions, publicURL: String,
                metrics: MetricsEndpoint? = nil, participantAudio: (any ParticipantAudioIngest)? = nil,
                participantAudioSettings: ParticipantAudioSettings = ParticipantAudioSettings()) {
        self.participantAudio = ParticipantAudioEndpoint(ingest: participantAudio, settings: participantAudioSettings)
        self.store = store
        self.tokens = tokens
        self.live = live
        self.publicURL = publicURL
        self.metrics = metrics
    }

    /// The page kept for `key`, or the one `make` answers (kept when the store can stamp). The stamp is read
    /// before `make` reads the store, so a page kept never holds data older than its stamp.
    private func page(_ key: PageKey, _ make: () throws(APIError) -> HTTPResponse) throws(APIError) -> HTTPResponse {
        // Cast at each call: an `as? any StoreChangeStamping` of the store kept in a property was over-released in
        // release builds (Swift 6.0; `tokens create` crashed in AccessTokens' deinit).
        guard let stamp = (store as? any StoreChangeStamping)?.changeStamp() else { return try make() }
        if let kept = pages.value(for: key, stamp: stamp) { return kept }
        let response = try make()
        pages.keep(response, for: key, stamp: stamp)
        return response
    }

    /// Pages kept now (for tests).
    var pagesKept: Int { pages.count }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do throws(APIError) {
            response = try route(request)
        } catch {
            response = .error(error)
            if error.status == 405 { response.headers.append(("Allow", error == .controlMethodNotAllowed ? "POST" : "GET, HEAD")) }
            if error == WebSocketHandshake.wrongVersion { response.headers.append(("Sec-WebSocket-Version", WebSocketHandshake.version)) }
        }
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        response.headers.append(("Referrer-Policy", "no-referrer"))
        return response
    }

    private func route(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let isControl = segments.count == 4 && segments[0] == "v1" && segments[1] == "sessions"
            && ControlAPI.routes.contains(segments[3])
        if isControl, request.method == "POST" {
            let user = try authenticate(request)
            return try control(segments[2], route: segments[3], for: user, request: request, store: store, live: live)
        }
        // `…/captions` is also the caption stream (GET); the other two controls take POST only.
        if isControl, segments[3] != "captions" { throw .controlMethodNotAllowed }
        guard request.method == "GET" || request.method == "HEAD" else { throw .methodNotAllowed }
        if segments == [""] || segments == ["index.html"] || segments == ["app.js"] || segments == ["app.css"]
            || segments == ["capture-worklet.js"] {
            return WebPage.response(for: request.path)
        }
        if segments == ["favicon.ico"] { return HTTPResponse(status: 204) }  // no icon; spares browsers a 404
        if segments == ["metrics"], let metrics { return metrics.response() }
        if segments == ["health"] { return .json(["status": "ok", "version": .string(AudioGraphVersion.current)]) }
        guard segments.first == "v1" else { throw .notFound("no such path") }
        if let (sessionID, participant) = ParticipantAudioRequest.route(Array(segments.dropFirst())) {
            return try participantAudio.answer(request, sessionID: sessionID, participant: participant) {
                (authorization: String) throws(APIError) -> String in try self.user(authorization: authorization)
            }
        }
        let user = try authenticate(request)
        let query = QueryParameters(request: request)
        let rest = Array(segments.dropFirst())
        if rest.count == 3, rest[0] == "sessions", rest[2] == "transcripts" {
            return try transcripts(of: rest[1], for: user, query: query)
        }
        if rest.count == 3, rest[0] == "sessions", rest[2] == "captions" {
            // A viewer that reconnects says the last event it got (EventSource does; so does the page).
            let lastEventID = request.headers["last-event-id"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return try captions(of: rest[1], for: user, head: request.method == "HEAD", after: lastEventID)
        }
        if rest.count == 2, rest[0] == "transcripts" {
            if let format = TranscriptDownload.allCases.first(where: { rest[1].hasSuffix("." + $0.fileExtension) }) {
                let tid = String(rest[1].dropLast(format.fileExtension.count + 1))
                return try download(tid, as: format, for: user)
            }
            return try transcript(rest[1], for: user)
        }
        if rest == ["calls"] { return try calls(for: user, query: query) }
        if rest == ["live"] { return liveSessions(for: user) }
        throw .notFound("no such path")
    }

    /// The user of the request's bearer token.
    private func authenticate(_ request: HTTPRequest) throws(APIError) -> String {
        guard let header = request.headers["authorization"], !header.isEmpty else { throw .missingToken }
        return try user(authorization: header)
    }

    /// The user of an `Authorization` value (`Bearer TOKEN`).
    private func user(authorization header: String) throws(APIError) -> String {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw .missingToken }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        do {
            guard let user = try tokens.user(for: token) else { throw APIError.invalidToken }
            return user
        } catch let error as APIError {
            throw error
        } catch {
            throw .storeUnavailable("cannot check the token: \(error)")
        }
    }

    // MARK: Routes

    private func transcripts(of sessionID: String, for user: String, query: QueryParameters) throws(APIError) -> HTTPResponse {
        guard !sessionID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .sessionIDMissing }
        let limit = try query.limit()
        let position = try query.position()
        return try page(PageKey(route: "transcripts", user: user, subject: sessionID, position: position, limit: limit)) {
            () throws(APIError) -> HTTPResponse in
            try transcriptsPage(of: sessionID, for: user, limit: limit, position: position)
        }
    }

    private func transcriptsPage(of sessionID: String, for user: String, limit: Int,
                                 position: PagePosition) throws(APIError) -> HTTPResponse {
        let rows = try reading { () throws(TranscriptsError) -> [StoreRow]? in
            // A session id may be shared by other users' runs: only the runs `user` took part in are listed.
            guard try store.isParticipant(user, sessionID: sessionID) else { return nil }
            switch position {
            case .page(let page):
                return try store.transcripts(sessionID: sessionID, participant: user, after: nil, offset: (page - 1) * limit,
                                             limit: limit)
            case .after(let key):
                return try store.transcripts(sessionID: sessionID, participant: user, after: key, offset: 0, limit: limit)
            }
        }
        guard let rows else { throw .notFound("no such session") }
        return ServedJSON.response(ServedJSON.page(sessionId: sessionID, page: position.pageNumber, limit: limit,
                                                   nextCursor: rows.last.map { String($0.key) },
                                                   transcripts: rows.compactMap { try? served(TranscriptRecord(row: $0)) }))
    }

    private func transcript(_ tid: String, for user: String) throws(APIError) -> HTTPResponse {
        var detail = try readableDetail(tid, for: user)
        detail.record = served(detail.record)
        return ServedJSON.response(ServedJSON.detail(detail))
    }

    /// The transcript `tid` when `user` took part in its run; else 404 (the same answer as no such transcript).
    private func readableDetail(_ tid: String, for user: String) throws(APIError) -> TranscriptDetail {
        let detail = try reading { () throws(TranscriptsError) -> TranscriptDetail? in
            // The transcript's own run decides, not its session id (which other users' runs may share).
            guard let detail = try store.detail(tid: tid), case .integer(let run)? = detail.record.metaData[StoreColumn.sessionRow],
                  try store.isParticipant(user, sessionRow: run) else {
                return nil
            }
            return detail
        }
        guard let detail else { throw .notFound("no such transcript") }
        return detail
    }

    /// `GET /v1/transcripts/{tid}.srt|.vtt|.json`: the same access rule as the transcript itself.
    private func download(_ tid: String, as format: TranscriptDownload, for user: String) throws(APIError) -> HTTPResponse {
        let detail = try readableDetail(tid, for: user)
        let body = format.render(detail, session: detail.record.mid)
        let name = String(tid.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        return HTTPResponse(status: 200, headers: [("Content-Type", format.contentType), ("Cache-Control", "no-store"),
                                                   ("Content-Disposition", "attachment; filename=\"\(name).\(format.fileExtension)\"")],
                            body: .bytes(Array(body.utf8)))
    }

    private func calls(for user: String, query: QueryParameters) throws(APIError) -> HTTPResponse {
        let limit = try query.limit()
        let position = try query.position()
        let transcribedOnly = try query.bool("hasTranscriptions") ?? false
        return try page(PageKey(route: "calls", user: user, subject: "", position: position, limit: limit,
                                transcribedOnly: transcribedOnly)) { () throws(APIError) -> HTTPResponse in
            try callsPage(for: user, limit: limit, position: position, transcribedOnly: transcribedOnly)
        }
    }

    private func callsPage(for user: String, limit: Int, position: PagePosition,
                           transcribedOnly: Bool) throws(APIError) -> HTTPResponse {
        let (rows, transcriptRows) = try reading { () throws(TranscriptsError) -> ([StoreRow], [StoreRow]) in
            let rows: [StoreRow]
            switch position {
            case .page(let page):
                rows = try store.sessions(participant: user, after: nil, offset: (page - 1) * limit, limit: limit,
                                          transcribedOnly: transcribedOnly)
            case .after(let key):
                rows = try store.sessions(participant: user, after: key, offset: 0, limit: limit, transcribedOnly: transcribedOnly)
            }
            return (rows, transcribedOnly ? try store.transcripts(ofSessions: rows.map(\.key)) : [])
        }
        let calls = CallLogRecord.records(sessions: rows, transcripts: transcriptRows, transform: served)
        return ServedJSON.response(ServedJSON.page(sessionId: nil, page: position.pageNumber, limit: limit,
                                                   nextCursor: rows.last.map { String($0.key) }, calls: calls))
    }

    private func liveSessions(for user: String) -> HTTPResponse {
        let sessions = live.list(for: user).map { session -> JSONValue in
            var object: JSONObject = ["id": .string(session.id), "room": .string(session.room)]
            if let controller = session.controller {
                object["state"] = .object(controller.stateEvent(controller.session.currentState))
            }
            object["canJoin"] = .bool(participantAudio.canJoin(sessionID: session.id, user: user))
            return .object(object)
        }
        return .json(["user": .string(user), "sessions": .array(sessions)])
    }

    private func captions(of sessionID: String, for user: String, head: Bool, after lastEventID: Int?) throws(APIError) -> HTTPResponse {
        guard !sessionID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .sessionIDMissing }
        guard let session = live.session(id: sessionID, for: user) else { throw .notFound("no live session with this id") }
        let headers = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                       ("X-Accel-Buffering", "no")]
        if head { return HTTPResponse(status: 200, headers: headers) }
        let stream = EventStream()
        stream.send("retry: 2000\n\n")
        session.subscribe(stream, after: lastEventID)
        return HTTPResponse(status: 200, headers: headers, body: .events(stream))
    }

    // MARK: Helpers

    /// A record as served: `transcriptUrl` points at this server (the store's own `file://` URL would name a
    /// path on the server's disk).
    private func served(_ record: TranscriptRecord) -> TranscriptRecord {
        var record = record
        // Most tids are letters, digits and `-._~`, which need no encoding (and the Foundation call is costly).
        let plain = record.tid.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~".utf8.contains(byte)
        }
        let tid = plain ? record.tid
            : record.tid.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? record.tid
        record.transcriptUrl = "\(publicURL)/v1/transcripts/\(tid)"
        if record.metaData[StoreColumn.transcriptURL] != nil {
            record.metaData[StoreColumn.transcriptURL] = .text(record.transcriptUrl)
        }
        return record
    }

    private func reading<T>(_ body: () throws(TranscriptsError) -> T) throws(APIError) -> T {
        do {
            return try body()
        } catch .malformedData(let detail) {
            throw .internalError("the store holds malformed data: \(detail)")
        } catch {
            throw .storeUnavailable(error.message)
        }
    }
}
