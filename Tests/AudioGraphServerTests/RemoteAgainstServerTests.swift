import AudioGraph
import Foundation
import Testing

/// `RemoteTranscriptsRequest` against the real server (libmicrohttpd on 127.0.0.1) over the same store as a local
/// `TranscriptsRequest`: the same pages, in both directions, with the same cursor rules.
@Suite struct RemoteAgainstServerTests {
    /// Walks a request: next until [], then previous until [].
    static func walk(_ request: some TranscriptsPaging) async throws -> (forward: [[String]], back: [[String]]) {
        var forward: [[String]] = []
        while true {
            let page = try await request.fetchNext().map(\.tid)
            if page.isEmpty { break }
            forward.append(page)
        }
        var back: [[String]] = []
        while true {
            let page = try await request.fetchPrevious().map(\.tid)
            if page.isEmpty { break }
            back.append(page)
        }
        return (forward, back)
    }

    @Test func remotePagesAreTheLocalPages() async throws {
        let fixture = try APIFixture()
        try fixture.addSession("standup", participants: ["alice"], transcripts: 40)
        try fixture.addSession("other", participants: ["alice"], transcripts: 5)
        try fixture.addSession("standup", participants: ["alice"], transcripts: 33)
        let server = try TranscriptServer(store: fixture.store, listen: #require(ListenAddress("127.0.0.1:0")))
        defer { server.shutdown() }
        let client = TranscriptsClient(baseURL: try #require(URL(string: server.baseURL)), bearerToken: fixture.aliceToken)
        for limit in [10, 30, 1000] {
            let local = TranscriptsRequest.Builder().sessionId("standup").limit(limit).store(fixture.store).build()
            let remote = RemoteTranscriptsRequest.Builder().sessionId("standup").limit(limit).client(client).build()
            let localWalk = try await Self.walk(local)
            let remoteWalk = try await Self.walk(remote)
            #expect(remoteWalk.forward == localWalk.forward, "limit \(limit)")
            #expect(remoteWalk.back == localWalk.back, "limit \(limit)")
            #expect(localWalk.forward.joined().count == 73)
            #expect(remote.pageNumber == local.pageNumber)
        }
        // Records carry the served URL and the same fields as the local ones.
        let remoteFirst = try await RemoteTranscriptsRequest.Builder().sessionId("standup").limit(1).client(client).build().fetchNext()
        let localFirst = try await TranscriptsRequest.Builder().sessionId("standup").limit(1).store(fixture.store).build().fetchNext()
        #expect(remoteFirst.map(\.tid) == localFirst.map(\.tid))
        #expect(remoteFirst.first?.transcriptUrl == "\(server.baseURL)/v1/transcripts/standup-t0")
        #expect(remoteFirst.first?.roomName == localFirst.first?.roomName)
        #expect(remoteFirst.first?.endTime == localFirst.first?.endTime)
    }

    @Test func afterTheLastPageNewTranscriptsAppearOnTheNextFetch() async throws {
        let fixture = try APIFixture()
        let key = try fixture.addSession("s", participants: ["alice"], transcripts: 3)
        let server = try TranscriptServer(store: fixture.store, listen: #require(ListenAddress("127.0.0.1:0")))
        defer { server.shutdown() }
        let client = TranscriptsClient(baseURL: try #require(URL(string: server.baseURL)), bearerToken: fixture.aliceToken)
        let remote = RemoteTranscriptsRequest.Builder().sessionId("s").limit(2).client(client).build()
        #expect(try await remote.fetchNext().count == 2)
        #expect(try await remote.fetchNext().count == 1)
        #expect(try await remote.fetchNext().isEmpty)
        _ = try fixture.store.beginTranscript(NewTranscript(tid: "s-late", sessionKey: key, sessionID: "s", language: "en-US",
                                                            startTime: 1, transcriptURL: ""))
        #expect(try await remote.fetchNext().map(\.tid) == ["s-late"])
        #expect(remote.pageNumber == 3)
    }

    @Test func theServersErrorsReachTheClient() async throws {
        let fixture = try APIFixture()
        try fixture.addSession("alices", participants: ["alice"], transcripts: 1)
        let server = try TranscriptServer(store: fixture.store, listen: #require(ListenAddress("127.0.0.1:0")))
        let base = try #require(URL(string: server.baseURL))
        let asBob = RemoteTranscriptsRequest.Builder().sessionId("alices").client(TranscriptsClient(baseURL: base, bearerToken: fixture.bobToken)).build()
        await #expect(throws: TranscriptsError.server(status: 404, code: "not_found", message: "no such session")) {
            try await asBob.fetchNext()
        }
        let forged = RemoteTranscriptsRequest.Builder().sessionId("alices")
            .client(TranscriptsClient(baseURL: base, bearerToken: "agt_forged")).build()
        await #expect(throws: TranscriptsError.server(status: 401, code: "invalid_token", message: "the token is not valid")) {
            try await forged.fetchNext()
        }
        // A stopped server: connection refused.
        let remote = RemoteTranscriptsRequest.Builder().sessionId("alices")
            .client(TranscriptsClient(baseURL: base, bearerToken: fixture.aliceToken)).build()
        #expect(try await remote.fetchNext().count == 1)
        server.shutdown()
        await #expect { try await remote.fetchNext() } throws: { ($0 as? TranscriptsError)?.code == "network_unavailable" }
        #expect(remote.pageNumber == 1, "the cursor did not move")
    }
}
