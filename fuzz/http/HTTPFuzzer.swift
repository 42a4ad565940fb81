import AudioGraphCore
import AudioGraphServer
import AudioGraphStore
import FuzzSupport

/// libFuzzer target `http`: a request head (`GET /v1/calls?limit=5 HTTP/1.1`, then `Name: value` lines) through
/// `TranscriptsAPI.handle` over a SQLite store with sessions of alice and bob. The target is split and
/// percent-decoded as libmicrohttpd hands it over (path without query; query items split at `&` and `=`, `+`
/// read as a space; a decoded NUL ends a value, as in a C string). `$ALICE` and `$BOB` in header values stand
/// for their tokens, so inputs reach the routes behind authentication.
///
/// Every answer must have a status from 100 to 599, the security headers, and a body that parses when it says
/// it is JSON; a `/v1` request without a valid token gets 401; bob's and anonymous answers never hold alice's
/// utterances.
private struct Server {
    let api: TranscriptsAPI
    let aliceToken: String
    let bobToken: String
    static let aliceSecret = "alice-only words"

    init() {
        let folder = Fuzz.temporaryFolder("http")
        let store = try! SQLiteTranscriptStore(path: folder + "/transcripts.sqlite")
        let tokens = AccessTokens(store: store)
        api = TranscriptsAPI(store: store, tokens: tokens, live: LiveSessions(), publicURL: "http://127.0.0.1:9")
        aliceToken = try! tokens.create(user: "alice").token
        bobToken = try! tokens.create(user: "bob").token
        for (id, participants, text) in [("alice-call", ["alice"], Self.aliceSecret), ("team", ["alice", "bob"], "team words"),
                                         ("bob-call", ["bob"], "bob words")] {
            let key = try! store.createSession(NewSession(sessionID: id, roomName: "room", startTime: 1_700_000_000,
                                                          participants: participants))
            for index in 0..<3 {
                let transcript = try! store.beginTranscript(NewTranscript(
                    tid: "\(id)-t\(index)", sessionKey: key, sessionID: id, language: "en-US", startTime: 1_700_000_000 + Int64(index),
                    transcriptURL: "file:///srv/\(id)-t\(index).json"))
                try! store.appendUtterance(StoredUtterance(segment: 0, start: 0.5, end: 1.5, text: text),
                                           transcript: transcript, time: 1_700_000_001 + Int64(index))
            }
        }
    }
}

private let server = Server()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let head = Fuzz.requestHead(Fuzz.text(data, size), tokens: ["$ALICE": server.aliceToken, "$BOB": server.bobToken]) else {
        return 0
    }
    let request = HTTPRequest(method: head.method, path: head.path, query: head.query, headers: head.headers)
    check(server.api.handle(request), for: request)
    return 0
}

private func check(_ response: HTTPResponse, for request: HTTPRequest) {
    Fuzz.expect((100...599).contains(response.status), "status \(response.status) for \(request.path)")
    Fuzz.expect(response.header("X-Content-Type-Options") == "nosniff", "no nosniff header for \(request.path)")
    if response.header("Content-Type")?.hasPrefix("application/json") == true {
        Fuzz.expect((try? JSONParser.parse(response.text)) != nil, "a JSON answer that does not parse: \(response.text.prefix(200))")
    }
    // The participant audio endpoint also takes the token as a subprotocol (`bearer.TOKEN`).
    let authorization = (request.headers["authorization"] ?? "") + " " + (request.headers["sec-websocket-protocol"] ?? "")
    let alice = authorization.contains(server.aliceToken)
    let valid = alice || authorization.contains(server.bobToken)
    if request.path.hasPrefix("/v1/") && !valid && (request.method == "GET" || request.method == "HEAD") {
        Fuzz.expect(response.status == 401, "\(request.method) \(request.path) without a valid token answered \(response.status)")
    }
    if !alice {
        Fuzz.expect(!response.text.contains(Server.aliceSecret), "alice's words answered to \(authorization) for \(request.path)")
    }
}
