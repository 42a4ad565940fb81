import AudioGraphClient
import AudioGraphStore
import Foundation
import Testing

/// Every error of `RemoteTranscriptsRequest`, against real sockets on 127.0.0.1: the fake server
/// (`ClientTestServer`), and a port with nothing listening.
@Suite("RemoteTranscriptsRequest errors")
struct ClientErrorTests {
    typealias F = ClientFixtures

    @Test("no auth token (nil, empty or blank) fails with no_auth_token, and nothing is sent",
          arguments: [nil, "", "  \n"] as [String?])
    func noAuthToken(token: String?) async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let request = F.request(F.client(server, token: token))
        await #expect(throws: TranscriptsError.noAuthToken) { try await request.fetchNext() }
        #expect(request.pageNumber == 0)
        #expect(server.requests.isEmpty, "nothing reached the server")
        #expect(TranscriptsError.noAuthToken.code == "no_auth_token")
    }

    @Test("a missing or empty session id fails every fetch with session_id_missing, and nothing is sent",
          arguments: [nil, ""] as [String?])
    func sessionIdMissing(session: String?) async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let request = F.request(F.client(server), session: session)
        await #expect(throws: TranscriptsError.sessionIdMissing) { try await request.fetchNext() }
        await #expect(throws: TranscriptsError.sessionIdMissing) { try await request.fetchPrevious() }
        #expect(server.requests.isEmpty)
    }

    @Test("a stopped server (nothing listening on the port) is network_unavailable; the cursor does not move")
    func stoppedServer() async throws {
        let port = try ClientTestServer.closedPort()
        let client = TranscriptsClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, bearerToken: F.token)
        let request = F.request(client)
        let error = await F.failure { try await request.fetchNext() }
        guard case .networkUnavailable(let detail)? = error else {
            Issue.record("expected network_unavailable, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("cannot connect to http://127.0.0.1:\(port)"), "\(detail)")
        #expect(error?.code == "network_unavailable")
        #expect(request.pageNumber == 0)
        #expect(try await request.fetchPrevious().isEmpty)
    }

    @Test("a server that stops answering is network_unavailable after the client's timeout (timed out)")
    func timedOut() async throws {
        let data = ClientFakeTranscripts()
        data.add("a", 0..<3)
        let server = try ClientTestServer(handler: data.handler)
        defer { server.stop() }
        let hold = ClientTestHold()
        defer { hold.release() }
        server.enqueue(.held(hold, then: .close))
        // The timeout is what ends the fetch; the server holds its answer until the test is over.
        let request = F.request(F.client(server, timeout: 1))
        let error = await F.failure { try await request.fetchNext() }
        guard case .networkUnavailable(let detail)? = error else {
            Issue.record("expected network_unavailable, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("did not answer within 1 s"), "\(detail)")
        #expect(request.pageNumber == 0, "the cursor did not move")
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3), "the retry gives page 1")
    }

    @Test("a server that closes the connection without an answer is network_unavailable")
    func connectionClosed() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(.close)
        let request = F.request(F.client(server))
        let error = await F.failure { try await request.fetchNext() }
        #expect(error == .networkUnavailable("http://127.0.0.1:\(server.port) closed the connection without an answer"))
        #expect(server.requests.count == 1)
    }

    @Test("a server that answers bytes that are not HTTP is malformed_response",
          arguments: ["garbage, not HTTP at all\r\n\r\n", "HTTP/7 200 OK\r\n\r\n"])
    func notHTTP(answer: String) async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(.raw(answer))
        let request = F.request(F.client(server))
        let error = await F.failure { try await request.fetchNext() }
        guard case .malformedResponse(let detail)? = error else {
            Issue.record("expected malformed_response, got \(String(describing: error))")
            return
        }
        #expect(detail.hasPrefix("http://127.0.0.1:\(server.port) did not answer HTTP: "), "\(detail)")
        #expect(error?.code == "malformed_response")
        #expect(request.pageNumber == 0)
    }

    static let record = String(decoding: try! JSONEncoder().encode(ClientFakeTranscripts.record("a", 0)), as: UTF8.self)

    @Test("a 2xx whose body is not the documented page JSON is malformed_response",
          arguments: [
              ("garbage <html>", "the page is not JSON: \"garbage <html>\""),
              ("", "the page is not JSON: an empty body"),
              ("[1, 2]", #"the page is not a JSON object: "[1, 2]""#),
              (#"{"nextCursor":null}"#, #"the page has no "transcripts""#),
              (#"{"transcripts":null,"nextCursor":null}"#, #"the page's "transcripts" has the wrong type"#),
              (#"{"transcripts":{},"nextCursor":null}"#, #"the page's "transcripts" has the wrong type"#),
              (#"{"transcripts":[],"nextCursor":42}"#, #"the page's "nextCursor" has the wrong type"#),
              (#"{"transcripts":[],"nextCursor":"forty-two"}"#, #"nextCursor "forty-two" is not a cursor"#),
              (#"{"transcripts":[\#(record)],"nextCursor":null}"#, "a page of 1 transcripts without a nextCursor"),
          ])
    func malformedPage(body: String, detail: String) async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(.http(status: 200, body: body))
        let request = F.request(F.client(server))
        await #expect(throws: TranscriptsError.malformedResponse(detail)) { try await request.fetchNext() }
        #expect(request.pageNumber == 0)
        #expect(TranscriptsError.malformedResponse(detail).code == "malformed_response")
    }

    @Test("an error answer with the error JSON passes the server's code through",
          arguments: [
              (404, "not_found", "no such session"),
              (401, "invalid_token", "the token is not valid"),
              (400, "bad_parameter", "limit is not a number"),
              (503, "store_unavailable", "the store cannot be read"),
              (500, "internal", "a bug"),
          ])
    func serverCode(status: Int, code: String, message: String) async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(.error(status, code, message))
        let request = F.request(F.client(server))
        let error = await F.failure { try await request.fetchNext() }
        #expect(error == .server(status: status, code: code, message: message))
        #expect(error?.code == code, "code is the server's own")
        #expect(error?.description == "\(code): the server answered \(status): \(message)")
        #expect(request.pageNumber == 0)
    }

    @Test("the server's session_id_missing and missing_token come back as sessionIdMissing and noAuthToken")
    func mappedServerCodes() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(.error(400, "session_id_missing", "a session id is required"),
                       .error(401, "missing_token", "this request needs an Authorization: Bearer token"))
        let request = F.request(F.client(server))
        await #expect(throws: TranscriptsError.sessionIdMissing) { try await request.fetchNext() }
        await #expect(throws: TranscriptsError.noAuthToken) { try await request.fetchNext() }
        #expect(server.requests.count == 2)
    }

    @Test("an error status without the error JSON is malformed_response naming the status",
          arguments: [
              ClientTestResponse.http(status: 500, body: "Internal Server Error", contentType: "text/plain"),
              .http(status: 502, body: #"{"message":"bad gateway"}"#),
              .http(status: 404, body: "<html><body>Not Found</body></html>", contentType: "text/html"),
              .http(status: 503, body: ""),
              .http(status: 401, body: #"{"error":{"message":"no code"}}"#),
          ])
    func errorWithoutErrorJSON(response: ClientTestResponse) async throws {
        guard case .http(let status, _, _) = response else { return }
        let server = try ClientTestServer()
        defer { server.stop() }
        server.enqueue(response)
        let request = F.request(F.client(server))
        await #expect(throws: TranscriptsError.malformedResponse("HTTP \(status) without an error body")) {
            try await request.fetchNext()
        }
    }

    @Test("a base URL that is not http(s) is network_unavailable, and nothing is sent")
    func badBaseURL() async throws {
        let client = TranscriptsClient(baseURL: URL(string: "ftp://127.0.0.1/")!, bearerToken: F.token)
        let error = await F.failure { try await F.request(client).fetchNext() }
        #expect(error == .networkUnavailable("the base URL ftp://127.0.0.1/ is not an http or https URL"))
    }

    @Test("a second fetch while one is in flight fails with request_in_progress, without a request; the first completes")
    func inFlight() async throws {
        let (_, server, request) = try F.paging(9)
        defer { server.stop() }
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3))

        let hold = ClientTestHold()
        defer { hold.release() }
        server.enqueue(.heldThenHandled(hold))
        let first = Task { try await request.fetchNext() }
        #expect(await hold.waitUntilArrived(), "the first fetch reached the server")
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchNext() }
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchPrevious() }
        #expect(server.requests.count == 2, "the rejected fetches sent nothing")
        hold.release()
        #expect(F.tids(try await first.value) == F.expected("a", 3..<6), "the first fetch completes with page 2")
        #expect(request.pageNumber == 2)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 6..<9), "and the request goes on")
    }

    @Test("cancelling the task of a fetch in flight fails it with network_unavailable; the request is not left in progress")
    func cancelledInFlight() async throws {
        let (_, server, request) = try F.paging(6)
        defer { server.stop() }
        let hold = ClientTestHold()
        defer { hold.release() }
        server.enqueue(.held(hold, then: .close))
        let first = Task { try await request.fetchNext() }
        #expect(await hold.waitUntilArrived())
        first.cancel()
        let error = await F.failure { try await first.value }
        #expect(error == .networkUnavailable("the request to http://127.0.0.1:\(server.port) was cancelled"))
        #expect(request.pageNumber == 0)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3), "the request goes on")
    }

    @Test("a fetch held in flight that then fails can be retried, and was the only one in flight")
    func inFlightThenFailure() async throws {
        let (_, server, request) = try F.paging(6)
        defer { server.stop() }
        let hold = ClientTestHold()
        defer { hold.release() }
        server.enqueue(.held(hold, then: .error(503, "store_unavailable", "locked")))
        let first = Task { try await request.fetchNext() }
        #expect(await hold.waitUntilArrived())
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchNext() }
        hold.release()
        await #expect(throws: TranscriptsError.server(status: 503, code: "store_unavailable", message: "locked")) {
            try await first.value
        }
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3))
        #expect(server.requests.count == 2)
    }
}

