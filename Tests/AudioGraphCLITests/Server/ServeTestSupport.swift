import AudioGraph
import AudioGraphTestKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Support for the tests of `audiograph serve` with the real process on 127.0.0.1: the process itself
// (`ServeProcess`), URLSession requests (`ServeHTTP`), a raw socket client for what URLSession cannot send
// (`ServeRawConnection`, `ServeRawHTTP`), a reader of server-sent events (`ServeEventStream`), and a store
// filled for two users (`ServeFixture`). Nothing here sleeps: every wait is for a condition, with a generous
// timeout that only a failing test reaches.

/// The most a test waits for a condition on the network before it records a failure.
let serveTimeout: Double = 30

// MARK: - The process

/// A running `audiograph serve` (or `audiograph run` with a `serve` block): started in a temp folder, its
/// "audiograph: serving http://127.0.0.1:PORT" line awaited on stderr, stopped with one SIGINT.
///
/// `@unchecked Sendable`: `Pipe` is not `Sendable`; it is set once here and only read.
final class ServeProcess: @unchecked Sendable {
    let arguments: [String]
    /// `http://127.0.0.1:PORT`.
    let baseURL: String
    let port: UInt16
    /// The child's stderr, read as it comes.
    let stderr: PipeReader
    private let process: ChildProcess
    private let stderrPipe: Pipe
    private let exit: Task<Harness.Exit, any Error>
    private let interrupted = Mutex(false)

    private init(arguments: [String], baseURL: String, port: UInt16, stderr: PipeReader, process: ChildProcess, stderrPipe: Pipe,
                 exit: Task<Harness.Exit, any Error>) {
        self.arguments = arguments
        self.baseURL = baseURL
        self.port = port
        self.stderr = stderr
        self.process = process
        self.stderrPipe = stderrPipe
        self.exit = exit
    }

    /// Starts `audiograph ARGUMENTS` in `directory` and waits for its "serving" line (the process is killed by the
    /// harness's watchdog if it hangs, which ends the wait).
    /// - Parameter launcher: a command that execs `audiograph` (same process) after setting something up, like
    ///   `setpriv` to another user; empty: run it directly.
    static func start(_ arguments: [String], in directory: TemporaryFolder, launcher: [String] = []) async throws -> ServeProcess {
        let process = ChildProcess()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [try Harness.binary().path] + arguments
        } else {
            process.executableURL = try Harness.binary()
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        let started = try await Harness.startAnnounced(process, prefix: "audiograph: serving http://",
                                                       name: "audiograph \(arguments.joined(separator: " "))")
        let line = "audiograph: serving http://" + started.announcement
        let base = "http://" + started.announcement
        guard let port = base.split(separator: ":").last.flatMap({ UInt16($0) }), port != 0,
              base == "http://127.0.0.1:\(port)" else {
            process.signal(SIGKILL)
            throw HarnessError("not a serving line: \(line)")
        }
        return ServeProcess(arguments: arguments, baseURL: base, port: port, stderr: started.stderr, process: process,
                            stderrPipe: started.stderrPipe, exit: started.exit)
    }

