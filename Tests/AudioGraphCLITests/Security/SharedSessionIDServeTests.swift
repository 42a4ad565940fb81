import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 1, over real HTTP against `audiograph serve`: Alice's and Bob's runs both use session id
/// "standup" in one store. Bob's token lists only his own transcript under `/v1/sessions/standup/transcripts`,
/// and `GET /v1/transcripts/<alice's tid>` answers him the 404 of a tid that does not exist (and the other way
/// round).
@Suite("serve: runs that share a session id stay apart")
struct SharedSessionIDServeTests {
    @Test func eachUserReadsOnlyTheirOwnRunOfStandup() async throws {
        let dir = try TemporaryFolder()
        let path = dir.path("store/t.sqlite")
        let store = try SQLiteTranscriptStore(path: path)
        for (user, text) in [("alice", "alice's roadmap"), ("bob", "bob's salary talk")] {
            let run = try store.createSession(NewSession(sessionID: "standup", startTime: 1_764_430_000, participants: [user]))
            let transcript = try store.beginTranscript(NewTranscript(tid: "t-\(user)", sessionKey: run, sessionID: "standup",
                                                                     language: "en-US", startTime: 1_764_430_000,
                                                                     transcriptURL: ""))
            try store.appendUtterance(StoredUtterance(segment: 1, start: 0, end: 1, text: text), transcript: transcript,
                                      time: 1_764_430_001)
        }
        let tokens = AccessTokens(store: store)
        let alice = try tokens.create(user: "alice").token
        let bob = try tokens.create(user: "bob").token
        store.close()

        try await ServeProcess.with(["serve", "--store", path, "--listen", "127.0.0.1:0"], in: dir) { server in
            let views = [(token: bob, own: "t-bob", other: "t-alice", leak: "alice's roadmap"),
                         (token: alice, own: "t-alice", other: "t-bob", leak: "bob's salary talk")]
            for (token, own, other, leak) in views {
                let list = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts"), token: token)
                let tids = (try list.json()["transcripts"] as? [[String: Any]])?.compactMap { $0["tid"] as? String }
                #expect(list.status == 200 && tids == [own], "\(list)")
                let foreign = try await ServeHTTP.get(server.url("/v1/transcripts/\(other)"), token: token)
                let missing = try await ServeHTTP.get(server.url("/v1/transcripts/t-nobody"), token: token)
                #expect(foreign.status == 404 && foreign.body == missing.body, "\(foreign)")
                #expect(!foreign.text.contains(leak))
                let mine = try await ServeHTTP.get(server.url("/v1/transcripts/\(own)"), token: token)
                #expect(mine.status == 200, "\(mine)")
            }
        }
    }
}
