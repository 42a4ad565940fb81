import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Every endpoint of docs/http-api.md against a real `audiograph serve` on 127.0.0.1, over a store filled for
/// two users (`ServeFixture`): the page and its files, paging (the same pages as the local
/// `TranscriptsRequest`), one transcript, calls, live sessions, HEAD, and every error code.
@Suite("Serve: HTTP API on 127.0.0.1")
struct ServeAPITests {
    @Test("/health, / , /app.js, /app.css: no token, their content types, a Content-Security-Policy")
    func pageAndHealth() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let health = try await ServeHTTP.get(server.url("/health"))
            #expect(health.status == 200, "\(health)")
            #expect(health.header("Content-Type") == "application/json; charset=utf-8")
            let object = try health.json()
            #expect(Set(object.keys) == ["status", "version"] && object["status"] as? String == "ok", "\(health)")
            #expect(object["version"] as? String == AudioGraphVersion.current)

            let csp = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
            for (path, type, marker) in [("/", "text/html; charset=utf-8", "<!doctype html>"),
                                         ("/app.js", "text/javascript; charset=utf-8", "fetch("),
                                         ("/app.css", "text/css; charset=utf-8", "{")] {
                let reply = try await ServeHTTP.get(server.url(path))
                #expect(reply.status == 200, "\(path): \(reply)")
                #expect(reply.header("Content-Type") == type, "\(path): \(reply)")
                #expect(reply.header("Content-Security-Policy") == csp, "\(path): \(reply)")
                #expect(reply.header("X-Frame-Options") == "DENY", "\(path)")
                #expect(reply.header("X-Content-Type-Options") == "nosniff", "\(path)")
                #expect(reply.text.contains(marker), "\(path)")
                // A token is not needed, and a wrong one does not matter.
                let withBadToken = try await ServeHTTP.get(server.url(path), token: "agt_nope")
                #expect(withBadToken.status == 200 && withBadToken.body == reply.body, "\(path)")
            }
            // The page references only its own files.
            let page = try await ServeHTTP.get(server.url("/"))
            #expect(page.text.contains("src=\"/app.js\"") && page.text.contains("href=\"/app.css\""))
            #expect(!page.text.contains("<script>"), "no inline script under the CSP")
        }
    }

    @Test("transcripts: page= and after= give the same pages as the local TranscriptsRequest (73 rows, limit 10)")
    func pagingMatchesLocalCursor() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir)
        let local = try await fixture.localPages(session: "standup", limit: 10)
        #expect(local.count == 8 && local.last?.count == 3 && local.joined().count == 73)
        #expect(Array(local.joined()) == fixture.standupTids)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let token = fixture.aliceToken
            // page=1…8, and page 9 is empty.
            var numbered: [[String]] = []
            for page in 1...9 {
                let reply = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts?page=\(page)&limit=10"), token: token)
                #expect(reply.status == 200, "\(reply)")
                let object = try reply.json()
                #expect(object["sessionId"] as? String == "standup" && object["page"] as? Int == page && object["limit"] as? Int == 10)
                let tids = try pageTids(reply)
                if tids.isEmpty {
                    #expect(object["nextCursor"] is NSNull, "an empty page has a null cursor: \(reply)")
                    break
                }
                #expect(object["nextCursor"] is String, "\(reply)")
                numbered.append(tids)
            }
            #expect(numbered == local, "page= pages")

            // The cursor walk: no position, then after=nextCursor until an empty page.
            var walked: [[String]] = []
            var target = "/v1/sessions/standup/transcripts?limit=10"
            for _ in 0..<20 {
                let reply = try await ServeHTTP.get(server.url(target), token: token)
                #expect(reply.status == 200, "\(reply)")
                let object = try reply.json()
                let tids = try pageTids(reply)
                if tids.isEmpty {
                    #expect(object["nextCursor"] is NSNull && object["page"] is NSNull, "\(reply)")
                    break
                }
                walked.append(tids)
                let cursor = try #require(object["nextCursor"] as? String, "\(reply)")
                target = "/v1/sessions/standup/transcripts?limit=10&after=\(cursor)"
            }
            #expect(walked == local, "after= pages")

            // Every record as served: the SDK's fields, transcriptUrl on this server, no path of the server's disk.
            let first = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts?limit=2"), token: token)
            let records = try #require(try first.json()["transcripts"] as? [[String: Any]])
            #expect(Set(records[0].keys) == ["tid", "mid", "roomName", "startTime", "endTime", "url", "transcriptDate",
                                             "transcriptUrl", "metaData"], "\(first)")
            #expect(records[0]["mid"] as? String == "standup" && records[0]["roomName"] as? String == "daily")
            #expect(records[0]["url"] as? String == "https://meet.example/standup")
            #expect(records[0]["startTime"] as? Int == Int(ServeFixture.base) && records[0]["endTime"] as? Int == Int(ServeFixture.base) + 5)
            #expect(records[0]["transcriptDate"] as? String == "2025-11-29T15:26:40Z")
            #expect(records[0]["transcriptUrl"] as? String == server.url("/v1/transcripts/standup-000"))
            #expect(first.header("Cache-Control") == "no-store" && first.header("X-Content-Type-Options") == "nosniff")
            expectNoLeaks(first, [dir.path])

            // The records decode as the library's TranscriptRecord.
            struct Page: Decodable { var transcripts: [TranscriptRecord] }
            let decoded = try first.decode(Page.self)
            #expect(decoded.transcripts.map(\.tid) == ["standup-000", "standup-001"])
        }
    }

    @Test("limit: default 30, clamped to 1…1000 (0 → 1, 5000 → 1000, -5 → 1); pages past the end are empty")
    func limits() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            for (query, limit, count) in [("", 30, 30), ("?limit=0", 1, 1), ("?limit=5000", 1000, 73), ("?limit=-5", 1, 1),
                                          ("?limit=1000", 1000, 73), ("?page=3", 30, 13), ("?page=4", 30, 0),
                                          ("?page=10000000&limit=1000", 1000, 0), ("?limit=7&page=11", 7, 3)] {
                let reply = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts" + query), token: fixture.aliceToken)
                #expect(reply.status == 200, "\(query): \(reply)")
                #expect(try reply.json()["limit"] as? Int == limit, "\(query): \(reply)")
                #expect(try pageTids(reply).count == count, "\(query)")
            }
            // The default page is the local default page.
            let local = try await fixture.localPages(session: "standup", limit: 30)
            let first = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts"), token: fixture.aliceToken)
            #expect(try pageTids(first) == local.first)
            #expect(try first.json()["page"] as? Int == 1)
            // A session alice took part in with no transcripts: an empty page, not an error.
            let quiet = try await ServeHTTP.get(server.url("/v1/sessions/quiet/transcripts"), token: fixture.aliceToken)
            #expect(try quiet.status == 200 && pageTids(quiet).isEmpty, "\(quiet)")
        }
    }

    @Test("transcripts/{tid}: the record, language and utterances; transcriptUrl points at this server and works")
    func transcriptDetail() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let reply = try await ServeHTTP.get(server.url("/v1/transcripts/standup-000"), token: fixture.aliceToken)
            #expect(reply.status == 200, "\(reply)")
            let object = try reply.json()
            #expect(Set(object.keys) == ["tid", "mid", "roomName", "startTime", "endTime", "url", "transcriptDate",
                                         "transcriptUrl", "metaData", "language", "utterances"], "\(reply)")
            #expect(object["tid"] as? String == "standup-000" && object["language"] as? String == "en-US")
            #expect(object["transcriptUrl"] as? String == server.url("/v1/transcripts/standup-000"))
            let utterances = try #require(object["utterances"] as? [[String: Any]])
            #expect(utterances.map { $0["text"] as? String } == ["update number 0", "go forward ten meters"])
            #expect(utterances.map { $0["segment"] as? Int } == [1, 2])
            #expect(utterances[0]["start"] as? Double == 0.5 && utterances[0]["end"] as? Double == 2.25)
            #expect(utterances[0]["confidence"] as? Double == 0.9)
            let words = try #require(utterances[0]["words"] as? [[String: Any]])
            #expect(words.map { $0["word"] as? String } == ["update"])
            expectNoLeaks(reply, [dir.path])
            let detail = try reply.decode(TranscriptDetail.self)
            #expect(detail.utterances.count == 2 && detail.record.mid == "standup")

            // Every transcriptUrl of a page leads to its transcript, also a tid that needs percent-encoding.
            let shared = try await ServeHTTP.get(server.url("/v1/sessions/shared/transcripts"), token: fixture.aliceToken)
            let records = try #require(try shared.json()["transcripts"] as? [[String: Any]])
            #expect(records.map { $0["tid"] as? String } == fixture.sharedTids)
            #expect(records.first?["transcriptUrl"] as? String == server.url("/v1/transcripts/shared%20one"))
            for record in records {
                let url = try #require(record["transcriptUrl"] as? String)
                #expect(url.hasPrefix(server.baseURL + "/v1/transcripts/"))
                let followed = try await ServeHTTP.get(url, token: fixture.bobToken)
                #expect(followed.status == 200, "\(url): \(followed)")
                #expect(try followed.json()["tid"] as? String == record["tid"] as? String)
            }
        }
    }

    @Test("calls: the user's sessions, newest last; hasTranscriptions=true: the transcribed ones with their transcripts")
    func calls() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let all = try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.aliceToken)
            #expect(all.status == 200, "\(all)")
            let object = try all.json()
            #expect(Set(object.keys) == ["page", "limit", "nextCursor", "calls"], "\(all)")
            #expect(object["page"] as? Int == 1 && object["limit"] as? Int == 30)
            let calls = try #require(object["calls"] as? [[String: Any]])
            #expect(calls.map { $0["mid"] as? String } == ["standup", "shared", "quiet"], "alice's sessions only")
            #expect(calls.map { $0["hasTranscriptions"] as? Bool } == [true, true, false])
            #expect(calls.map { ($0["transcripts"] as? [Any])?.count } == [0, 0, 0], "no transcripts without the filter")
            #expect(Set(calls[0].keys) == ["mid", "roomName", "startTime", "endTime", "url", "hasTranscriptions", "transcripts",
                                           "metaData"])
            #expect(calls[0]["endTime"] as? Int == Int(ServeFixture.base) + 73 * 60 && calls[2]["endTime"] as? Int == 0)
            expectNoLeaks(all, fixture.aliceLeaks)

            for query in ["?hasTranscriptions=true", "?hasTranscriptions=1"] {
                let transcribed = try await ServeHTTP.get(server.url("/v1/calls" + query), token: fixture.aliceToken)
                #expect(transcribed.status == 200, "\(transcribed)")
                struct Page: Decodable { var calls: [CallLogRecord] }
                let page = try transcribed.decode(Page.self)
                #expect(page.calls.map(\.mid) == ["standup", "shared"])
                #expect(page.calls.map { $0.transcripts.map(\.tid) } == [fixture.standupTids, fixture.sharedTids])
                #expect(page.calls.flatMap(\.transcripts).allSatisfy { $0.transcriptUrl.hasPrefix(server.baseURL + "/v1/transcripts/") })
                expectNoLeaks(transcribed, fixture.aliceLeaks)
            }
            let unfiltered = try await ServeHTTP.get(server.url("/v1/calls?hasTranscriptions=false"), token: fixture.aliceToken)
            #expect(try (unfiltered.json()["calls"] as? [[String: Any]])?.count == 3)

            // Paging calls: page= and the after= walk agree.
            var byPage: [String] = []
            for page in 1...4 {
                let reply = try await ServeHTTP.get(server.url("/v1/calls?limit=1&page=\(page)"), token: fixture.aliceToken)
                byPage += (try reply.json()["calls"] as? [[String: Any]] ?? []).compactMap { $0["mid"] as? String }
            }
            var byCursor: [String] = []
            var target = "/v1/calls?limit=1"
            for _ in 0..<6 {
                let reply = try await ServeHTTP.get(server.url(target), token: fixture.aliceToken)
                let object = try reply.json()
                let mids = (object["calls"] as? [[String: Any]] ?? []).compactMap { $0["mid"] as? String }
                if mids.isEmpty { break }
                byCursor += mids
                target = "/v1/calls?limit=1&after=\(try #require(object["nextCursor"] as? String))"
            }
            #expect(byPage == ["standup", "shared", "quiet"] && byCursor == byPage)

            // bob sees his own and the shared one.
            let bob = try await ServeHTTP.get(server.url("/v1/calls?hasTranscriptions=true"), token: fixture.bobToken)
            #expect(try (bob.json()["calls"] as? [[String: Any]])?.map { $0["mid"] as? String } == ["secret", "shared"])
        }
    }

    @Test("live: empty when nothing runs; HEAD answers the head of GET without a body")
    func liveAndHead() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let live = try await ServeHTTP.get(server.url("/v1/live"), token: fixture.aliceToken)
            #expect(live.status == 200 && live.text == #"{"user":"alice","sessions":[]}"#, "\(live)")

            for path in ["/v1/sessions/standup/transcripts?limit=5", "/v1/calls", "/v1/transcripts/standup-001", "/health", "/"] {
                let get = try await ServeHTTP.get(server.url(path), token: fixture.aliceToken)
                let head = try await ServeHTTP.request(server.url(path), method: "HEAD", token: fixture.aliceToken)
                #expect(head.status == 200 && head.body.isEmpty, "\(path): \(head)")
                #expect(head.header("Content-Type") == get.header("Content-Type"), "\(path)")
                #expect(head.header("Content-Length") == String(get.body.count), "\(path): \(head)")
            }
            let unauthorized = try await ServeHTTP.request(server.url("/v1/calls"), method: "HEAD")
            #expect(unauthorized.status == 401 && unauthorized.body.isEmpty, "\(unauthorized)")
            let missing = try await ServeHTTP.request(server.url("/v1/transcripts/nope"), method: "HEAD", token: fixture.aliceToken)
            #expect(missing.status == 404 && missing.body.isEmpty, "\(missing)")
            // No live session: HEAD of captions is a 404 like GET.
            let captions = try await ServeHTTP.request(server.url("/v1/sessions/standup/captions"), method: "HEAD",
                                                       token: fixture.aliceToken)
            #expect(captions.status == 404, "\(captions)")
        }
    }

    /// Requests that must fail with alice's token, with the status and code the contract gives.
    static let errorCases: [(target: String, status: Int, code: String)] = [
        // bad_parameter: every bad value
        ("/v1/sessions/standup/transcripts?limit=ten", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=1.5", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=1e3", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=0x10", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=1&limit=2", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=99999999999999999999", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?limit=" + String(repeating: "1", count: 33), 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page=0", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page=-1", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page=10000001", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page=two", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page=1&page=1", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?after=abc", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?after=1.0", 400, "bad_parameter"),
        ("/v1/sessions/standup/transcripts?page=1&after=5", 400, "bad_parameter"),
        ("/v1/calls?limit=many", 400, "bad_parameter"),
        ("/v1/calls?page=0", 400, "bad_parameter"),
        ("/v1/calls?page=2&after=1", 400, "bad_parameter"),
        ("/v1/calls?hasTranscriptions=yes", 400, "bad_parameter"),
        ("/v1/calls?hasTranscriptions=TRUE", 400, "bad_parameter"),
        ("/v1/calls?hasTranscriptions=", 400, "bad_parameter"),
        ("/v1/calls?hasTranscriptions=true&hasTranscriptions=false", 400, "bad_parameter"),
        // session_id_missing
        ("/v1/sessions//transcripts", 400, "session_id_missing"),
        ("/v1/sessions/%20/transcripts", 400, "session_id_missing"),
        ("/v1/sessions//transcripts?page=2", 400, "session_id_missing"),
        // not_found
        ("/v1/sessions/nope/transcripts", 404, "not_found"),
        ("/v1/sessions/secret/transcripts", 404, "not_found"),
        ("/v1/transcripts/nope", 404, "not_found"),
        ("/v1/transcripts/", 404, "not_found"),
        ("/v1/sessions/nope/captions", 404, "not_found"),
        ("/v1/sessions/standup", 404, "not_found"),
        ("/v1/sessions/standup/transcripts/extra", 404, "not_found"),
        ("/v1", 404, "not_found"),
        ("/v1/", 404, "not_found"),
        ("/v1/nope", 404, "not_found"),
        ("/v2/calls", 404, "not_found"),
        ("/nope", 404, "not_found"),
        ("/health/", 404, "not_found"),
        ("/app.js.map", 404, "not_found"),
    ]

    @Test("every error code: the status, the code, exactly the error JSON")
    func errors() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 12)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            for (target, status, code) in Self.errorCases {
                let reply = try await ServeRawHTTP.get(port: server.port, target, token: fixture.aliceToken)
                expectAPIError(reply, status: status, code: code, leaks: fixture.aliceLeaks, target)
            }
        }
    }

    @Test("missing_token, invalid_token, method_not_allowed (POST, PUT, DELETE, PATCH, OPTIONS, even without a token)")
    func authAndMethodErrors() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 3)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            for path in ["/v1/calls", "/v1/live", "/v1/sessions/standup/transcripts", "/v1/transcripts/standup-000",
                         "/v1/sessions/standup/captions", "/v1/nope"] {
                let none = try await ServeHTTP.get(server.url(path))
                expectAPIError(none, status: 401, code: "missing_token", leaks: fixture.aliceLeaks, path)
                let wrong = try await ServeHTTP.get(server.url(path), token: "agt_0123456789abcdef_" + String(repeating: "0", count: 64))
                expectAPIError(wrong, status: 401, code: "invalid_token", leaks: fixture.aliceLeaks, path)
            }
            for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
                for path in ["/v1/calls", "/v1/transcripts/standup-000", "/", "/health"] {
                    let reply = try await ServeHTTP.request(server.url(path), method: method, token: fixture.aliceToken,
                                                            body: method == "POST" || method == "PUT" ? Data("{\"a\":1}".utf8) : nil)
                    expectAPIError(reply, status: 405, code: "method_not_allowed", leaks: fixture.aliceLeaks, "\(method) \(path)")
                }
                let anonymous = try await ServeHTTP.request(server.url("/v1/calls"), method: method)
                expectAPIError(anonymous, status: 405, code: "method_not_allowed", "\(method) without a token")
            }
            // The data is untouched by those requests.
            let after = try await ServeHTTP.get(server.url("/v1/transcripts/standup-000"), token: fixture.aliceToken)
            #expect(after.status == 200, "\(after)")
        }
    }

    @Test("store_unavailable: the store's tables go away under the running server; 503, and /health still answers")
    func storeUnavailable() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 3)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let before = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts"), token: fixture.aliceToken)
            #expect(before.status == 200, "\(before)")
            // Another process (this one) drops the transcript tables: the server's next reads of them fail. The
            // tokens and sessions tables stay, so authentication still works and the failure is the store's.
            let database = try SQLiteDatabase(path: fixture.storePath, create: false)
            try database.execute("PRAGMA foreign_keys=OFF")
            try database.execute("DROP TABLE utterances")
            try database.execute("DROP TABLE transcripts")
            database.close()
            for path in ["/v1/sessions/standup/transcripts", "/v1/sessions/standup/transcripts?after=1", "/v1/transcripts/standup-000",
                         "/v1/calls?hasTranscriptions=true"] {
                let reply = try await ServeHTTP.get(server.url(path), token: fixture.aliceToken)
                expectAPIError(reply, status: 503, code: "store_unavailable", leaks: fixture.aliceLeaks + [dir.path], path)
            }
            let health = try await ServeHTTP.get(server.url("/health"))
            #expect(health.status == 200, "\(health)")
        }
    }

    @Test("internal: a row that does not parse answers 500 internal with the error JSON only; pages leave it out")
    func internalError() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 3)
        let database = try SQLiteDatabase(path: fixture.storePath, create: false)
        try database.execute("UPDATE transcripts SET start_time = 'yesterday' WHERE tid = 'standup-001'")
        database.close()
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let reply = try await ServeHTTP.get(server.url("/v1/transcripts/standup-001"), token: fixture.aliceToken)
            expectAPIError(reply, status: 500, code: "internal", leaks: fixture.aliceLeaks + [dir.path])
            let page = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts"), token: fixture.aliceToken)
            #expect(try page.status == 200 && pageTids(page) == ["standup-000", "standup-002"], "\(page)")
        }
    }
}