    /// Runs `body` with a server started with `arguments`, then stops it with SIGINT and expects exit 0 (and
    /// no complaint on stderr); the server is stopped when `body` throws too.
    static func with<T>(_ arguments: [String], in directory: TemporaryFolder,
                        sourceLocation: SourceLocation = #_sourceLocation,
                        _ body: (ServeProcess) async throws -> T) async throws -> T {
        let server = try await start(arguments, in: directory)
        let result: T
        do {
            result = try await body(server)
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let exit = try await server.stop()
        #expect(exit.isClean, "serve should exit 0 on SIGINT: \(exit)", sourceLocation: sourceLocation)
        let unexpected = exit.stderr.split(separator: "\n").filter {
            !$0.hasPrefix("audiograph: serving http://") && !$0.hasPrefix("audiograph: stopping: ")
        }
        #expect(unexpected.isEmpty, "serve said more than serving and stopping: \(exit)", sourceLocation: sourceLocation)
        return result
    }

    /// `url(path)`: `http://127.0.0.1:PORT` + `path`.
    func url(_ path: String) -> String { baseURL + path }

    /// Sends SIGINT once (a second one would make the process exit 130 at once).
    func interrupt() { stopSignal(SIGINT) }

    /// Sends SIGTERM once, in place of `interrupt()`'s SIGINT.
    func terminate() { stopSignal(SIGTERM) }

    /// Sends the first stop signal; later ones are not sent.
    private func stopSignal(_ number: Int32) {
        let first = interrupted.withLock { interrupted in
            defer { interrupted = true }
            return !interrupted
        }
        if first { process.signal(number) }
    }

    /// Waits for the process to exit on its own; its exit and everything it wrote on stderr. Past `timeout`
    /// seconds it is killed (SIGKILL) and `hung` is true.
    func waitForExit(timeout: Double = serveTimeout) async throws -> ServeExit {
        let hung = ServeHungFlag()
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [process] in
            guard process.isRunning else { return }
            hung.value.withLock { $0 = true }
            _ = kill(pid, SIGKILL)
        }
        let status = try await exit.value
        return ServeExit(status: status.status, signalled: status.signalled, hung: hung.value.withLock { $0 } || status.timedOut,
                         stderr: String(decoding: await stderr.all(), as: UTF8.self))
    }

    /// SIGINT, then waits for the exit.
    @discardableResult
    func stop(timeout: Double = serveTimeout) async throws -> ServeExit {
        interrupt()
        return try await waitForExit(timeout: timeout)
    }
}

private final class ServeHungFlag: Sendable {
    let value = Mutex(false)
}

/// How a server process ended.
struct ServeExit: Sendable, CustomStringConvertible {
    var status: Int32
    var signalled: Bool
    /// It did not exit in time and was killed.
    var hung: Bool
    var stderr: String

    /// Exit 0 on its own.
    var isClean: Bool { status == 0 && !signalled && !hung }

    var description: String {
        (hung ? "hung (killed)" : signalled ? "killed by signal \(status)" : "exit \(status)") + "\nstderr:\n\(stderr)"
    }
}

// MARK: - Answers

/// An HTTP answer, from URLSession or the raw client.
struct ServeReply: Sendable, CustomStringConvertible {
    var status: Int
    /// Header values by lower-cased name.
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a JSON object.
    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: body)
        return try #require(value as? [String: Any], "not a JSON object: \(text)", sourceLocation: sourceLocation)
    }

    /// The body decoded as `type` (the library's `Codable` records).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: body)
    }

    var description: String {
        "\(status) " + headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
            + "\n" + String(text.prefix(2000))
    }
}

/// Requests with URLSession: a fresh ephemeral session (no cache, no cookies) shared by the tests.
enum ServeHTTP {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = serveTimeout
        configuration.timeoutIntervalForResource = serveTimeout * 2
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        return URLSession(configuration: configuration)
    }()

    /// `METHOD url` with `Authorization: Bearer TOKEN` when a token is given (or `authorization` as it is).
    static func request(_ url: String, method: String = "GET", token: String? = nil, authorization: String? = nil,
                        body: Data? = nil) async throws -> ServeReply {
        var request = URLRequest(url: try #require(URL(string: url), "not a URL: \(url)"))
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let body { request.httpBody = body }
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name).lowercased()] = String(describing: value)
        }
        return ServeReply(status: http.statusCode, headers: headers, body: data)
    }

    /// `GET url` with a token.
    static func get(_ url: String, token: String? = nil) async throws -> ServeReply {
        try await request(url, token: token)
    }
}

// MARK: - Errors and leaks

/// What must never appear in an answer to another user or in an error: file contents, store internals,
/// server paths, crash output. Tests add their own (another user's text and ids, the store's path).
let serveLeakMarkers = ["root:x:0:0", "SQLite format 3", "file://", "Fatal error", ".swift:", "Stack dump",
                        "Backtrace", "sqlite_master", "secret_hash"]

