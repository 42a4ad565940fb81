import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `audiograph serve` and `audiograph run` with a `serve` block as processes: live captions of a real-time
/// speech run over SSE, graceful shutdown with a caption stream open and a request in flight, SIGINT as soon as
/// the server says it serves, and every CLI error with its exit code.
@Suite("audiograph serve (ServeCommand)")
struct ServeCommandTests {
    // MARK: Live captions

    /// Waits until `GET /v1/live` (as `token`'s user) lists session `id`: a pipeline is attached to the server
    /// just after the server starts. Each try is a request; the wait ends after `serveTimeout`.
    private func waitUntilLive(_ server: ServeProcess, id: String, token: String) async throws -> [String: Any]? {
        var live: [String: Any]?
        _ = try await eventually(timeout: serveTimeout) {
            let reply = try await ServeHTTP.get(server.url("/v1/live"), token: token)
            let sessions = try reply.json()["sessions"] as? [[String: Any]] ?? []
            live = sessions.first(where: { $0["id"] as? String == id })
            return live != nil
        }
        return live
    }

    /// Checks a caption stream: caption events with increasing ids, partial/final with segment and revision,
    /// revisions increasing per segment and a final last in its segment; then `end`. Returns the finals' texts.
    @discardableResult
    private func checkCaptions(_ events: [ServeSSEEvent], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let log = events.map(\.description).joined(separator: "\n")
        #expect(events.last?.event == "end" && events.last?.data == "{}", "the stream ends with end\n\(log)",
                sourceLocation: sourceLocation)
        #expect(events.filter { $0.event == "end" }.count == 1, "\(log)", sourceLocation: sourceLocation)
        let captions = events.filter { $0.event == "caption" }
        // Before end: captions, and the session's state (one first, issue 17; more only when it is steered).
        let states = events.filter { $0.event == "state" }
        #expect(events.first?.event == "state", "the state comes first\n\(log)", sourceLocation: sourceLocation)
        #expect(captions.count + states.count == events.count - 1, "only caption and state events before end\n\(log)",
                sourceLocation: sourceLocation)
        let ids = captions.compactMap(\.id)
        #expect(ids.count == captions.count && ids == ids.sorted() && Set(ids).count == ids.count,
                "every caption has an id, increasing\n\(log)", sourceLocation: sourceLocation)
        var revisions: [Int: [Int]] = [:]
        var finals: [Int: String] = [:]
        var order: [Int] = []
        var partials = 0
        for caption in captions {
            guard let object = caption.object, let type = object["type"] as? String else {
                Issue.record("not a caption: \(caption)", sourceLocation: sourceLocation)
                continue
            }
            if type == "clear" { continue }
            guard type == "partial" || type == "final", let segment = object["segment"] as? Int,
                  let revision = object["revision"] as? Int, object["start"] is Double || object["start"] is Int,
                  object["end"] is Double || object["end"] is Int, let text = object["text"] as? String else {
                Issue.record("a caption without type, segment, revision, start, end or text: \(caption)", sourceLocation: sourceLocation)
                continue
            }
            #expect(finals[segment] == nil, "nothing after the final of segment \(segment)\n\(log)", sourceLocation: sourceLocation)
            if revisions[segment] == nil { order.append(segment) }
            revisions[segment, default: []].append(revision)
            if type == "final" {
                finals[segment] = text
                #expect(object["confidence"] != nil, "a final has a confidence: \(caption)", sourceLocation: sourceLocation)
            } else {
                partials += 1
            }
        }
        for (segment, list) in revisions {
            #expect(list == list.sorted() && Set(list).count == list.count, "revisions of segment \(segment) increase: \(list)",
                    sourceLocation: sourceLocation)
        }
        #expect(order == order.sorted(), "segments in order: \(order)", sourceLocation: sourceLocation)
        #expect(partials > 0 && !finals.isEmpty, "partials and finals\n\(log)", sourceLocation: sourceLocation)
        return order.compactMap { finals[$0] }.filter { !$0.isEmpty }
    }

    @Test("run with a serve block: /v1/live lists the session, its captions stream as SSE (partial/final, then end)")
    func liveCaptionsOfARun() async throws {
        let dir = try TemporaryFolder()
        try await ServeSpeech.make(in: dir)
        // The store the run writes and serves; its tokens are made first.
        let fixture = try ServeFixture.make(in: dir, at: "out/store.sqlite", standupCount: 2)
        try dir.write("live.json", ServeSpeech.config(session: "live-run", participants: ["alice"], store: "out/store.sqlite",
                                                      serve: #"{"listen": "127.0.0.1:0"}"#))
        let server = try await ServeProcess.start(["run", "live.json", "--quiet"], in: dir)
        do {
            let live = try await waitUntilLive(server, id: "live-run", token: fixture.aliceToken)
            #expect(live?["room"] as? String == "lab", "alice sees the live session: \(String(describing: live))")
            let stream = try await ServeEventStream(port: server.port, path: "/v1/sessions/live-run/captions", token: fixture.aliceToken)
            defer { stream.disconnect() }
            let head = try #require(await stream.head())
            #expect(head.status == 200, "\(head)")
            #expect(head.header("Content-Type") == "text/event-stream; charset=utf-8" && head.header("Cache-Control") == "no-store")
            #expect(head.header("Transfer-Encoding") == "chunked", "\(head)")

            // While it runs: bob sees nothing live and gets the 404 of a session that does not exist.
            let bobLive = try await ServeHTTP.get(server.url("/v1/live"), token: fixture.bobToken)
            #expect(bobLive.text == #"{"user":"bob","sessions":[]}"#, "\(bobLive)")
            let bobCaptions = try await ServeHTTP.get(server.url("/v1/sessions/live-run/captions"), token: fixture.bobToken)
            let noSuch = try await ServeHTTP.get(server.url("/v1/sessions/no-such-live/captions"), token: fixture.bobToken)
            expectAPIError(bobCaptions, status: 404, code: "not_found", "bob's captions")
            #expect(bobCaptions.body == noSuch.body)
            let anonymous = try await ServeHTTP.get(server.url("/v1/sessions/live-run/captions"))
            expectAPIError(anonymous, status: 401, code: "missing_token")
            let headOnly = try await ServeHTTP.request(server.url("/v1/sessions/live-run/captions"), method: "HEAD",
                                                       token: fixture.aliceToken)
            #expect(headOnly.status == 200 && headOnly.body.isEmpty && headOnly.header("Content-Type")?.hasPrefix("text/event-stream") == true)

            // The run ends on its own: the stream gets `end` and closes.
            let ended = await stream.waitForEnd(timeout: 90)
            #expect(ended, "the caption stream should end when the run ends\n\(stream.current?.reply.text ?? "")")
            let text = stream.current?.reply.text ?? ""
            #expect(text.hasPrefix("retry: 2000\n\n"), "\(text.prefix(200))")
            let finals = checkCaptions(stream.events)

            let exit = try await server.waitForExit(timeout: 60)
            #expect(exit.isClean, "the run ends by itself with exit 0: \(exit)")

            // The finals shown live are the utterances stored.
            let local = try await fixture.localPages(session: "live-run", limit: 100).joined()
            let store = try SQLiteTranscriptStore(path: fixture.storePath, create: false)
            defer { store.close() }
            let stored = try local.flatMap { try #require(try store.detail(tid: $0)).utterances.map(\.text) }
            #expect(stored == finals, "stored \(stored), shown \(finals)")
        } catch {
            _ = try? await server.stop()
            throw error
        }
    }

    @Test("SIGINT to serve --run with a caption stream open and a request in flight: end, the request completes, exit 0")
    func gracefulShutdown() async throws {
        let dir = try TemporaryFolder()
        try await ServeSpeech.make(in: dir)
        let fixture = try ServeFixture.make(in: dir, standupCount: 2)
        try dir.write("live.json", ServeSpeech.config(session: "live-serve", participants: ["alice", "carol"],
                                                      store: "store/transcripts.sqlite"))
        let server = try await ServeProcess.start(fixture.serveArguments + ["--run", "live.json"], in: dir)
        do {
            #expect(try await waitUntilLive(server, id: "live-serve", token: fixture.aliceToken) != nil)
            let stream = try await ServeEventStream(port: server.port, path: "/v1/sessions/live-serve/captions", token: fixture.aliceToken)
            defer { stream.disconnect() }
            #expect(await stream.head()?.status == 200)
            let flowing = await stream.waitForEvents(timeout: 60) { $0.contains { $0.event == "caption" } }
            #expect(flowing, "captions flow\n\(stream.current?.reply.text ?? "")")

            // A request in flight: its head is read (libmicrohttpd answers 100 Continue once the handler has
            // seen it), its body is not sent yet.
            let request = try ServeRawConnection(port: server.port)
            defer { request.disconnect() }
            await request.send("GET /v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(fixture.aliceToken)\r\n"
                + "Expect: 100-continue\r\nContent-Length: 4\r\nConnection: close\r\n\r\n")
            let continued = await request.waitFor { String(decoding: $0, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue\r\n\r\n") }
            #expect(continued, "\(String(decoding: request.received, as: UTF8.self))")

            server.interrupt()
            let stopping = await server.stderr.waitFor { $0.contains { $0.hasPrefix("audiograph: stopping") } }
            #expect(stopping)
            let ended = await stream.waitForEnd()
            #expect(ended, "the caption stream ends at SIGINT\n\(stream.current?.reply.text ?? "")")
            let events = stream.events
            #expect(events.last?.event == "end", "\(events)")
            #expect(!request.isClosed, "the request in flight is still open")

            // The request completes after SIGINT.
            await request.send("abcd")
            #expect(await request.waitForClose())
            let reply = try #require(ServeRawHTTP.parse(request.received)?.reply, "\(String(decoding: request.received, as: UTF8.self))")
            #expect(reply.status == 200, "\(reply)")
            #expect(try (reply.json()["calls"] as? [[String: Any]])?.compactMap { $0["mid"] as? String }.contains("standup") == true,
                    "\(reply)")

            let exit = try await server.waitForExit()
            #expect(exit.isClean, "\(exit)")
            // Nothing listens any more.
            #expect(throws: (any Error).self) { try ServeRawConnection(port: server.port) }
        } catch {
            _ = try? await server.stop()
            throw error
        }
    }

    @Test("SIGINT as soon as serve prints its serving line: a graceful stop and exit 0, every time")
    func interruptRightAfterServing() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        // Stops at the first failure: one is enough to show the race (a hang costs the timeout).
        for attempt in 1...20 {
            let server = try await ServeProcess.start(fixture.serveArguments, in: dir)
            server.interrupt()
            let exit = try await server.waitForExit(timeout: 10)
            let graceful = exit.isClean && exit.stderr.contains("audiograph: stopping")
            #expect(graceful, "attempt \(attempt): SIGINT right after \"serving\" must stop serve gracefully with exit 0: \(exit)")
            if !graceful { break }
        }
    }

    // MARK: CLI errors

    @Test("serve with no store: exit 66 naming the path; nothing created")
    func noStore() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["serve", "--store", "none.sqlite", "--listen", "127.0.0.1:0"], in: dir)
        expectError(result, exit: 66, at: dir.path("none.sqlite"))
        #expect(!dir.exists("none.sqlite"))
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let defaultStore = try await Harness.run(env, ["XDG_DATA_HOME=\(dir.path("xdg"))", try Harness.binary().path, "serve",
                                                       "--listen", "127.0.0.1:0"], in: dir)
        expectError(defaultStore, exit: 66, at: dir.path("xdg/audiograph/transcripts.sqlite"))
    }

    @Test("serve with a bad --listen: exit 64 naming --listen", arguments: [
        "localhost:8080", "127.0.0.1", "127.0.0.1:", ":8080", "127.0.0.1:65536", "127.0.0.1:-1", "1.2.3:80", "1.2.3.4.5:80",
        "256.0.0.1:80", "[::1]:80", "::1:80", "", "127.0.0.1:80x", "127.0.0.01234:80",
    ])
    func badListen(listen: String) async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        let result = try await Harness.audiograph(["serve", "--store", fixture.storePath, "--listen", listen], in: dir)
        expectError(result, exit: 64, at: "--listen")
    }

    @Test("serve on a port already in use: exit 69 naming --listen")
    func portInUse() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        let listener = try TCPListener()
        defer { listener.close() }
        let result = try await Harness.audiograph(["serve", "--store", fixture.storePath, "--listen", "127.0.0.1:\(listener.port)"],
                                                  in: dir)
        expectError(result, exit: 69, at: "--listen")
        // And a run whose serve block asks for that port: 69 naming serve.listen.
        try await ServeSpeech.make(in: dir)
        try dir.write("busy.json", ServeSpeech.config(session: "busy", participants: ["alice"], store: "store/transcripts.sqlite",
                                                      serve: #"{"listen": "127.0.0.1:\#(listener.port)"}"#))
        let run = try await Harness.audiograph(["run", "busy.json", "--quiet"], in: dir)
        expectError(run, exit: 69, at: "serve.listen")
    }

    @Test("serve with bad --threads or arguments: exit 64", arguments: [
        ["--threads", "0"], ["--threads", "257"], ["--threads", "four"], ["--threads", "-1"], ["--threads", ""],
        ["--threads", "1.5"], ["--port", "8080"], ["extra"], ["--listen"],
    ])
    func badArguments(arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        let listen = arguments.contains("--listen") ? [] : ["--listen", "127.0.0.1:0"]
        let result = try await Harness.audiograph(["serve", "--store", fixture.storePath] + listen + arguments, in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.hasPrefix("audiograph: "), "\(result)")
        if arguments.first == "--threads" { expectError(result, exit: 64, at: "--threads") }
    }

    /// A non-speech run config with `serve` (raw JSON) and, when `store` is set, a transcript-store node.
    private func runConfig(serve: String, store: Bool) -> String {
        """
        {
          "version": 1,
          "serve": \(serve),
          "nodes": {
            "src": { "type": "file-source", "path": "in.wav" },
            \(store ? #""vad": { "type": "vad" }, "asr": { "type": "recognizer", "engine": "pocketsphinx" }, "store": { "type": "transcript-store", "path": "s.sqlite" },"# : "")
            "out": { "type": "wav-sink", "path": "out.wav" }
          },
          "links": ["src -> out"\(store ? #", "src -> vad -> asr -> store""# : "")]
        }
        """
    }

    @Test("run with a bad serve block: exit 65 naming serve.KEY", arguments: [
        (#"{"listen": "nope"}"#, true, "serve.listen"),
        (#"{"listen": "127.0.0.1"}"#, true, "serve.listen"),
        (#"{"listen": "127.0.0.1:99999"}"#, true, "serve.listen"),
        (#"{"listen": 8080}"#, true, "serve.listen"),
        (#"{"listen": "127.0.0.1:0", "port": 8080}"#, true, "serve.port"),
        (#"{"listn": "127.0.0.1:0"}"#, true, "serve.listn"),
        (#"{"store": 3}"#, true, "serve.store"),
        (#""127.0.0.1:0""#, true, "serve"),
        (#"{"listen": "127.0.0.1:0"}"#, false, "serve.store"),
        (#"{}"#, false, "serve.store"),
        (#"{"listen": "127.0.0.1:0", "maxConnectionsPerAddress": -1}"#, true, "serve.maxConnectionsPerAddress"),
        (#"{"listen": "127.0.0.1:0", "headerTimeoutSeconds": 0}"#, true, "serve.headerTimeoutSeconds"),
        (#"{"listen": "127.0.0.1:0", "headerTimeoutSeconds": 2.5}"#, true, "serve.headerTimeoutSeconds"),
        (#"{"listen": "127.0.0.1:0", "idleTimeoutSeconds": "30"}"#, true, "serve.idleTimeoutSeconds"),
    ])
    func badServeBlock(serve: String, store: Bool, location: String) async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("bad.json", runConfig(serve: serve, store: store))
        let result = try await Harness.audiograph(["run", "bad.json"], in: dir)
        expectError(result, exit: 65, at: location)
        #expect(!result.stderr.contains("serving"), "\(result)")
        #expect(!dir.exists("out.wav") && !dir.exists("s.sqlite"), "nothing ran\n\(result)")
    }

    @Test("serve --help documents the options, the serving line and the exit codes")
    func help() async throws {
        let dir = try TemporaryFolder()
        let help = try await Harness.audiograph(["serve", "--help"], in: dir)
        #expect(help.status == 0, "\(help)")
        for text in ["--store PATH", "--listen", "--threads", "--public-url", "--run CONFIG", "--max-connections-per-address N",
                     "--header-timeout S", "--idle-timeout S", "--max-ingest-rate X", "audiograph: serving http://HOST:PORT",
                     "69 cannot listen"] {
            #expect(help.stdout.contains(text), "\(text)\n\(help)")
        }
    }
}

/// A TCP socket listening on 127.0.0.1 at a port the system picks: a port in use.
final class TCPListener: Sendable {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 4) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let message = String(cString: strerror(errno))
            Self.close(descriptor)
            throw HarnessError("cannot listen: \(message)")
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { Self.close(descriptor) }

    private static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
