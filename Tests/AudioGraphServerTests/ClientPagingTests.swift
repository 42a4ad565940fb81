import AudioGraphClient
import AudioGraphStore
import Foundation
import Testing

/// `RemoteTranscriptsRequest`'s paging rules (the same as `TranscriptsRequest`'s) and the requests it sends,
/// against the fake server on 127.0.0.1.
@Suite("RemoteTranscriptsRequest paging")
struct ClientPagingTests {
    typealias F = ClientFixtures

    @Test("each fetch is GET /v1/sessions/{id}/transcripts with limit, after (not on page 1) and the bearer token")
    func requestShape() async throws {
        let (_, server, request) = try F.paging(7)
        defer { server.stop() }
        _ = try await request.fetchNext()
        _ = try await request.fetchNext()
        _ = try await request.fetchPrevious()
        let sent = server.requests
        try #require(sent.count == 3)
        #expect(sent.map(\.method) == ["GET", "GET", "GET"])
        #expect(sent.map(\.path) == Array(repeating: "/v1/sessions/a/transcripts", count: 3))
        #expect(sent[0].query == ["limit": "3"], "no after on page 1")
        #expect(sent[1].query == ["after": "50", "limit": "3"], "the cursor of page 1 (its last key)")
        #expect(sent[2].query == ["limit": "3"], "back to page 1")
        #expect(sent.allSatisfy { $0.headers["authorization"] == "Bearer secret" })
        #expect(sent.allSatisfy { $0.headers["accept"] == "application/json" })
    }

    @Test("the session id is percent-encoded as one path segment",
          arguments: [
              ("team standup/ä?#%", "/v1/sessions/team%20standup%2F%C3%A4%3F%23%25/transcripts"),
              ("..", "/v1/sessions/%2E%2E/transcripts"),
              ("a.b-c_d~e", "/v1/sessions/a.b-c_d~e/transcripts"),
          ])
    func percentEncoding(session: String, path: String) async throws {
        let data = ClientFakeTranscripts()
        data.add(session, 0..<2)
        let server = try ClientTestServer(handler: data.handler)
        defer { server.stop() }
        let request = F.request(F.client(server), session: session)
        #expect(F.tids(try await request.fetchNext()) == F.expected(session, 0..<2))
        #expect(server.requests.map(\.path) == [path])
    }