/// Checks an error answer: `status`, JSON, and a body that is exactly `{"error":{"code":CODE,"message":TEXT}}`
/// with nothing else in it; no `leaks` in it; a 401 says `WWW-Authenticate: Bearer`.
func expectAPIError(_ reply: ServeReply, status: Int, code: String, message: String? = nil, leaks: [String] = [],
                    _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    let what = context.isEmpty ? "\(reply)" : "\(context)\n\(reply)"
    let object = (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any]
    guard reply.status == status, let error = object?["error"] as? [String: Any] else {
        // One issue for an answer that is not this error at all.
        Issue.record("expected \(status) \(code)\n\(what)", sourceLocation: sourceLocation)
        expectNoLeaks(reply, leaks, what, sourceLocation: sourceLocation)
        return
    }
    #expect(reply.header("Content-Type") == "application/json; charset=utf-8", "\(what)", sourceLocation: sourceLocation)
    #expect(reply.header("X-Content-Type-Options") == "nosniff", "\(what)", sourceLocation: sourceLocation)
    if status == 401 {
        #expect(reply.header("WWW-Authenticate") == "Bearer", "\(what)", sourceLocation: sourceLocation)
    }
    #expect(object.map { Array($0.keys) } == ["error"], "the body is only the error\n\(what)", sourceLocation: sourceLocation)
    #expect(Set(error.keys) == ["code", "message"], "\(what)", sourceLocation: sourceLocation)
    #expect(error["code"] as? String == code, "\(what)", sourceLocation: sourceLocation)
    let text = error["message"] as? String ?? ""
    #expect(!text.isEmpty && text.count < 200, "a short message\n\(what)", sourceLocation: sourceLocation)
    if let message { #expect(text == message, "\(what)", sourceLocation: sourceLocation) }
    expectNoLeaks(reply, leaks, what, sourceLocation: sourceLocation)
}

/// None of `leaks` (nor the usual markers) in the body.
func expectNoLeaks(_ reply: ServeReply, _ leaks: [String] = [], _ context: String = "",
                   sourceLocation: SourceLocation = #_sourceLocation) {
    let text = reply.text
    for marker in serveLeakMarkers + leaks where !marker.isEmpty && text.contains(marker) {
        Issue.record("the answer holds \"\(marker)\"\n\(context.isEmpty ? "\(reply)" : context)", sourceLocation: sourceLocation)
    }
}

// MARK: - Raw sockets

/// A TCP connection to the server for what URLSession cannot send: malformed requests, raw paths, huge headers,
/// requests sent in pieces, and event streams read as they come. A thread reads everything the server sends;
/// tests wait for conditions on it.
final class ServeRawConnection: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable (Data) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var data = Data()
        var finished = false
        var waiters: [Waiter] = []
    }

    private let descriptor: Int32
    private let state = Mutex(State())
    private let nextWaiter = Atomic<Int>(0)

    /// Connects to 127.0.0.1:`port` from `source` (another loopback address, like 127.0.0.2, to be another client).
    init(port: UInt16, from source: String = "127.0.0.1") throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: Int(serveTimeout), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let message = String(cString: strerror(errno))
            _ = systemClose(descriptor)
            throw HarnessError("bind to \(source): \(message)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            _ = systemClose(descriptor)
            throw HarnessError("connect to 127.0.0.1:\(port) from \(source): \(message)")
        }
        self.descriptor = descriptor
        Thread.detachNewThread { [self] in readLoop() }
    }

    deinit { _ = systemClose(descriptor) }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            let ready = state.withLock { state -> [Waiter] in
                state.data.append(contentsOf: buffer[0..<count])
                let data = state.data
                var ready: [Waiter] = []
                state.waiters.removeAll { waiter in
                    guard waiter.condition(data) else { return false }
                    ready.append(waiter)
                    return true
                }
                return ready
            }
            for waiter in ready { waiter.continuation.resume(returning: true) }
        }
        let left = state.withLock { state -> [Waiter] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in left { waiter.continuation.resume(returning: false) }
    }

    /// Sends `bytes` (on a dispatch thread: a big write may block); false when the server closed first.
    @discardableResult
    func send(_ bytes: [UInt8]) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [descriptor] in
                var offset = 0
                while offset < bytes.count {
                    let sent = bytes.withUnsafeBytes { buffer in
                        systemSend(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    }
                    if sent < 0, errno == EINTR { continue }
                    if sent <= 0 { break }
                    offset += sent
                }
                continuation.resume(returning: offset == bytes.count)
            }
        }
    }

    @discardableResult
    func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    /// Everything received so far.
    var received: Data { state.withLock { $0.data } }

    /// Whether the server closed the connection.
    var isClosed: Bool { state.withLock { $0.finished } }

    /// True once what has arrived satisfies `condition`; false when the connection closed first or `timeout`
    /// seconds passed.
    func waitFor(timeout: Double = serveTimeout, _ condition: @escaping @Sendable (Data) -> Bool) async -> Bool {
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        return await withCheckedContinuation { continuation in
            let now: Bool? = state.withLock { state in
                if condition(state.data) { return true }
                if state.finished { return false }
                state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                return nil
            }
            if let now {
                continuation.resume(returning: now)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [self] in
                let expired = state.withLock { state -> Waiter? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index)
                }
                expired?.continuation.resume(returning: false)
            }
        }
    }

    /// Waits until the server closes the connection (true) or `timeout` passes (false).
    func waitForClose(timeout: Double = serveTimeout) async -> Bool {
        _ = await waitFor(timeout: timeout) { _ in false }
        return isClosed
    }

    /// Ends the connection (the reader thread stops).
    func disconnect() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }
}

