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

    /// - Parameters:
    ///   - publicURL: what `transcriptUrl`s in answers start with (`http://HOST:PORT`).
    ///   - metrics: what `GET /metrics` answers (no token needed: counters only); nil: 404.
    public init(store: any TranscriptStore, tokens: AccessTokens, live: LiveSessions, publicURL: String,
                metrics: MetricsEndpoint? = nil) {
        self.store = store
        self.tokens = tokens
        self.live = live
        self.publicURL = publicURL
        self.metrics = metrics
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do throws(APIError) {
            response = try route(request)
        } catch {
            response = .error(error)
            if error.status == 405 { response.headers.append(("Allow", "GET, HEAD")) }
        }
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        response.headers.append(("Referrer-Policy", "no-referrer"))
        return response
    }

    private func route(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else { throw .methodNotAllowed }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if segments == [""] || segments == ["index.html"] || segments == ["app.js"] || segments == ["app.css"] {
            return WebPage.response(for: request.path)
        }
        if segments == ["favicon.ico"] { return HTTPResponse(status: 204) }  // no icon; spares browsers a 404
        if segments == ["metrics"], let metrics { return metrics.response() }
        if segments == ["health"] { return .json(["status": "ok", "version": .string(AudioGraphVersion.current)]) }
        guard segments.first == "v1" else { throw .notFound("no such path") }
        let user = try authenticate(request)
        let query = QueryParameters(request: request)
        let rest = Array(segments.dropFirst())
        if rest.count == 3, rest[0] == "sessions", rest[2] == "transcripts" {
            return try transcripts(of: rest[1], for: user, query: query)
        }
        if rest.count == 3, rest[0] == "sessions", rest[2] == "captions" {
            return try captions(of: rest[1], for: user, head: request.method == "HEAD")
        }
        if rest.count == 2, rest[0] == "transcripts" { return try transcript(rest[1], for: user) }
        if rest == ["calls"] { return try calls(for: user, query: query) }
        if rest == ["live"] { return liveSessions(for: user) }
        throw .notFound("no such path")
    }

    /// The user of the request's bearer token.
    private func authenticate(_ request: HTTPRequest) throws(APIError) -> String {
        guard let header = request.headers["authorization"], !header.isEmpty else { throw .missingToken }
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
        let page = Page(sessionId: sessionID, page: position.pageNumber, limit: limit, nextCursor: rows.last.map { String($0.key) },
                        transcripts: rows.compactMap { try? served(TranscriptRecord(row: $0)) }, calls: nil)
        return try encoded(page)
    }

    private func transcript(_ tid: String, for user: String) throws(APIError) -> HTTPResponse {
        let detail = try reading { () throws(TranscriptsError) -> TranscriptDetail? in
            // The transcript's own run decides, not its session id (which other users' runs may share).
            guard let detail = try store.detail(tid: tid), case .integer(let run)? = detail.record.metaData[StoreColumn.sessionRow],
                  try store.isParticipant(user, sessionRow: run) else {
                return nil
            }
            return detail
        }
        guard var detail else { throw .notFound("no such transcript") }
        detail.record = served(detail.record)
        return try encoded(detail)
    }

    private func calls(for user: String, query: QueryParameters) throws(APIError) -> HTTPResponse {
        let limit = try query.limit()
        let position = try query.position()
        let transcribedOnly = try query.bool("hasTranscriptions") ?? false
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
        let page = Page(sessionId: nil, page: position.pageNumber, limit: limit, nextCursor: rows.last.map { String($0.key) },
                        transcripts: nil, calls: calls)
        return try encoded(page)
    }

    private func liveSessions(for user: String) -> HTTPResponse {
        let sessions = live.list(for: user).map { session -> JSONValue in
            .object(["id": .string(session.id), "room": .string(session.room)])
        }
        return .json(["sessions": .array(sessions)])
    }

    private func captions(of sessionID: String, for user: String, head: Bool) throws(APIError) -> HTTPResponse {
        guard !sessionID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .sessionIDMissing }
        guard let session = live.session(id: sessionID, for: user) else { throw .notFound("no live session with this id") }
        let headers = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                       ("X-Accel-Buffering", "no")]
        if head { return HTTPResponse(status: 200, headers: headers) }
        let stream = EventStream()
        stream.send("retry: 2000\n\n")
        session.subscribe(stream)
        return HTTPResponse(status: 200, headers: headers, body: .events(stream))
    }

    // MARK: Helpers

    /// A record as served: `transcriptUrl` points at this server (the store's own `file://` URL would name a
    /// path on the server's disk).
    private func served(_ record: TranscriptRecord) -> TranscriptRecord {
        var record = record
        let tid = record.tid.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? record.tid
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

    private func encoded(_ value: some Encodable) throws(APIError) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { throw .internalError("cannot encode the answer") }
        return .json(encoded: Array(data))
    }

    /// A page of transcripts or of calls.
    private struct Page: Encodable {
        var sessionId: String?
        var page: Int?
        var limit: Int
        var nextCursor: String?
        var transcripts: [TranscriptRecord]?
        var calls: [CallLogRecord]?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(sessionId, forKey: .sessionId)
            try container.encode(page, forKey: .page)
            try container.encode(limit, forKey: .limit)
            try container.encode(nextCursor, forKey: .nextCursor)
            try container.encodeIfPresent(transcripts, forKey: .transcripts)
            try container.encodeIfPresent(calls, forKey: .calls)
        }

        enum CodingKeys: String, CodingKey {
            case sessionId, page, limit, nextCursor, transcripts, calls
        }
    }
}
