import AudioGraphClient
import AudioGraphStore
import Foundation
import Synchronization
import Testing

/// Sessions' transcripts kept in memory and served the way docs/http-api.md says
/// (`GET /v1/sessions/{id}/transcripts?after=&limit=`, bearer token, error JSON), as the fake server's handler.
/// Rows of all sessions share one key sequence (10, 20, 30, …), so a session's cursors are not consecutive.
final class ClientFakeTranscripts: Sendable {
    private struct Row {
        var key: Int64
        var session: String
        /// The record's JSON as served (any JSON, to serve records that do not decode).
        var json: String
    }

    let token: String
    private let rows = Mutex<[Row]>([])

    init(token: String = ClientFixtures.token) {
        self.token = token
    }

    /// The record served for `session`'s transcript `index` (tid `SESSION-tINDEX`), with a raw row of every kind.
    static func record(_ session: String, _ index: Int) -> TranscriptRecord {
        let start = Int64(1_764_430_000 + index * 100)
        return TranscriptRecord(tid: "\(session)-t\(index)", mid: session, roomName: "room \(session)",
                                startTime: start, endTime: start + 60, url: "file:///media/\(session).wav",
                                transcriptDate: StoreTime.iso8601(start),
                                transcriptUrl: "http://127.0.0.1/v1/transcripts/\(session)-t\(index)",
                                metaData: ["tid": .text("\(session)-t\(index)"), "start_time": .integer(start),
                                           "confidence": .real(0.75), "url": .null])
    }

    /// Adds transcripts `range` of `session` (records from `record(_:_:)`).
    func add(_ session: String, _ range: Range<Int>) {
        for index in range {
            let data = try! JSONEncoder().encode(Self.record(session, index))
            addRaw(session, json: String(decoding: data, as: UTF8.self))
        }
    }

    /// Adds a row whose record is this JSON as it is.
    func addRaw(_ session: String, json: String) {
        rows.withLock { rows in
            rows.append(Row(key: Int64(rows.count + 1) * 10, session: session, json: json))
        }
    }

    /// `count` transcripts of `session`, interleaved with as many of `other`.
    func addInterleaved(_ count: Int, session: String = "a", other: String = "b") {
        for index in 0..<count {
            add(session, index..<index + 1)
            add(other, index..<index + 1)
        }
    }

    var handler: ClientTestServer.Handler {
        { [self] request in answer(request) }
    }

    func answer(_ request: ClientTestRequest) -> ClientTestResponse {
        guard let authorization = request.headers["authorization"] else {
            return .error(401, "missing_token", "this request needs an Authorization: Bearer token")
        }
        guard authorization == "Bearer \(token)" else { return .error(401, "invalid_token", "the token is not valid") }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "sessions", parts[4] == "transcripts",
              let session = parts[3].removingPercentEncoding else {
            return .error(404, "not_found", "no such route")
        }
        guard !session.isEmpty else { return .error(400, "session_id_missing", "a session id is required") }
        let query = request.query
        let limit = min(max(Int(query["limit"] ?? "30") ?? 30, 1), 1000)
        var after: Int64?
        if let text = query["after"] {
            guard let value = Int64(text) else { return .error(400, "bad_parameter", "after is not a cursor") }
            after = value
        }
        let page: [Row]? = rows.withLock { rows in
            let ofSession = rows.filter { $0.session == session }
            guard !ofSession.isEmpty else { return nil }
            return Array(ofSession.filter { $0.key > (after ?? 0) }.prefix(limit))
        }
        guard let page else { return .error(404, "not_found", "no such session") }
        let cursor = page.last.map { "\"\($0.key)\"" } ?? "null"
        let body = #"{"sessionId":"\#(session)","limit":\#(limit),"nextCursor":\#(cursor),"transcripts":["#
            + page.map(\.json).joined(separator: ",") + "]}"
        return .http(status: 200, body: body)
    }
}

/// Builders and helpers shared by the client's tests.
enum ClientFixtures {
    static let token = "secret"

    static func client(_ server: ClientTestServer, token: String? = ClientFixtures.token,
                       timeout: TimeInterval = 30) -> TranscriptsClient {
        TranscriptsClient(baseURL: server.baseURL, bearerToken: token, requestTimeout: timeout)
    }

    static func request(_ client: TranscriptsClient, session: String? = "a", limit: Int? = nil) -> RemoteTranscriptsRequest {
        var builder = RemoteTranscriptsRequest.Builder().sessionId(session).client(client)
        if let limit { builder = builder.limit(limit) }
        return builder.build()
    }

    /// A server with `count` transcripts of session "a" (interleaved with "b"), and a request on it.
    static func paging(_ count: Int, limit: Int = 3) throws -> (ClientFakeTranscripts, ClientTestServer, RemoteTranscriptsRequest) {
        let data = ClientFakeTranscripts()
        data.addInterleaved(count)
        let server = try ClientTestServer(handler: data.handler)
        return (data, server, request(client(server), limit: limit))
    }

    /// The error a fetch failed with, or nil when it succeeded.
    static func failure<T>(_ fetch: () async throws -> T) async -> TranscriptsError? {
        do {
            _ = try await fetch()
            return nil
        } catch let error as TranscriptsError {
            return error
        } catch {
            Issue.record("not a TranscriptsError: \(error)")
            return nil
        }
    }

    static func tids(_ records: [TranscriptRecord]) -> [String] { records.map(\.tid) }

    static func expected(_ session: String, _ range: Range<Int>) -> [String] { range.map { "\(session)-t\($0)" } }
}