#if canImport(Glibc)
private func systemClose(_ descriptor: Int32) -> Int32 { Glibc.close(descriptor) }
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    Glibc.send(descriptor, bytes, count, flags)
}
#elseif canImport(Darwin)
private func systemClose(_ descriptor: Int32) -> Int32 { Darwin.close(descriptor) }
private let MSG_NOSIGNAL: Int32 = 0
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    Darwin.send(descriptor, bytes, count, flags)
}
#endif

/// Parsing what the raw client received.
enum ServeRawHTTP {
    /// One request sent as `text` (exactly those bytes) on a new connection; the answer once the server closed
    /// the connection (the requests say `Connection: close`). Nil status: the server closed without answering.
    /// `source`: the client's loopback address.
    static func exchange(port: UInt16, _ bytes: [UInt8], from source: String = "127.0.0.1",
                         sourceLocation: SourceLocation = #_sourceLocation) async throws -> (reply: ServeReply?, raw: Data) {
        let connection = try ServeRawConnection(port: port, from: source)
        defer { connection.disconnect() }
        await connection.send(bytes)
        let closed = await connection.waitForClose()
        #expect(closed, "the server should close the connection after its answer", sourceLocation: sourceLocation)
        let raw = connection.received
        return (parse(raw)?.reply, raw)
    }

    static func exchange(port: UInt16, _ text: String, from source: String = "127.0.0.1",
                         sourceLocation: SourceLocation = #_sourceLocation) async throws -> (reply: ServeReply?, raw: Data) {
        try await exchange(port: port, Array(text.utf8), from: source, sourceLocation: sourceLocation)
    }

    /// `GET target HTTP/1.1` with `Host`, `Connection: close`, a bearer token when given, and `extraHeaders`
    /// (each ending in CRLF).
    static func get(port: UInt16, _ target: String, token: String? = nil, method: String = "GET",
                    extraHeaders: String = "", from source: String = "127.0.0.1",
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> ServeReply {
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        request += extraHeaders + "\r\n"
        let (reply, raw) = try await exchange(port: port, request, from: source, sourceLocation: sourceLocation)
        return try #require(reply, "no answer to \(method) \(target): \(String(decoding: raw, as: UTF8.self))",
                            sourceLocation: sourceLocation)
    }

