import AudioGraphStoreModel
import Foundation

/// A session's transcripts on an `audiograph serve`, page by page: `TranscriptsRequest` over HTTP, with the same
/// builder and the same cursor rules (both are `TranscriptsPaging`).
///
/// ```swift
/// let client = TranscriptsClient(baseURL: URL(string: "http://127.0.0.1:8080")!, bearerToken: token)
/// let request = RemoteTranscriptsRequest.Builder()
///     .sessionId("standup-2026-11-29")
///     .limit(50)
///     .client(client)
///     .build()
/// let page1 = try await request.fetchNext()      // first 50
/// let page2 = try await request.fetchNext()      // next 50, or [] after the last
/// let again = try await request.fetchPrevious()  // page 1 again; [] when already on page 1
/// ```
///
/// Each fetch is one `GET {base}/v1/sessions/{id}/transcripts?after=CURSOR&limit=N` (docs/http-api.md; no
/// `after` for the first page), with `Authorization: Bearer TOKEN`.
///
/// - `sessionId` is required: missing or empty fails every fetch with `sessionIdMissing`, without a request.
/// - `limit` defaults to 30 and is clamped to 1…1000.
/// - `fetchNext()` gives the next page, or `[]` after the last (and a later call sees transcripts added since);
///   `fetchPrevious()` gives the previous page, or `[]` on page 1 and on a fresh request (without a request).
/// - The cursor moves only when a fetch succeeds: after a failure the same fetch can be retried.
/// - A fetch while another is in flight fails with `requestInProgress`; the one in flight completes.
/// - A record that does not decode is skipped (the rest of its page comes back).
/// - The client is the one given to the builder, else `TranscriptsClients.current`; with neither, fetches fail
///   with `clientNotInitialized`.
///
/// Errors: `clientNotInitialized`, `noAuthToken` (no token, nothing sent; or the server answered
/// `missing_token`), `sessionIdMissing`, `requestInProgress`, `networkUnavailable` (connection refused, timed
/// out, lost, host not found), `malformedResponse` (an answer that is not the documented JSON), and
/// `server(status:code:message:)` for the server's own error codes (`not_found`, `invalid_token`, …).
public final class RemoteTranscriptsRequest: TranscriptsPaging {
    public struct Builder: Sendable {
        private var sessionId: String?
        private var limit = TranscriptsRequest.defaultLimit
        private var client: TranscriptsClient?

        public init() {}

        /// The session whose transcripts to list (required).
        public func sessionId(_ id: String?) -> Builder { modified { $0.sessionId = id } }

        /// Transcripts per page (default 30, clamped to 1…1000).
        public func limit(_ limit: Int) -> Builder { modified { $0.limit = limit } }

        /// The server to ask (default: `TranscriptsClients.current`).
        public func client(_ client: TranscriptsClient) -> Builder { modified { $0.client = client } }

        public func build() -> RemoteTranscriptsRequest {
            RemoteTranscriptsRequest(sessionId: sessionId, limit: limit, client: client)
        }

        private func modified(_ change: (inout Builder) -> Void) -> Builder {
            var copy = self
            change(&copy)
            return copy
        }
    }

    public let sessionId: String?
    /// Transcripts per page, after clamping.
    public let limit: Int
    private let pager: PagedRequest<TranscriptRecord>

    init(sessionId: String?, limit: Int, client: TranscriptsClient?) {
        self.sessionId = sessionId
        let session = sessionId ?? ""
        pager = PagedRequest(limit: limit) { after, limit throws(TranscriptsError) in
            guard let client = client ?? TranscriptsClients.current else { throw .clientNotInitialized }
            return try await TranscriptsPage.fetch(client, sessionId: session, after: after, limit: limit)
        }
        self.limit = pager.limit
    }

    /// The 1-based number of the page last returned; 0 before the first.
    public var pageNumber: Int { pager.pageNumber }

    /// The next page, or `[]` after the last.
    public func fetchNext() async throws(TranscriptsError) -> [TranscriptRecord] {
        try validate()
        return try await pager.fetch(.next)
    }

    /// The previous page, or `[]` on page 1 and before the first fetch.
    public func fetchPrevious() async throws(TranscriptsError) -> [TranscriptRecord] {
        try validate()
        return try await pager.fetch(.previous)
    }

