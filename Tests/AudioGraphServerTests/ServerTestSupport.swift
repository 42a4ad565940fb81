import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// A store in a temporary folder with sessions for two users, an API over it, and tokens for both.
final class APIFixture: @unchecked Sendable {
    /// Holds the store's files; removed after the store is closed.
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }
    let store: SQLiteTranscriptStore
    let tokens: AccessTokens
    let live = LiveSessions()
    let api: TranscriptsAPI
    let aliceToken: String
    let bobToken: String
    /// tids per session id, in the order written.
    private(set) var tids: [String: [String]] = [:]

    static let publicURL = "http://127.0.0.1:9"

    init() throws {
        temporary = try TemporaryFolder(prefix: "server-tests")
        store = try SQLiteTranscriptStore(path: temporary.path("transcripts.sqlite"))
        tokens = AccessTokens(store: store)
        api = TranscriptsAPI(store: store, tokens: tokens, live: live, publicURL: Self.publicURL)
        aliceToken = try tokens.create(user: "alice").token
        bobToken = try tokens.create(user: "bob").token
    }

    deinit {
        store.close()
    }

    /// A session row of `id` that `participants` took part in, with `count` transcripts of one utterance each.
    @discardableResult
    func addSession(_ id: String, participants: [String], transcripts count: Int, start: Int64 = 1_700_000_000) throws -> Int64 {
        let key = try store.createSession(NewSession(sessionID: id, roomName: "room-\(id)", startTime: start,
                                                     participants: participants))
        for index in 0..<count {
            let tid = "\(id)-t\(tids[id, default: []].count)"
            let transcript = try store.beginTranscript(NewTranscript(
                tid: tid, sessionKey: key, sessionID: id, language: "en-US", startTime: start + Int64(index),
                transcriptURL: "file:///srv/secret/\(tid).json"))
            try store.appendUtterance(StoredUtterance(segment: index, start: 0.5, end: 1.5, text: "utterance \(index)"),
                                      transcript: transcript, time: start + Int64(index) + 1)
            tids[id, default: []].append(tid)
        }
        return key
    }

    func get(_ path: String, query: [(String, String)] = [], token: String?, method: String = "GET",
             headers extra: [String: String] = [:]) -> HTTPResponse {
        var headers = extra
        if let token { headers["authorization"] = "Bearer \(token)" }
        return api.handle(HTTPRequest(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) }, headers: headers))
    }
}

/// The body of a response as a JSON object.
func jsonObject(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) -> [String: Any] {
    let object = try? JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]
    #expect(object != nil, "not a JSON object: \(response.text.prefix(200))", sourceLocation: sourceLocation)
    return object ?? [:]
}

/// The `error.code` of an error answer.
func errorCode(_ response: HTTPResponse) -> String? {
    (jsonObject(response)["error"] as? [String: Any])?["code"] as? String
}

/// The tids of a page answer.
func pageTIDs(_ response: HTTPResponse) -> [String] {
    ((jsonObject(response)["transcripts"] as? [[String: Any]]) ?? []).compactMap { $0["tid"] as? String }
}