    /// The first answer in `data` (after any `100 Continue`): status, headers, body (de-chunked), and whether
    /// the body is complete. Nil until the head has arrived.
    static func parse(_ data: Data) -> (reply: ServeReply, complete: Bool)? {
        var bytes = [UInt8](data)
        while true {
            guard let end = find([13, 10, 13, 10], in: bytes, from: 0) else { return nil }
            let head = String(decoding: bytes[..<end], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let statusParts = lines[0].split(separator: " ", maxSplits: 2)
            guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/"), let status = Int(statusParts[1]) else { return nil }
            if status == 100 {
                bytes.removeFirst(end + 4)
                continue
            }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let rest = Array(bytes[(end + 4)...])
            if headers["transfer-encoding"]?.lowercased() == "chunked" {
                let (body, complete) = dechunk(rest)
                return (ServeReply(status: status, headers: headers, body: Data(body)), complete)
            }
            if let length = headers["content-length"].flatMap({ Int($0) }) {
                return (ServeReply(status: status, headers: headers, body: Data(rest.prefix(length))), rest.count >= length)
            }
            return (ServeReply(status: status, headers: headers, body: Data(rest)), false)
        }
    }

    /// The body of a chunked transfer so far, and whether its last (empty) chunk has arrived.
    static func dechunk(_ bytes: [UInt8]) -> (body: [UInt8], complete: Bool) {
        var body: [UInt8] = []
        var index = 0
        while let lineEnd = find([13, 10], in: bytes, from: index) {
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { break }
            let start = lineEnd + 2
            if size == 0 { return (body, find([13, 10], in: bytes, from: start) != nil) }
            guard bytes.count >= start + size + 2 else { break }
            body += bytes[start..<(start + size)]
            index = start + size + 2
        }
        return (body, false)
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] {
            if Array(bytes[index..<(index + needle.count)]) == needle { return index }
        }
        return nil
    }
}

// MARK: - Server-sent events

/// One server-sent event.
struct ServeSSEEvent: Sendable, CustomStringConvertible {
    var event: String
    var id: Int?
    var data: String

    /// `data` as a JSON object.
    var object: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any]
    }

    var description: String { "\(event)#\(id.map(String.init) ?? "-") \(data)" }

    /// The complete events in a stream's text (blocks ending in a blank line); comments and `retry:` blocks
    /// are left out.
    static func parse(_ text: String) -> [ServeSSEEvent] {
        var events: [ServeSSEEvent] = []
        var blocks = text.components(separatedBy: "\n\n")
        blocks.removeLast()  // not yet complete (or empty)
        for block in blocks {
            var event = "message"
            var id: Int?
            var data: [String] = []
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix(":") { continue }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let field = String(parts[0])
                var value = parts.count > 1 ? String(parts[1]) : ""
                if value.hasPrefix(" ") { value.removeFirst() }
                switch field {
                case "event": event = value
                case "id": id = Int(value)
                case "data":
                    data.append(value)
                    hasData = true
                default: break
                }
            }
            if hasData { events.append(ServeSSEEvent(event: event, id: id, data: data.joined(separator: "\n"))) }
        }
        return events
    }
}

/// `GET /v1/sessions/{id}/captions` read as it comes on a raw connection (HTTP/1.1, chunked).
final class ServeEventStream: Sendable {
    let connection: ServeRawConnection