/// The process default client (`TranscriptsClients`): serialized, since it is process-wide.
@Suite("TranscriptsClients", .serialized)
struct ClientBootstrapTests {
    typealias F = ClientFixtures

    @Test("with no client given and none bootstrapped, fetches fail with client_not_initialized")
    func clientNotInitialized() async throws {
        TranscriptsClients.bootstrap(nil)
        let request = RemoteTranscriptsRequest.Builder().sessionId("a").build()
        await #expect(throws: TranscriptsError.clientNotInitialized) { try await request.fetchNext() }
        #expect(request.pageNumber == 0)
        #expect(try await request.fetchPrevious().isEmpty, "previous on a fresh request needs no client")
        #expect(TranscriptsError.clientNotInitialized.code == "client_not_initialized")
    }

    @Test("a request without a client uses the bootstrapped one at fetch time; one given to the builder wins")
    func bootstrapped() async throws {
        let (_, server, _) = try F.paging(9)
        defer { server.stop() }
        let other = try ClientTestServer()
        defer { other.stop() }
        defer { TranscriptsClients.bootstrap(nil) }

        let request = RemoteTranscriptsRequest.Builder().sessionId("a").limit(3).build()
        TranscriptsClients.bootstrap(F.client(server))
        #expect(TranscriptsClients.current != nil)
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 0..<3))

        TranscriptsClients.bootstrap(nil)
        #expect(TranscriptsClients.current == nil)
        await #expect(throws: TranscriptsError.clientNotInitialized) { try await request.fetchNext() }
        #expect(request.pageNumber == 1, "the cursor did not move")

        TranscriptsClients.bootstrap(F.client(other))
        let explicit = RemoteTranscriptsRequest.Builder().sessionId("a").limit(3).client(F.client(server)).build()
        #expect(F.tids(try await explicit.fetchNext()) == F.expected("a", 0..<3))
        #expect(other.requests.isEmpty, "the builder's client wins over the bootstrapped one")

        TranscriptsClients.bootstrap(F.client(server))
        #expect(F.tids(try await request.fetchNext()) == F.expected("a", 3..<6), "page 2 after the failure")
    }
}
