/// Issue 17, "Live captions at scale" (the paged endpoint): pages and tokens the API keeps while the SQLite store
/// is unchanged answer exactly what the store would: a commit by another connection (another process) shows on
/// the next request, a token revoked elsewhere is refused at once, and what one user was given never reaches
/// another.
import AudioGraph
import Foundation
import Testing
@testable import AudioGraphServer

@Suite struct KeptPagesTests {
    @Test func theStampChangesWithEveryCommitOfAnyConnection() throws {
        let fixture = try APIFixture()
        let first = try #require(fixture.store.changeStamp())
        #expect(fixture.store.changeStamp() == first)
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        let afterOwn = try #require(fixture.store.changeStamp())
        #expect(afterOwn != first)
        let other = try SQLiteTranscriptStore(path: fixture.store.path)
        defer { other.close() }
        _ = try other.createSession(NewSession(sessionID: "t", startTime: 1, participants: ["bob"]))
        #expect(fixture.store.changeStamp() != afterOwn)
        fixture.store.close()
        #expect(fixture.store.changeStamp() == nil)
    }

    @Test func aKeptPageIsTheSameAnswerAndAnotherConnectionsCommitShowsNext() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 2)
        let query = [("page", "1"), ("limit", "10")]
        let made = fixture.get("/v1/sessions/s/transcripts", query: query, token: fixture.aliceToken)
        #expect(fixture.api.pagesKept == 1)
        let kept = fixture.get("/v1/sessions/s/transcripts", query: query, token: fixture.aliceToken)
        #expect(kept.text == made.text)
        #expect(pageTIDs(kept) == ["s-t0", "s-t1"])

        // Another process adds a transcript to the same run.
        let other = try SQLiteTranscriptStore(path: fixture.store.path)
        defer { other.close() }
        let run = try #require(try fixture.store.sessions(after: nil, limit: 1, transcribedOnly: false).first?.key)
        let transcript = try other.beginTranscript(NewTranscript(tid: "s-t2", sessionKey: run, sessionID: "s", language: "en-US",
                                                                 startTime: 5, transcriptURL: "file:///x.json"))
        try other.appendUtterance(StoredUtterance(segment: 0, start: 0, end: 1, text: "new"), transcript: transcript, time: 6)
        #expect(pageTIDs(fixture.get("/v1/sessions/s/transcripts", query: query, token: fixture.aliceToken)) == ["s-t0", "s-t1", "s-t2"])
    }

    @Test func aPageKeptForOneUserIsNotAnotherUsers() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        try fixture.addSession("b", participants: ["bob"], transcripts: 1)
        #expect(fixture.get("/v1/sessions/s/transcripts", token: fixture.aliceToken).status == 200)
        #expect(fixture.get("/v1/calls", token: fixture.aliceToken).status == 200)
        #expect(fixture.api.pagesKept == 2)
        #expect(fixture.get("/v1/sessions/s/transcripts", token: fixture.bobToken).status == 404)
        let bobsCalls = jsonObject(fixture.get("/v1/calls", token: fixture.bobToken))["calls"] as? [[String: Any]] ?? []
        #expect(bobsCalls.compactMap { $0["mid"] as? String } == ["b"])
    }

    @Test func aTokenRevokedByAnotherConnectionIsRefusedAtOnce() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        #expect(fixture.get("/v1/sessions/s/transcripts", token: fixture.aliceToken).status == 200)
        #expect(fixture.get("/v1/sessions/s/transcripts", token: fixture.aliceToken).status == 200)
        let other = try SQLiteTranscriptStore(path: fixture.store.path)
        defer { other.close() }
        #expect(try AccessTokens(store: other).revoke(user: "alice") == 1)
        let refused = fixture.get("/v1/sessions/s/transcripts", token: fixture.aliceToken)
        #expect(refused.status == 401)
        #expect(fixture.get("/v1/sessions/s/transcripts", token: fixture.bobToken).status == 404)
    }
}