    init(port: UInt16, path: String, token: String) async throws {
        connection = try ServeRawConnection(port: port)
        await connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
            + "Authorization: Bearer \(token)\r\n\r\n")
    }

    /// The answer so far (status, headers, the de-chunked body) and whether its body is complete.
    var current: (reply: ServeReply, complete: Bool)? { ServeRawHTTP.parse(connection.received) }

    var events: [ServeSSEEvent] { current.map { ServeSSEEvent.parse($0.reply.text) } ?? [] }

    /// Waits for the answer's head.
    func head(timeout: Double = serveTimeout) async -> ServeReply? {
        _ = await connection.waitFor(timeout: timeout) { ServeRawHTTP.parse($0) != nil }
        return current?.reply
    }

    /// True once the events so far satisfy `condition`.
    func waitForEvents(timeout: Double = serveTimeout, _ condition: @escaping @Sendable ([ServeSSEEvent]) -> Bool) async -> Bool {
        await connection.waitFor(timeout: timeout) { data in
            guard let (reply, _) = ServeRawHTTP.parse(data) else { return false }
            return condition(ServeSSEEvent.parse(reply.text))
        }
    }

    /// True once the stream has ended: its last chunk arrived (or the connection closed).
    func waitForEnd(timeout: Double = serveTimeout) async -> Bool {
        let ended = await connection.waitFor(timeout: timeout) { ServeRawHTTP.parse($0)?.complete == true }
        return ended || connection.isClosed
    }

    func disconnect() { connection.disconnect() }
}

// MARK: - A store for two users

/// A store made directly through the library, with tokens for two users:
///
/// - `standup` (alice): `standupCount` transcripts, the first with two utterances (words, confidence);
/// - `secret` (bob): transcripts whose text is `secretText`, their rows interleaved with standup's;
/// - `shared` (alice and bob): two transcripts, one with a space in its tid;
/// - `quiet` (alice): no transcripts.
struct ServeFixture: Sendable {
    static let secretText = "bob plans the launch for friday"
    static let base: Int64 = 1_764_430_000

    let storePath: String
    let aliceToken: String
    let bobToken: String
    let standupTids: [String]
    let secretTids: [String]
    let sharedTids: [String]

    /// What alice must never see: bob's text and transcript ids, the store's path.
    var aliceLeaks: [String] { [Self.secretText, storePath] + secretTids }

    static func make(in directory: TemporaryFolder, at name: String = "store/transcripts.sqlite",
                     standupCount: Int = 73) throws -> ServeFixture {
        let path = directory.path(name)
        let store = try SQLiteTranscriptStore(path: path)
        defer { store.close() }
        let standup = try store.createSession(NewSession(sessionID: "standup", roomName: "daily", url: "https://meet.example/standup",
                                                         startTime: base, participants: ["alice"]))
        let secret = try store.createSession(NewSession(sessionID: "secret", roomName: "board", startTime: base + 5,
                                                        participants: ["bob"]))
        var standupTids: [String] = []
        var secretTids: [String] = []
        for index in 0..<standupCount {
            let tid = String(format: "standup-%03d", index)
            let time = base + Int64(index) * 60
            let key = try store.beginTranscript(NewTranscript(tid: tid, sessionKey: standup, sessionID: "standup", language: "en-US",
                                                              startTime: time, transcriptURL: "file://\(directory.path)/t/\(tid).json"))
            try store.appendUtterance(StoredUtterance(segment: 1, start: 0.5, end: 2.25, text: "update number \(index)", confidence: 0.9,
                                                      words: [.init(word: "update", start: 0.5, end: 1.0)], language: "en-US"),
                                      transcript: key, time: time + 3)
            if index == 0 {
                try store.appendUtterance(StoredUtterance(segment: 2, start: 3.5, end: 5.0, text: "go forward ten meters"),
                                          transcript: key, time: time + 5)
            }
            standupTids.append(tid)
            if index % 10 == 3 {
                let secretTid = "secret-\(index)"
                let secretKey = try store.beginTranscript(NewTranscript(tid: secretTid, sessionKey: secret, sessionID: "secret",
                                                                        language: "en-US", startTime: time + 1,
                                                                        transcriptURL: "file://\(directory.path)/t/\(secretTid).json"))
                try store.appendUtterance(StoredUtterance(segment: 1, start: 0, end: 1, text: secretText), transcript: secretKey,
                                          time: time + 2)
                secretTids.append(secretTid)
            }
        }
        try store.endSession(standup, endTime: base + Int64(standupCount) * 60)
        let shared = try store.createSession(NewSession(sessionID: "shared", roomName: "all-hands", startTime: base + 90_000,
                                                        participants: ["alice", "bob"]))
        var sharedTids: [String] = []
        for (index, tid) in ["shared one", "shared-2"].enumerated() {
            let key = try store.beginTranscript(NewTranscript(tid: tid, sessionKey: shared, sessionID: "shared", language: "de-DE",
                                                              startTime: base + 90_000 + Int64(index) * 10,
                                                              transcriptURL: "file://\(directory.path)/t/\(index).json"))
            try store.appendUtterance(StoredUtterance(segment: 1, start: 0, end: 1, text: "hallo \(index)"), transcript: key,
                                      time: base + 90_001 + Int64(index) * 10)
            sharedTids.append(tid)
        }
        _ = try store.createSession(NewSession(sessionID: "quiet", startTime: base + 100_000, participants: ["alice"]))
        let tokens = AccessTokens(store: store)
        return ServeFixture(storePath: path, aliceToken: try tokens.create(user: "alice").token,
                            bobToken: try tokens.create(user: "bob").token, standupTids: standupTids,
                            secretTids: secretTids, sharedTids: sharedTids)
    }

