import AudioGraph
import Foundation
import Testing

/// `TranscriptsAPI.handle` called directly: routes, authentication, paging and the JSON of docs/http-api.md.
@Suite struct APIRoutingTests {
    @Test func healthAndPageNeedNoToken() throws {
        let fixture = try APIFixture()
        let health = fixture.get("/health", token: nil)
        #expect(health.status == 200)
        #expect(jsonObject(health)["status"] as? String == "ok")
        for (path, type) in [("/", "text/html"), ("/app.js", "javascript"), ("/app.css", "text/css")] {
            let page = fixture.get(path, token: nil)
            #expect(page.status == 200, "\(path)")
            #expect(page.header("Content-Type")?.contains(type) == true, "\(path)")
            #expect(page.header("Content-Security-Policy")?.contains("default-src 'self'") == true, "\(path)")
        }
    }

    @Test func everyV1RouteNeedsAToken() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        for path in ["/v1/calls", "/v1/live", "/v1/sessions/s/transcripts", "/v1/transcripts/s-t0", "/v1/sessions/s/captions",
                     "/v1/nothing"] {
            let response = fixture.get(path, token: nil)
            #expect(response.status == 401, "\(path)")
            #expect(errorCode(response) == "missing_token", "\(path)")
            #expect(response.header("WWW-Authenticate") == "Bearer")
        }
    }

    @Test func authorizationHeaderForms() throws {
        let fixture = try APIFixture()
        func status(_ header: String) -> (Int, String?) {
            let response = fixture.api.handle(HTTPRequest(path: "/v1/live", headers: ["authorization": header]))
            return (response.status, response.status == 200 ? nil : errorCode(response))
        }
        #expect(status("Bearer \(fixture.aliceToken)") == (200, nil))
        #expect(status("bearer \(fixture.aliceToken)") == (200, nil))
        #expect(status("Basic \(fixture.aliceToken)") == (401, "missing_token"))
        #expect(status(fixture.aliceToken) == (401, "missing_token"))
        #expect(status("Bearer ") == (401, "missing_token"))
        #expect(status("Bearer agt_nope") == (401, "invalid_token"))
        // The right id with another secret.
        let forged = String(fixture.aliceToken.dropLast()) + (fixture.aliceToken.hasSuffix("0") ? "1" : "0")
        #expect(status("Bearer \(forged)") == (401, "invalid_token"))
    }

    @Test func revokedTokensAreRefusedAtOnce() throws {
        let fixture = try APIFixture()
        #expect(fixture.get("/v1/live", token: fixture.bobToken).status == 200)
        #expect(try fixture.tokens.revoke(user: "bob") == 1)
        let response = fixture.get("/v1/live", token: fixture.bobToken)
        #expect(response.status == 401)
        #expect(errorCode(response) == "invalid_token")
        #expect(fixture.get("/v1/live", token: fixture.aliceToken).status == 200)
    }

    @Test func onlyGetAndHeadAreAllowed() throws {
        let fixture = try APIFixture()
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            let response = fixture.get("/v1/calls", token: fixture.aliceToken, method: method)
            #expect(response.status == 405, "\(method)")
            #expect(errorCode(response) == "method_not_allowed")
        }
        #expect(fixture.get("/v1/calls", token: fixture.aliceToken, method: "HEAD").status == 200)
    }

    @Test func unknownPathsAreNotFound() throws {
        let fixture = try APIFixture()
        for path in ["/v2/calls", "/v1", "/v1/", "/v1/sessions", "/v1/sessions/s", "/v1/sessions/s/transcripts/x",
                     "/v1/transcripts", "/v1/transcripts/a/b", "/etc/passwd", "/../../etc/passwd", "/app.js/x"] {
            let response = fixture.get(path, token: fixture.aliceToken)
            #expect(response.status == 404, "\(path)")
            #expect(errorCode(response) == "not_found", "\(path)")
        }
    }

    @Test func transcriptPagesByNumberAndByCursorAreTheSamePages() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 25)
        try fixture.addSession("other", participants: ["alice"], transcripts: 3)
        try fixture.addSession("s", participants: ["alice"], transcripts: 2)  // a second run of the same session id
        let all = fixture.tids["s"]!
        #expect(all.count == 27)
        var byNumber: [[String]] = []
        for page in 1...4 {
            let response = fixture.get("/v1/sessions/s/transcripts", query: [("page", "\(page)"), ("limit", "10")],
                                       token: fixture.aliceToken)
            #expect(response.status == 200)
            #expect(jsonObject(response)["page"] as? Int == page)
            #expect(jsonObject(response)["sessionId"] as? String == "s")
            byNumber.append(pageTIDs(response))
        }
        #expect(byNumber == [Array(all[0..<10]), Array(all[10..<20]), Array(all[20..<27]), []])
        var byCursor: [[String]] = []
        var cursor: String?
        repeat {
            let response = fixture.get("/v1/sessions/s/transcripts", query: [("limit", "10")] + (cursor.map { [("after", $0)] } ?? []),
                                       token: fixture.aliceToken)
            cursor = jsonObject(response)["nextCursor"] as? String
            if cursor != nil { byCursor.append(pageTIDs(response)) }
        } while cursor != nil
        #expect(byCursor == Array(byNumber.prefix(3)))
    }

    @Test func limitDefaultsTo30AndIsClamped() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 35)
        func count(_ query: [(String, String)]) -> (Int, Int?) {
            let response = fixture.get("/v1/sessions/s/transcripts", query: query, token: fixture.aliceToken)
            return (pageTIDs(response).count, jsonObject(response)["limit"] as? Int)
        }
        #expect(count([]) == (30, 30))
        #expect(count([("limit", "0")]) == (1, 1))
        #expect(count([("limit", "-7")]) == (1, 1))
        #expect(count([("limit", "5000")]) == (35, 1000))
    }

    @Test func badParameters() throws {
        let fixture = try APIFixture()
        try fixture.addSession("s", participants: ["alice"], transcripts: 1)
        let bad: [[(String, String)]] = [
            [("page", "abc")], [("page", "0")], [("page", "-1")], [("page", "1.5")], [("page", "99999999999")],
            [("limit", "ten")], [("limit", "")], [("after", "x")], [("page", "1"), ("after", "3")],
            [("page", "1"), ("page", "2")], [("limit", String(repeating: "9", count: 40))],
        ]
        for query in bad {
            let response = fixture.get("/v1/sessions/s/transcripts", query: query, token: fixture.aliceToken)
            #expect(response.status == 400, "\(query)")
            #expect(errorCode(response) == "bad_parameter", "\(query)")
        }
        let calls = fixture.get("/v1/calls", query: [("hasTranscriptions", "yes")], token: fixture.aliceToken)
        #expect(errorCode(calls) == "bad_parameter")
    }

    @Test func emptySessionIDIsSessionIDMissing() throws {
        let fixture = try APIFixture()
        for path in ["/v1/sessions//transcripts", "/v1/sessions/ /transcripts", "/v1/sessions//captions"] {
            let response = fixture.get(path, token: fixture.aliceToken)
            #expect(response.status == 400, "\(path)")
            #expect(errorCode(response) == "session_id_missing", "\(path)")
        }
    }
}