    private func validate() throws(TranscriptsError) {
        guard let sessionId, !sessionId.isEmpty else { throw .sessionIdMissing }
    }
}

/// One page of `GET /v1/sessions/{id}/transcripts`, read from the server's answer.
enum TranscriptsPage {
    /// Asks for the page after `after` and answers its records and cursor, for `PagedRequest`.
    static func fetch(_ client: TranscriptsClient, sessionId: String, after: Int64?, limit: Int)
        async throws(TranscriptsError) -> ([TranscriptRecord], lastKey: Int64?) {
        guard let url = client.transcriptsURL(sessionId: sessionId, after: after, limit: limit) else {
            throw .networkUnavailable("the base URL \(client.baseURL.absoluteString) is not an http or https URL")
        }
        let (status, body) = try await client.get(url)
        guard (200..<300).contains(status) else { throw error(status: status, body: body) }
        return try page(body, after: after)
    }

    /// A 2xx body: `{"nextCursor": "42" | null, "transcripts": [record, …], …}`. Records that do not decode are
    /// skipped; the cursor is the key of the page's last row, nil when the page is empty.
    static func page(_ body: Data, after: Int64?) throws(TranscriptsError) -> ([TranscriptRecord], lastKey: Int64?) {
        let decoded: Body
        do {
            decoded = try JSONDecoder().decode(Body.self, from: body)
        } catch let error as DecodingError {
            throw .malformedResponse(describe(error, body: body))
        } catch {
            throw .malformedResponse("the page cannot be read: \(error)")
        }
        var cursor: Int64?
        if let text = decoded.nextCursor {
            guard let value = Int64(text) else {
                throw .malformedResponse("nextCursor \(quoted(text)) is not a cursor")
            }
            cursor = value
        }
        let records = decoded.transcripts.compactMap(\.value)
        guard !decoded.transcripts.isEmpty else { return ([], lastKey: nil) }
        guard let cursor else {
            throw .malformedResponse("a page of \(decoded.transcripts.count) transcripts without a nextCursor")
        }
        guard cursor != after else {
            throw .malformedResponse("nextCursor \(cursor) does not move past the cursor asked for")
        }
        return (records, lastKey: cursor)
    }

    /// A non-2xx answer: the server's error JSON (`{"error":{"code","message"}}`) as its code, else
    /// `malformedResponse` naming the status.
    static func error(status: Int, body: Data) -> TranscriptsError {
        guard let envelope = try? JSONDecoder().decode(ErrorBody.self, from: body), !envelope.error.code.isEmpty else {
            return .malformedResponse("HTTP \(status) without an error body")
        }
        switch envelope.error.code {
        case "session_id_missing": return .sessionIdMissing
        case "missing_token": return .noAuthToken
        default: return .server(status: status, code: envelope.error.code, message: envelope.error.message ?? "")
        }
    }

    /// The page's body. `transcripts` must be an array; `nextCursor` a string or null (or left out).
    struct Body: Decodable {
        var transcripts: [Lenient<TranscriptRecord>]
        var nextCursor: String?
    }

    struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String?
        }

        var error: Detail
    }

    /// A value that decodes to nil instead of failing, so one bad record does not fail its page.
    struct Lenient<Value: Decodable>: Decodable {
        var value: Value?

        init(from decoder: any Decoder) throws {
            value = try? Value(from: decoder)
        }
    }

    private static func describe(_ error: DecodingError, body: Data) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "the page is not JSON: \(excerpt(body))"
        case .keyNotFound(let key, _):
            return "the page has no \(quoted(key.stringValue))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            guard let key = context.codingPath.first?.stringValue else { return "the page is not a JSON object: \(excerpt(body))" }
            return "the page's \(quoted(key)) has the wrong type"
        @unknown default:
            return "the page cannot be read: \(error)"
        }
    }

    /// The start of a body, for messages.
    private static func excerpt(_ body: Data) -> String {
        guard !body.isEmpty else { return "an empty body" }
        let text = String(decoding: body.prefix(60), as: UTF8.self)
        return quoted(text) + (body.count > 60 ? "…" : "")
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r") + "\""
    }
}