    /// The pages the local `TranscriptsRequest` gives (its `fetchNext` walk), as tids, up to the first empty one.
    func localPages(session: String, limit: Int) async throws -> [[String]] {
        let store = try SQLiteTranscriptStore(path: storePath, create: false)
        defer { store.close() }
        let request = TranscriptsRequest.Builder().sessionId(session).limit(limit).store(store).build()
        var pages: [[String]] = []
        while true {
            let page = try await request.fetchNext()
            if page.isEmpty { return pages }
            pages.append(page.map(\.tid))
        }
    }

    /// `audiograph serve --store STORE --listen 127.0.0.1:0`.
    var serveArguments: [String] { ["serve", "--store", storePath, "--listen", "127.0.0.1:0"] }
}

/// The tids of a page answer's `transcripts`.
func pageTids(_ reply: ServeReply, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
    let transcripts = try #require(try reply.json()["transcripts"] as? [[String: Any]], "\(reply)", sourceLocation: sourceLocation)
    return transcripts.compactMap { $0["tid"] as? String }
}

/// `audiograph` speech fixtures for live runs: the last 7.7 s of examples/audio/call.flac ("go forward ten meters",
/// "feels like these days go on forever"), made with sox in `directory`.
enum ServeSpeech {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `name`: the bundled call from 16 s on (7.7 s of speech), `times` times over (sox `repeat`).
    static func make(_ name: String = "speech.wav", times: Int = 1, in directory: TemporaryFolder) async throws {
        let call = packageRoot.appendingPathComponent("examples/audio/call.flac").path
        let repeats = times > 1 ? ["repeat", String(times - 1)] : []
        let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"), ["sox", call, name, "trim", "16"] + repeats,
                                           in: directory)
        guard result.status == 0 else { throw HarnessError("sox failed: \(result.stderr)") }
    }

    /// A realtime speech pipeline with captions on, writing to `store`; `serve` adds a top-level serve block.
    static func config(session: String, participants: [String], store: String, serve: String? = nil) -> String {
        let users = participants.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            {
              "version": 1,\(serve.map { "\n  \"serve\": \($0)," } ?? "")
              "session": { "id": "\(session)", "room": "lab", "autoStartTranscription": true, "captions": true,
                           "participants": [\(users)] },
              "nodes": {
                "src":   { "type": "file-source", "path": "speech.wav", "realtime": true },
                "rs":    { "type": "resampler", "sampleRate": 16000, "channels": 1 },
                "vad":   { "type": "vad" },
                "asr":   { "type": "recognizer", "engine": "pocketsphinx" },
                "store": { "type": "transcript-store", "path": "\(store)" }
              },
              "links": ["src -> rs -> vad -> asr -> store"]
            }
            """
    }
}
