/// Issue 14, item 11 — slow clients: slow-header connections from one address must not deny HTTP service to
/// everyone. `audiograph serve` (and `run` with a `serve` block) limits the connections one IP address holds
/// (`--max-connections-per-address`, default 256) and gives a connection `--header-timeout` seconds (default
/// 10) to send a whole request, however slowly it trickles bytes; a client on another address (127.0.0.2) is
/// served all along, and caption streams outlive both limits.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Security: slow clients (issue 14, item 11)")
struct SlowClientTests {
    @Test("defaults: past 256 trickling connections from 127.0.0.1 more are closed, 127.0.0.2 is served; each is cut at 10 s")
    func defaultLimits() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            try await expectSlowClientsContained(port: server.port, limit: HTTPClientLimits.defaultMaxConnectionsPerAddress,
                                                 extra: 8, headerTimeout: Double(HTTPClientLimits.defaultHeaderTimeoutSeconds))
        }
    }

    @Test("serve --max-connections-per-address 5 --header-timeout 3")
    func serveOptions() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        let arguments = fixture.serveArguments + ["--max-connections-per-address", "5", "--header-timeout", "3"]
        try await ServeProcess.with(arguments, in: dir) { server in
            try await expectSlowClientsContained(port: server.port, limit: 5, extra: 4, headerTimeout: 3)
        }
    }

    @Test("run with \"serve\": {\"maxConnectionsPerAddress\": 4, \"headerTimeoutSeconds\": 3}")
    func configBlock() async throws {
        let dir = try TemporaryFolder()
        try await writeLiveConfig(in: dir, #""serve": { "listen": "127.0.0.1:0", "store": "s.sqlite", "maxConnectionsPerAddress": 4, "headerTimeoutSeconds": 3 }"#)
        let server = try await ServeProcess.start(["run", "live.json", "--quiet"], in: dir)
        do {
            try await expectSlowClientsContained(port: server.port, limit: 4, extra: 3, headerTimeout: 3)
        } catch {
            _ = try? await server.stop()
            throw error
        }
        _ = try await server.stop()
    }

    @Test("a caption stream outlives --header-timeout 1 and --idle-timeout 1 (its keepalive every 15 s holds it)")
    func captionStreamOutlivesTheLimits() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try await writeLiveConfig(in: dir, #""session": { "id": "held", "participants": ["alice"] }"#)
        let arguments = fixture.serveArguments + ["--header-timeout", "1", "--idle-timeout", "1", "--run", "live.json"]
        try await ServeProcess.with(arguments, in: dir) { server in
            let stream = try await ServeEventStream(port: server.port, path: "/v1/sessions/held/captions", token: fixture.aliceToken)
            defer { stream.disconnect() }
            #expect(await stream.head()?.status == 200)
            // Nothing is sent on the stream for 15 s: past both limits it must still be open.
            let ended = await stream.waitForEnd(timeout: 3.5)
            #expect(!ended, "the caption stream was closed\n\(String(decoding: stream.connection.received, as: UTF8.self))")
            // A plain connection that sends nothing is closed by then.
            let idle = try ServeRawConnection(port: server.port)
            defer { idle.disconnect() }
            #expect(await idle.waitForClose(timeout: 10), "an idle connection should be closed after 1 s")
        }
    }

    @Test("--header-timeout 2 covers the whole request: a trickled body, and a keep-alive connection after its answer")
    func wholeRequestAndKeepAlive() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try await ServeProcess.with(fixture.serveArguments + ["--header-timeout", "2"], in: dir) { server in
            // Headers complete at once, the body never does: the API reads bodies, so the deadline still runs.
            let body = try ServeRawConnection(port: server.port)
            defer { body.disconnect() }
            let bodyStart = Date()
            await body.send("POST /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
            let trickle = Task {
                while !Task.isCancelled, !body.isClosed {
                    await body.send("x")
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            defer { trickle.cancel() }
            #expect(await body.waitForClose(timeout: 15), "a body trickled for ever is cut at the header timeout")
            let bodyHeld = Date().timeIntervalSince(bodyStart)
            #expect(bodyHeld >= 1.75, "closed after \(bodyHeld) s, before its 2 s")

            // A keep-alive connection is answered, then has 2 s for its next request.
            let keepAlive = try ServeRawConnection(port: server.port)
            defer { keepAlive.disconnect() }
            await keepAlive.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(await keepAlive.waitFor { ServeRawHTTP.parse($0)?.complete == true }, "the first request is answered")
            let answered = Date()
            #expect(await keepAlive.waitForClose(timeout: 15), "an idle keep-alive connection is closed at the header timeout")
            let idle = Date().timeIntervalSince(answered)
            #expect(idle >= 1.75 && idle < 10, "closed \(idle) s after its answer, expected 2 s")
        }
    }

    @Test("--max-connections-per-address, --header-timeout and --idle-timeout refuse what is out of range (exit 64)",
          arguments: [["--max-connections-per-address", "-1"], ["--max-connections-per-address", "many"],
                      ["--header-timeout", "0"], ["--header-timeout", "3601"], ["--idle-timeout", "1.5"]])
    func badOptions(_ option: [String]) async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["serve", "--store", "s.sqlite", "--listen", "127.0.0.1:0"] + option, in: dir)
        expectError(result, exit: 64, at: option[0])
        #expect(!result.stderr.contains("serving"), "\(result)")
    }
}

