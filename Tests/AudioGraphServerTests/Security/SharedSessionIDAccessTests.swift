import AudioGraph
import Foundation
import Testing

/// Issue 14, item 1: sessions that share an id do not leak across users. Alice's and Bob's runs both use
/// session id "standup", each with its own participants, in one store: each user reads only the transcripts of
/// the runs they took part in — in the session's list, by tid, in calls and in live captions — and a transcript
/// of the other's run answers 404 exactly like one that does not exist.
@Suite struct SharedSessionIDAccessTests {
    /// Alice's run (one transcript, `standup-t0`), then Bob's run with the same id (`standup-t1`, `standup-t2`).
    private func standup() throws -> APIFixture {
        let fixture = try APIFixture()
        try fixture.addSession("standup", participants: ["alice"], transcripts: 1)
        try fixture.addSession("standup", participants: ["bob"], transcripts: 2)
        return fixture
    }

    @Test func theSessionsListHoldsOnlyTheUsersOwnRuns() throws {
        let fixture = try standup()
        #expect(pageTIDs(fixture.get("/v1/sessions/standup/transcripts", token: fixture.aliceToken)) == ["standup-t0"])
        #expect(pageTIDs(fixture.get("/v1/sessions/standup/transcripts", token: fixture.bobToken)) == ["standup-t1", "standup-t2"])
        // Numbered pages and cursors page over the user's own transcripts only.
        let page2 = fixture.get("/v1/sessions/standup/transcripts", query: [("limit", "1"), ("page", "2")], token: fixture.bobToken)
        #expect(pageTIDs(page2) == ["standup-t2"])
        let first = fixture.get("/v1/sessions/standup/transcripts", query: [("limit", "1")], token: fixture.aliceToken)
        let cursor = try #require(jsonObject(first)["nextCursor"] as? String)
        let next = fixture.get("/v1/sessions/standup/transcripts", query: [("limit", "1"), ("after", cursor)], token: fixture.aliceToken)
        #expect(pageTIDs(next).isEmpty)
        #expect(!next.text.contains("utterance"))
    }

    @Test func anotherUsersTranscriptWithTheSameSessionIDIsNotFoundExactlyLikeAMissingOne() throws {
        let fixture = try standup()
        let missing = fixture.get("/v1/transcripts/standup-t9", token: fixture.bobToken)
        let alices = fixture.get("/v1/transcripts/standup-t0", token: fixture.bobToken)
        #expect(alices.status == 404)
        #expect(alices.text == missing.text)
        #expect(!alices.text.contains("utterance"))
        let bobs = fixture.get("/v1/transcripts/standup-t1", token: fixture.aliceToken)
        #expect(bobs.status == 404)
        #expect(bobs.text == missing.text)
        #expect(fixture.get("/v1/transcripts/standup-t0", token: fixture.aliceToken).status == 200)
        #expect(fixture.get("/v1/transcripts/standup-t1", token: fixture.bobToken).status == 200)
    }

    @Test func callsListEachRunOnlyToItsParticipants() throws {
        let fixture = try standup()
        func calls(_ token: String) -> [[String: Any]] {
            let answer = fixture.get("/v1/calls", query: [("hasTranscriptions", "true")], token: token)
            return jsonObject(answer)["calls"] as? [[String: Any]] ?? []
        }
        func tids(_ call: [String: Any]) -> [String] {
            (call["transcripts"] as? [[String: Any]])?.compactMap { $0["tid"] as? String } ?? []
        }
        #expect(calls(fixture.aliceToken).map(tids) == [["standup-t0"]])
        #expect(calls(fixture.bobToken).map(tids) == [["standup-t1", "standup-t2"]])
    }

    @Test func liveRunsWithOneIdStayApartAndEachIsWatchedOnlyByItsParticipants() throws {
        let fixture = try APIFixture()
        let alices = fixture.live.add(id: "standup", room: "alice's room", participants: ["alice"])
        let bobs = fixture.live.add(id: "standup", room: "bob's room", participants: ["bob"])
        #expect(!alices.isEnded, "a second run with the same id must not end the first")
        func rooms(_ token: String) -> [String] {
            let sessions = jsonObject(fixture.get("/v1/live", token: token))["sessions"] as? [[String: Any]] ?? []
            return sessions.compactMap { $0["room"] as? String }
        }
        #expect(rooms(fixture.aliceToken) == ["alice's room"])
        #expect(rooms(fixture.bobToken) == ["bob's room"])
        guard case .events(let aliceStream) = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken).body,
              case .events(let bobStream) = fixture.get("/v1/sessions/standup/captions", token: fixture.bobToken).body else {
            Issue.record("no event stream")
            return
        }
        alices.publish(.update(TranscriptUpdate(segment: 1, revision: 1, isFinal: true, start: 0, end: 1, text: "alice speaks")))
        bobs.publish(.update(TranscriptUpdate(segment: 1, revision: 1, isFinal: true, start: 0, end: 1, text: "bob speaks")))
        let aliceText = aliceStream.drain()
        let bobText = bobStream.drain()
        #expect(aliceText.contains("alice speaks") && !aliceText.contains("bob speaks"))
        #expect(bobText.contains("bob speaks") && !bobText.contains("alice speaks"))
        // Bob's run ending leaves Alice's running.
        fixture.live.remove(bobs)
        #expect(bobStream.isClosed && !aliceStream.isClosed)
        #expect(fixture.get("/v1/sessions/standup/captions", token: fixture.bobToken, method: "HEAD").status == 404)
        #expect(fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken, method: "HEAD").status == 200)
    }
}
