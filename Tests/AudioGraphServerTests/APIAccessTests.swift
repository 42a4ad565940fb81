import AudioGraph
import Foundation
import Testing

/// Who sees what: a user sees only the sessions they took part in, and everything else looks like nothing.
@Suite struct APIAccessTests {
    @Test func anotherUsersSessionIsNotFoundExactlyLikeAMissingOne() throws {
        let fixture = try APIFixture()
        try fixture.addSession("alices", participants: ["alice"], transcripts: 2)
        let foreign = fixture.get("/v1/sessions/alices/transcripts", token: fixture.bobToken)
        let missing = fixture.get("/v1/sessions/nobody/transcripts", token: fixture.bobToken)
        #expect(foreign.status == 404)
        #expect(foreign.text == missing.text)
        let foreignTranscript = fixture.get("/v1/transcripts/alices-t0", token: fixture.bobToken)
        let missingTranscript = fixture.get("/v1/transcripts/nothing-t0", token: fixture.bobToken)
        #expect(foreignTranscript.status == 404)
        #expect(foreignTranscript.text == missingTranscript.text)
        #expect(!foreignTranscript.text.contains("utterance"))
        #expect(fixture.get("/v1/transcripts/alices-t0", token: fixture.aliceToken).status == 200)
    }

    @Test func callsListOnlyTheUsersSessions() throws {
        let fixture = try APIFixture()
        try fixture.addSession("both", participants: ["alice", "bob"], transcripts: 1)
        try fixture.addSession("alices", participants: ["alice"], transcripts: 2)
        try fixture.addSession("silent", participants: ["alice"], transcripts: 0)
        func mids(_ token: String, _ query: [(String, String)] = []) -> [String] {
            let calls = jsonObject(fixture.get("/v1/calls", query: query, token: token))["calls"] as? [[String: Any]] ?? []
            return calls.compactMap { $0["mid"] as? String }
        }
        #expect(mids(fixture.aliceToken) == ["both", "alices", "silent"])
        #expect(mids(fixture.aliceToken, [("hasTranscriptions", "true")]) == ["both", "alices"])
        #expect(mids(fixture.bobToken) == ["both"])
        #expect(mids(fixture.aliceToken, [("limit", "1"), ("page", "2")]) == ["alices"])
        let withTranscripts = jsonObject(fixture.get("/v1/calls", query: [("hasTranscriptions", "true")], token: fixture.aliceToken))
        let calls = try #require(withTranscripts["calls"] as? [[String: Any]])
        #expect((calls[1]["transcripts"] as? [[String: Any]])?.compactMap { $0["tid"] as? String } == ["alices-t0", "alices-t1"])
        // Without the filter, calls carry no transcripts (as CallLogsRequest).
        let plain = jsonObject(fixture.get("/v1/calls", token: fixture.aliceToken))["calls"] as? [[String: Any]] ?? []
        #expect(plain.allSatisfy { ($0["transcripts"] as? [Any])?.isEmpty == true })
    }

    @Test func servedRecordsPointAtTheServerNotTheDisk() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        let page = fixture.get("/v1/sessions/s/transcripts", token: fixture.aliceToken)
        #expect(!page.text.contains("/srv/secret"))
        let record = try #require((jsonObject(page)["transcripts"] as? [[String: Any]])?.first)
        #expect(record["transcriptUrl"] as? String == "\(APIFixture.publicURL)/v1/transcripts/s-t0")
        #expect(record["mid"] as? String == "s")
        #expect(record["roomName"] as? String == "room-s")
        let detail = fixture.get("/v1/transcripts/s-t0", token: fixture.aliceToken)
        #expect(!detail.text.contains("/srv/secret"))
        let object = jsonObject(detail)
        #expect(object["language"] as? String == "en-US")
        let utterances = try #require(object["utterances"] as? [[String: Any]])
        #expect(utterances.map { $0["text"] as? String } == ["utterance 0"])
        #expect(detail.header("Cache-Control") == "no-store")
        #expect(detail.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func traversalInIdsFindsNothing() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        for path in ["/v1/transcripts/../../etc/passwd", "/v1/transcripts/..", "/v1/sessions/../transcripts",
                     "/v1/transcripts/s-t0/../s-t0", "/v1/sessions/s/../s/transcripts", "/v1/transcripts/\u{0}s-t0"] {
            let response = fixture.get(path, token: fixture.aliceToken)
            #expect(response.status == 404, "\(path)")
            #expect(!response.text.contains("root:"), "\(path)")
            #expect(!response.text.contains("utterance"), "\(path)")
        }
    }

    @Test func storeFailuresAreStoreUnavailable() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        fixture.store.close()
        let response = fixture.get("/v1/sessions/s/transcripts", token: fixture.aliceToken)
        #expect(response.status == 503)
        #expect(errorCode(response) == "store_unavailable")
    }
}