/// `live.json`: two minutes of a tone played at 1x into a WAV file (a run that lasts while a test needs it), with
/// `entry` (a top-level `"key": value`) added; and its `in.wav`.
private func writeLiveConfig(in dir: TemporaryFolder, _ entry: String) async throws {
    try await Harness.makeWAV("in.wav", in: dir, sampleRate: 8000, channels: 1, seconds: 120)
    try dir.write("live.json", """
        {
          "version": 1,
          \(entry),
          "nodes": {
            "src": { "type": "file-source", "path": "in.wav", "realtime": true },
            "out": { "type": "wav-sink", "path": "out.wav" }
          },
          "links": ["src -> out"]
        }
        """)
}

/// Opens `limit + extra` connections from 127.0.0.1 that trickle a header byte every 250 ms and never end it,
/// then checks: exactly `extra` are closed at once; a request from 127.0.0.2 is answered while a new one from
/// 127.0.0.1 is closed unanswered; every held one is closed `headerTimeout` seconds after it opened (the
/// trickle keeps it from ever being idle); then 127.0.0.1 is served again.
private func expectSlowClientsContained(port: UInt16, limit: Int, extra: Int, headerTimeout: Double,
                                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let clients = SlowHeaderClients()
    defer { clients.closeAll() }
    for _ in 0..<(limit + extra) { try clients.open(port: port, from: "127.0.0.1") }
    let trickle = Task {
        while !Task.isCancelled {
            clients.trickle()
            try? await Task.sleep(for: .milliseconds(250))
        }
    }
    defer { trickle.cancel() }

    let refusedSoon = await eventually(timeout: headerTimeout * 0.6) { clients.closed.count >= extra }
    let refusedCount = clients.closed.count
    try #require(refusedSoon, "\(extra) of \(limit + extra) connections from one address should be closed at once; \(refusedCount) were",
                 sourceLocation: sourceLocation)

    let other = try await ServeRawHTTP.get(port: port, "/health", from: "127.0.0.2", sourceLocation: sourceLocation)
    #expect(other.status == 200, "127.0.0.2 should be served: \(other)", sourceLocation: sourceLocation)
    let (refused, raw) = try await ServeRawHTTP.exchange(port: port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                                                         sourceLocation: sourceLocation)
    #expect(refused == nil, "127.0.0.1 is at its limit: \(String(decoding: raw, as: UTF8.self))", sourceLocation: sourceLocation)
    let early = clients.closed.filter { $0 < headerTimeout - 0.25 }
    #expect(early.count == extra, "only the \(extra) past the limit are closed before the header timeout: \(early)",
            sourceLocation: sourceLocation)

    let allClosed = await eventually(timeout: headerTimeout + 15) { clients.closed.count == limit + extra }
    let held = clients.closed.sorted().dropFirst(extra)
    let stillOpen = limit + extra - clients.closed.count
    #expect(allClosed, "every held connection should be closed \(headerTimeout) s after it opened; \(stillOpen) still open",
            sourceLocation: sourceLocation)
    if let first = held.first, let last = held.last {
        #expect(first >= headerTimeout - 0.25 && last <= headerTimeout + 8,
                "held connections closed after \(first)…\(last) s, expected \(headerTimeout) s", sourceLocation: sourceLocation)
    }
    // The client sees each close as the server makes it; the server counts the address's connection gone just
    // after, so the first new connection may still meet the limit. Served again once the server's count is down.
    var again: (reply: ServeReply?, raw: Data) = (nil, Data())
    let servedAgain = await eventually(timeout: 10, every: .milliseconds(50)) {
        again = (try? await ServeRawHTTP.exchange(port: port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                                                   sourceLocation: sourceLocation)) ?? (nil, Data())
        return again.reply?.status == 200
    }
    #expect(servedAgain, "127.0.0.1 is served again once its connections are gone: \(String(decoding: again.raw, as: UTF8.self))",
            sourceLocation: sourceLocation)
}


/// Raw connections that send a request line and headers that never end. Non-blocking sockets, checked for
/// the server's close on every look (`closed`) and fed one more header byte by `trickle`.
private final class SlowHeaderClients: Sendable {
    private struct Client {
        let descriptor: Int32
        let opened: Date
        /// Seconds from opening to when the close was first seen.
        var closedAfter: Double?
    }

    private let clients = Mutex<[Client]>([])

    /// Connects to 127.0.0.1:`port` from `source` and sends the start of a request.
    func open(port: UInt16, from source: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) } }
        let connected = bound == 0
            && withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, size) } } == 0
        guard connected else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            throw HarnessError("connect from \(source): \(message)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        let opened = Date()
        let start = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        _ = start.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        clients.withLock { $0.append(Client(descriptor: descriptor, opened: opened)) }
    }

    /// One more header byte on every open connection.
    func trickle() {
        clients.withLock { clients in
            var byte: UInt8 = UInt8(ascii: "a")
            for index in clients.indices where clients[index].closedAfter == nil {
                if send(clients[index].descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) < 0, errno != EAGAIN {
                    clients[index].closedAfter = Date().timeIntervalSince(clients[index].opened)
                }
            }
        }
    }

    /// Seconds from opening to close of every connection the server has closed so far.
    var closed: [Double] {
        clients.withLock { clients in
            var byte: UInt8 = 0
            for index in clients.indices where clients[index].closedAfter == nil {
                let got = recv(clients[index].descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
                if got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    clients[index].closedAfter = Date().timeIntervalSince(clients[index].opened)
                }
            }
            return clients.compactMap(\.closedAfter)
        }
    }

    func closeAll() {
        clients.withLock { clients in
            for client in clients { close(client.descriptor) }
            clients.removeAll()
        }
    }
}
