import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// What `audiograph serve` refuses, and that it says nothing more than the error: no token, a wrong, malformed
/// or revoked token, another user's sessions and transcripts, path traversal (plain and percent-encoded),
/// oversized and malformed query values, malformed requests and a 1 MB header.
@Suite("Serve: security on 127.0.0.1")
struct ServeSecurityTests {
    @Test("tokens: none, wrong, malformed, another's id with a wrong secret, no scheme, other schemes; lowercase bearer works")
    func tokens() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 3)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let url = server.url("/v1/sessions/standup/transcripts")
            let alice = fixture.aliceToken
            var flipped = alice
            let last = flipped.removeLast()
            flipped.append(last == "0" ? "1" : "0")
            let bobID = String(fixture.bobToken.dropFirst(4).prefix(16))
            let aliceSecret = String(alice.suffix(64))

            let missing: [(String?, String)] = [
                (nil, "no header"), ("", "empty"), (alice, "the token without a scheme"), ("Bearer", "the scheme alone"),
                ("Bearer ", "the scheme and a space"), ("Basic YWxpY2U6cGFzc3dvcmQ=", "Basic"), ("Token \(alice)", "another scheme"),
                ("Bearer" + alice, "no space after the scheme"),
            ]
            for (authorization, what) in missing {
                let answer: ServeReply
                if let authorization {
                    answer = try await ServeHTTP.request(url, authorization: authorization)
                } else {
                    answer = try await ServeHTTP.get(url)
                }
                expectAPIError(answer, status: 401, code: "missing_token", leaks: fixture.aliceLeaks, what)
            }
            // A token in the query string is not a token.
            let inQuery = try await ServeHTTP.get(url + "?access_token=\(alice)")
            expectAPIError(inQuery, status: 401, code: "missing_token", leaks: fixture.aliceLeaks, "token in the query")

            let invalid: [(String, String)] = [
                ("Bearer nope", "not a token"), ("Bearer \(flipped)", "one digit changed"),
                ("Bearer agt_\(bobID)_\(aliceSecret)", "bob's id with alice's secret"),
                ("Bearer \(alice.uppercased())", "upper-cased"), ("Bearer \(alice)x", "a character more"),
                ("Bearer \(alice.dropLast())", "a character less"), ("Bearer agt_\(bobID)_", "an id alone"),
                ("Bearer \(String(repeating: "a", count: 4000))", "4000 bytes"),
            ]
            for (authorization, what) in invalid {
                let reply = try await ServeHTTP.request(url, authorization: authorization)
                expectAPIError(reply, status: 401, code: "invalid_token", leaks: fixture.aliceLeaks, what)
            }
            for authorization in ["bearer \(alice)", "BEARER \(alice)", "Bearer  \(alice)", "Bearer \(alice) "] {
                let reply = try await ServeHTTP.request(url, authorization: authorization)
                #expect(reply.status == 200, "\(authorization): \(reply)")
            }
        }
    }

    @Test("a revoked user's token fails on the next request after `audiograph tokens revoke`; a new token works at once")
    func revokeWhileServing() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 4)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let url = server.url("/v1/calls")
            #expect(try await ServeHTTP.get(url, token: fixture.bobToken).status == 200)
            // A token made while the server runs works on the next request.
            let created = try await Harness.audiograph(["tokens", "create", "--user", "bob", "--store", fixture.storePath], in: dir)
            #expect(created.status == 0, "\(created)")
            let second = try #require(created.stdoutLines.last?.split(separator: " ").last.map(String.init))
            #expect(try await ServeHTTP.get(url, token: second).status == 200)

            let revoked = try await Harness.audiograph(["tokens", "revoke", "--user", "bob", "--store", fixture.storePath], in: dir)
            #expect(revoked.status == 0 && revoked.stdout == "revoked 2 tokens of bob\n", "\(revoked)")
            for token in [fixture.bobToken, second] {
                let reply = try await ServeHTTP.get(url, token: token)
                expectAPIError(reply, status: 401, code: "invalid_token", leaks: [ServeFixture.secretText] + fixture.secretTids)
                let transcript = try await ServeHTTP.get(server.url("/v1/transcripts/\(fixture.secretTids[0])"), token: token)
                expectAPIError(transcript, status: 401, code: "invalid_token", leaks: [ServeFixture.secretText])
            }
            // Revoking bob leaves alice alone.
            #expect(try await ServeHTTP.get(url, token: fixture.aliceToken).status == 200)
        }
    }

    @Test("another user's session and transcript answer 404 exactly like ones that do not exist")
    func otherUsersData() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 14)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let alice = fixture.aliceToken
            // bob reads his own.
            let own = try await ServeHTTP.get(server.url("/v1/sessions/secret/transcripts"), token: fixture.bobToken)
            #expect(try own.status == 200 && pageTids(own) == fixture.secretTids, "\(own)")
            let ownTranscript = try await ServeHTTP.get(server.url("/v1/transcripts/\(fixture.secretTids[0])"), token: fixture.bobToken)
            #expect(ownTranscript.status == 200 && ownTranscript.text.contains(ServeFixture.secretText), "\(ownTranscript)")

            for query in ["", "?page=1", "?limit=1000", "?after=0", "?page=2&limit=1"] {
                let theirs = try await ServeHTTP.get(server.url("/v1/sessions/secret/transcripts" + query), token: alice)
                let nothing = try await ServeHTTP.get(server.url("/v1/sessions/no-such-session/transcripts" + query), token: alice)
                expectAPIError(theirs, status: 404, code: "not_found", leaks: fixture.aliceLeaks, "bob's session\(query)")
                #expect(theirs.body == nothing.body, "the same body as a session that does not exist\n\(theirs)\n\(nothing)")
                #expect(theirs.headers.filter { $0.key != "date" } == nothing.headers.filter { $0.key != "date" })
            }
            for tid in fixture.secretTids {
                let theirs = try await ServeHTTP.get(server.url("/v1/transcripts/\(tid)"), token: alice)
                let nothing = try await ServeHTTP.get(server.url("/v1/transcripts/\(tid)-nope"), token: alice)
                expectAPIError(theirs, status: 404, code: "not_found", leaks: fixture.aliceLeaks, "bob's transcript \(tid)")
                #expect(theirs.body == nothing.body, "the same body as a transcript that does not exist\n\(theirs)\n\(nothing)")
                #expect(theirs.headers.filter { $0.key != "date" } == nothing.headers.filter { $0.key != "date" })
                let head = try await ServeHTTP.request(server.url("/v1/transcripts/\(tid)"), method: "HEAD", token: alice)
                #expect(head.status == 404 && head.body.isEmpty)
            }
            // Nor do the lists mention bob's session.
            for path in ["/v1/calls", "/v1/calls?hasTranscriptions=true", "/v1/calls?limit=1000&after=0", "/v1/live",
                         "/v1/sessions/shared/transcripts"] {
                let reply = try await ServeHTTP.get(server.url(path), token: alice)
                #expect(reply.status == 200, "\(path): \(reply)")
                expectNoLeaks(reply, fixture.aliceLeaks + ["\"secret\"", "board"], path)
            }
            let captions = try await ServeHTTP.get(server.url("/v1/sessions/secret/captions"), token: alice)
            expectAPIError(captions, status: 404, code: "not_found", leaks: fixture.aliceLeaks)
        }
    }

    /// Raw request targets (sent as they are, never normalized by a client) and what they must answer with
    /// alice's token: nothing outside the API, nothing of bob's.
    static let traversals: [(target: String, status: Int, code: String)] = [
        ("/../../../../etc/passwd", 404, "not_found"),
        ("/v1/../../../etc/passwd", 404, "not_found"),
        ("/v1/transcripts/../../etc/passwd", 404, "not_found"),
        ("/v1/transcripts/..%2f..%2f..%2fetc%2fpasswd", 404, "not_found"),
        ("/v1/transcripts/%2e%2e%2f%2e%2e%2fetc%2fpasswd", 404, "not_found"),
        ("/v1/transcripts/%252e%252e%252fetc%252fpasswd", 404, "not_found"),
        ("/v1/transcripts/..", 404, "not_found"),
        ("/v1/transcripts/%2e%2e", 404, "not_found"),
        ("/v1/transcripts/..%5c..%5cetc%5cpasswd", 404, "not_found"),
        ("/v1/transcripts/standup-000/../secret-3", 404, "not_found"),
        ("/v1/transcripts/standup-000%2f..%2fsecret-3", 404, "not_found"),
        ("/v1/transcripts/secret-3", 404, "not_found"),
        ("/v1/transcripts/secret-3%20", 404, "not_found"),
        ("/v1/transcripts/%73ecret-3", 404, "not_found"),
        ("/v1/sessions/../transcripts", 404, "not_found"),
        ("/v1/sessions/..%2fsecret/transcripts", 404, "not_found"),
        ("/v1/sessions/standup%2f..%2fsecret/transcripts", 404, "not_found"),
        ("/v1/sessions/standup/../secret/transcripts", 404, "not_found"),
        ("/v1/sessions/%2e%2e/transcripts", 404, "not_found"),
        ("/v1/sessions/%73ecret/transcripts", 404, "not_found"),
        ("/v1/sessions/secret%00/transcripts", 404, "not_found"),
        ("/v1/sessions/..%2f..%2fstore%2ftranscripts.sqlite/transcripts", 404, "not_found"),
        ("/v1/sessions/%2e%2e%2f%2e%2e%2fetc%2fpasswd/captions", 404, "not_found"),
        ("/app.js/../../../../etc/passwd", 404, "not_found"),
        ("/app.js%2f..%2f..%2fetc%2fpasswd", 404, "not_found"),
        ("/%2e%2e/%2e%2e/%2e%2e/etc/passwd", 404, "not_found"),
        ("/store/transcripts.sqlite", 404, "not_found"),
        ("/transcripts.sqlite", 404, "not_found"),
        ("//etc/passwd", 404, "not_found"),
        ("/.%2e/.%2e/etc/passwd", 404, "not_found"),
        ("/v1/transcripts/%00", 404, "not_found"),
        ("/v1/sessions//transcripts", 400, "session_id_missing"),
    ]

    @Test("path traversal and encoded traversal in ids: 404 (or 400), the error JSON only")
    func traversal() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 4)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            for (target, status, code) in Self.traversals {
                let reply = try await ServeRawHTTP.get(port: server.port, target, token: fixture.aliceToken)
                expectAPIError(reply, status: status, code: code, leaks: fixture.aliceLeaks + ["root:"], target)
                // Without a token: 401 under /v1, 404 elsewhere, never data.
                let anonymous = try await ServeRawHTTP.get(port: server.port, target)
                if target.hasPrefix("/v1/") {
                    expectAPIError(anonymous, status: 401, code: "missing_token", leaks: fixture.aliceLeaks, target)
                } else {
                    expectAPIError(anonymous, status: 404, code: "not_found", leaks: fixture.aliceLeaks, target)
                }
            }
        }
    }

    @Test("oversized and malformed query values: 400 bad_parameter, the value not echoed when long")
    func badQueryValues() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 4)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let long8K = String(repeating: "9", count: 8 * 1024)
            let long20K = String(repeating: "1", count: 20 * 1024)
            let values = ["limit=\(long8K)", "page=\(long20K)", "after=\(long8K)", "limit=%ff%fe", "limit=%EF%BC%91",
                          "page=%00", "page=1%20", "page=%201", "limit=--1", "limit=1,2", "page=1;2", "page=%2B%2B1",
                          "after=9223372036854775808", "page=-9223372036854775809", "limit=%22%3E%3Cscript%3E",
                          "limit=5&limit=5", "page=\(String(repeating: "0", count: 33))1"]
            for value in values {
                for path in ["/v1/sessions/standup/transcripts", "/v1/calls"] {
                    let reply = try await ServeRawHTTP.get(port: server.port, "\(path)?\(value)", token: fixture.aliceToken)
                    expectAPIError(reply, status: 400, code: "bad_parameter", leaks: fixture.aliceLeaks, "\(path)?\(value.prefix(60))")
                    #expect(reply.body.count < 300, "a long value is not echoed back: \(reply.body.count) bytes")
                }
            }
            // Past libmicrohttpd's per-connection memory a request line is refused before the API sees it (414).
            let huge = try await ServeRawHTTP.get(port: server.port, "/v1/calls?limit=\(String(repeating: "1", count: 100_000))",
                                                  token: fixture.aliceToken)
            #expect(huge.status == 414, "\(huge)")
            expectNoLeaks(huge, fixture.aliceLeaks)
            #expect(try await ServeHTTP.get(server.url("/health")).status == 200, "still serving")
        }
    }

    @Test("a NUL in a query value or an id is refused, not cut short (bad_parameter / not_found)")
    func nulInValues() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 4)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            // "5\0junk" is not a number: the contract's bad_parameter, not a page of 5.
            for target in ["/v1/sessions/standup/transcripts?limit=5%00junk", "/v1/calls?page=1%00x",
                           "/v1/calls?hasTranscriptions=true%00false"] {
                let reply = try await ServeRawHTTP.get(port: server.port, target, token: fixture.aliceToken)
                expectAPIError(reply, status: 400, code: "bad_parameter", leaks: fixture.aliceLeaks, target)
            }
            // There is no transcript "standup-000\0junk": not found, not standup-000.
            let reply = try await ServeRawHTTP.get(port: server.port, "/v1/transcripts/standup-000%00junk", token: fixture.aliceToken)
            expectAPIError(reply, status: 404, code: "not_found", leaks: fixture.aliceLeaks, "tid with a NUL")
        }
    }

    @Test("a 1 MB header, many headers, a 1 MB token: 431 from libmicrohttpd, nothing else; the server goes on")
    func hugeHeaders() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 4)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let megabyte = String(repeating: "a", count: 1 << 20)
            let many = (0..<2000).map { "X-Filler-\($0): \(String(repeating: "b", count: 100))\r\n" }.joined()
            for (what, headers, token) in [("a 1 MB header", "X-Junk: \(megabyte)\r\n", fixture.aliceToken),
                                           ("2000 headers", many, fixture.aliceToken),
                                           ("a 1 MB token", "Authorization: Bearer \(megabyte)\r\n", nil)] {
                let request = "GET /v1/sessions/standup/transcripts HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (token.map { "Authorization: Bearer \($0)\r\n" } ?? "") + headers + "\r\n"
                let (reply, raw) = try await ServeRawHTTP.exchange(port: server.port, request)
                let answer = try #require(reply, "\(what): no answer (\(raw.count) bytes)")
                #expect(answer.status == 431, "\(what): \(answer)")
                #expect(!answer.text.contains("standup-"), "\(what): no data")
                expectNoLeaks(answer, fixture.aliceLeaks, what)
            }
            #expect(try await ServeHTTP.get(server.url("/health")).status == 200, "still serving")
            #expect(try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.aliceToken).status == 200)
        }
    }

    @Test("malformed requests: refused by libmicrohttpd (400/505) or closed, never answered with data; the server goes on")
    func malformedRequests() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 4)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let auth = "Authorization: Bearer \(fixture.aliceToken)\r\n"
            let target = "/v1/sessions/standup/transcripts"
            let cases: [(String, String, Set<Int>)] = [
                ("garbage", "GARBAGE\r\n\r\n", [400]),
                ("no version", "GET \(target)\r\n\(auth)\r\n", [400]),
                ("HTTP/9.9", "GET \(target) HTTP/9.9\r\nHost: x\r\n\(auth)Connection: close\r\n\r\n", [505]),
                ("a header without a colon", "GET \(target) HTTP/1.1\r\nHost: x\r\n\(auth)Bad Header\r\nConnection: close\r\n\r\n", [400]),
                ("a bad Content-Length", "GET \(target) HTTP/1.1\r\nHost: x\r\n\(auth)Content-Length: abc\r\nConnection: close\r\n\r\n", [400]),
                ("bad chunked encoding",
                 "GET \(target) HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n", [400]),
                ("a space in the target", "GET /v1/sessions/stand up/transcripts HTTP/1.1\r\nHost: x\r\n\(auth)Connection: close\r\n\r\n",
                 [400, 404]),
                ("binary", "\u{01}\u{02}\u{03}\u{7f}\r\n\r\n", [400]),
            ]
            for (what, request, statuses) in cases {
                let (reply, raw) = try await ServeRawHTTP.exchange(port: server.port, request)
                if let reply {
                    #expect(statuses.contains(reply.status), "\(what): \(reply)")
                    #expect(!reply.text.contains("standup-"), "\(what): no data\n\(reply)")
                    expectNoLeaks(reply, fixture.aliceLeaks, what)
                } else {
                    // Closed without an answer: acceptable for bytes that are not HTTP at all.
                    #expect(raw.isEmpty, "\(what): \(String(decoding: raw, as: UTF8.self))")
                }
            }
            #expect(try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.aliceToken).status == 200, "still serving")
        }
    }
}