    @Test("a base URL's path is a prefix of the API paths; the token is sent trimmed")
    func basePathAndToken() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(.http(status: 200, body: #"{"nextCursor":null,"transcripts":[]}"#))
        let client = TranscriptsClient(baseURL: URL(string: "http://127.0.0.1:\(server.port)/audiograph/")!,
                                       bearerToken: " secret\n")
        #expect(try await F.request(client).fetchNext().isEmpty)
        #expect(server.requests.map(\.path) == ["/audiograph/v1/sessions/a/transcripts"])
        #expect(server.requests.first?.headers["authorization"] == "Bearer secret")
    }

    @Test("limit defaults to 30 and is clamped to 1…1000, in the request sent too",
          arguments: [(nil, 30), (0, 1), (-7, 1), (5000, 1000), (1000, 1000), (12, 12)] as [(Int?, Int)])
    func limits(given: Int?, clamped: Int) async throws {
        let data = ClientFakeTranscripts()
        data.add("a", 0..<35)
        let server = try ClientTestServer(handler: data.handler)
        defer { server.stop() }
        let request = F.request(F.client(server), limit: given)
        #expect(request.limit == clamped)
        #expect(try await request.fetchNext().count == min(clamped, 35))
        #expect(server.requests.first?.query["limit"] == String(clamped))
    }

    @Test("fetchNext walks the session's transcripts in order, then gives [] after the last, and finds ones added later")
    func fetchNextWalks() async throws {
        let (data, server, request) = try F.paging(7)
        defer { server.stop() }
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3))
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 3..<6))
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 6..<7))
        #expect(try await request.fetchNext().isEmpty)
        #expect(try await request.fetchNext().isEmpty, "still empty")
        #expect(request.pageNumber == 3)
        #expect(server.requests.suffix(2).allSatisfy { $0.query["after"] == "130" }, "an empty page leaves the cursor in place")
        data.add("a", 7..<8)
        #expect(F.tids(try await request.fetchNext()) == ["a-t7"], "a transcript added later is the next page")
        #expect(request.pageNumber == 4)
    }

    @Test("a full last page is followed by []")
    func exactMultiple() async throws {
        let (_, server, request) = try F.paging(6)
        defer { server.stop() }
        #expect(try await request.fetchNext().count == 3)
        #expect(try await request.fetchNext().count == 3)
        #expect(try await request.fetchNext().isEmpty)
        #expect(request.pageNumber == 2)
    }

    @Test("fetchPrevious: [] without a request on a fresh request and on page 1, else the page before")
    func fetchPrevious() async throws {
        let (_, server, request) = try F.paging(10)
        defer { server.stop() }
        #expect(try await request.fetchPrevious().isEmpty, "fresh")
        #expect(server.requests.isEmpty, "answered without a request")
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3))
        #expect(try await request.fetchPrevious().isEmpty, "on page 1")
        #expect(try await request.fetchPrevious().isEmpty, "still page 1")
        #expect(server.requests.count == 1, "previous on page 1 sends nothing")
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 3..<6), "next after previous-on-page-1 is page 2")
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 6..<9))
        #expect(F.tids(try await request.fetchPrevious()) == F.expected("a", 3..<6))
        #expect(F.tids(try await request.fetchPrevious()) == F.expected("a", 0..<3))
        #expect(try await request.fetchPrevious().isEmpty)
        #expect(request.pageNumber == 1)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 3..<6))
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 6..<9))
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 9..<10))
        #expect(try await request.fetchNext().isEmpty)
        #expect(F.tids(try await request.fetchPrevious()) == F.expected("a", 6..<9))
    }

    @Test("a failed fetchNext leaves the cursor where it was: the retry sends the same request and gets that page")
    func retryNextAfterFailure() async throws {
        let (_, server, request) = try F.paging(9)
        defer { server.stop() }
        server.enqueue(.error(503, "store_unavailable", "locked"))
        await #expect(throws: TranscriptsError.server(status: 503, code: "store_unavailable", message: "locked")) {
            try await request.fetchNext()
        }
        #expect(request.pageNumber == 0)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3), "the retry gives page 1")
        server.enqueue(.http(status: 200, body: "garbage"))
        await #expect(throws: TranscriptsError.self) { try await request.fetchNext() }
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 3..<6), "the retry gives page 2, not 3")
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 6..<9))
        let targets = server.requests.map(\.target)
        #expect(targets[0] == targets[1])
        #expect(targets[2] == targets[3])
    }

    @Test("a failed fetchPrevious leaves the cursor where it was: the retry gives the previous page")
    func retryPreviousAfterFailure() async throws {
        let (_, server, request) = try F.paging(9)
        defer { server.stop() }
        for _ in 0..<3 { _ = try await request.fetchNext() }
        server.enqueue(.close)
        await #expect(throws: TranscriptsError.self) { try await request.fetchPrevious() }
        #expect(request.pageNumber == 3)
        #expect(F.tids(try await request.fetchPrevious()) == F.expected("a", 3..<6))
        server.enqueue(.error(401, "invalid_token", "revoked"))
        await #expect(throws: TranscriptsError.server(status: 401, code: "invalid_token", message: "revoked")) {
            try await request.fetchPrevious()
        }
        #expect(F.tids(try await request.fetchPrevious()) == F.expected("a", 0..<3))
    }

    @Test("records decode with every field and the raw row; records that do not decode are skipped")
    func records() async throws {
        let data = ClientFakeTranscripts()
        data.add("a", 0..<1)
        data.addRaw("a", json: #"{"tid":"half a record"}"#)
        data.addRaw("a", json: "42")
        data.addRaw("a", json: "null")
        data.addRaw("a", json: #"{"tid":"x","mid":"a","roomName":"","startTime":"soon","endTime":0,"url":"","transcriptDate":"","transcriptUrl":"","metaData":{}}"#)
        data.add("a", 1..<2)
        let server = try ClientTestServer(handler: data.handler)
        defer { server.stop() }
        let request = F.request(F.client(server), limit: 10)
        let page = try await request.fetchNext()
        #expect(page == [ClientFakeTranscripts.record("a", 0), ClientFakeTranscripts.record("a", 1)])
        #expect(page.first?.metaData == ["tid": .text("a-t0"), "start_time": .integer(1_764_430_000),
                                         "confidence": .real(0.75), "url": .null])
    }

    @Test("a page whose records all fail to decode is passed over: [] still means after the last")
    func undecodablePage() async throws {
        let data = ClientFakeTranscripts()
        data.add("a", 0..<3)
        for _ in 0..<3 { data.addRaw("a", json: #"{"broken":true}"#) }
        data.add("a", 3..<4)
        let server = try ClientTestServer(handler: data.handler)
        defer { server.stop() }
        let request = F.request(F.client(server), limit: 3)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3))
        #expect(F.tids(try await request.fetchNext()) == ["a-t3"], "the undecodable page is passed over")
        #expect(request.pageNumber == 2)
        #expect(try await request.fetchNext().isEmpty)
        #expect(F.tids(try await request.fetchPrevious()) == F.expected("a", 0..<3))
    }

    @Test("a nextCursor that does not move past the cursor asked for is malformed_response (no endless paging)")
    func stuckCursor() async throws {
        let (_, server, request) = try F.paging(6)
        defer { server.stop() }
        #expect(try await request.fetchNext().count == 3)
        let stuck = #"{"nextCursor":"50","transcripts":[{"broken":true}]}"#
        server.enqueue(.http(status: 200, body: stuck))
        await #expect(throws: TranscriptsError.malformedResponse("nextCursor 50 does not move past the cursor asked for")) {
            try await request.fetchNext()
        }
        #expect(request.pageNumber == 1)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 3..<6))
    }

    @Test("the local and the remote request are both TranscriptsPaging, with the same rules")
    func oneProtocol() async throws {
        let (_, server, remote) = try F.paging(7)
        defer { server.stop() }
        let local: any TranscriptsPaging = TranscriptsRequest.Builder().sessionId("a").limit(3).build()
        let requests: [any TranscriptsPaging] = [local, remote]
        for request in requests {
            #expect(request.sessionId == "a")
            #expect(request.limit == 3)
            #expect(request.pageNumber == 0)
            #expect(try await request.fetchPrevious().isEmpty)
        }
        #expect(try await Self.walk(remote) == [F.expected("a", 0..<3), F.expected("a", 3..<6), F.expected("a", 6..<7)])
        let missing: [any TranscriptsPaging] = [TranscriptsRequest.Builder().build(), RemoteTranscriptsRequest.Builder().build()]
        for request in missing {
            await #expect(throws: TranscriptsError.sessionIdMissing) { try await request.fetchNext() }
        }
    }

    /// Every page, through the protocol.
    private static func walk(_ request: any TranscriptsPaging) async throws(TranscriptsError) -> [[String]] {
        var pages: [[String]] = []
        var page = try await request.fetchNext()
        while !page.isEmpty {
            pages.append(page.map(\.tid))
            page = try await request.fetchNext()
        }
        return pages
    }
}
