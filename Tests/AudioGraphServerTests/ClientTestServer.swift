import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request as the fake server read it.
struct ClientTestRequest: Sendable {
    var method: String
    /// The request target as sent: the percent-encoded path and query.
    var target: String
    /// Header values by lowercased name.
    var headers: [String: String]

    var path: String { String(target.prefix { $0 != "?" }) }

    /// The query's parameters (values as sent).
    var query: [String: String] {
        guard let mark = target.firstIndex(of: "?") else { return [:] }
        var result: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }
}

/// What the fake server answers a request.
indirect enum ClientTestResponse: Sendable {
    /// A well-formed HTTP response (`Content-Length`, `Connection: close`).
    case http(status: Int, body: String, contentType: String = "application/json")
    /// These bytes as they are, then the connection closes.
    case raw(String)
    /// The connection closes without an answer.
    case close
    /// Waits at `hold` until the test releases it, then answers `then`.
    case held(ClientTestHold, then: ClientTestResponse)
    /// Waits at `hold` until the test releases it, then lets the server's handler answer.
    case heldThenHandled(ClientTestHold)

    /// The API's error JSON with a status.
    static func error(_ status: Int, _ code: String, _ message: String) -> ClientTestResponse {
        .http(status: status, body: #"{"error":{"code":"\#(code)","message":"\#(message)"}}"#)
    }
}

/// Holds a request in the fake server until the test releases it. The server thread announces arrival (the
/// test awaits that: a condition, not a sleep) and then blocks on a semaphore.
final class ClientTestHold: Sendable {
    private struct State {
        var arrived = false
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Mutex(State())
    private let released = DispatchSemaphore(value: 0)

    /// Server side: announce arrival, then block until `release()` (or, as a guard against a hung test, 60 s).
    func pass() {
        let waiters = state.withLock { state in
            state.arrived = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
        _ = released.wait(timeout: .now() + 60)
    }

    /// Test side: true once a request is held here; false if none arrived within `guardSeconds` (a failure
    /// guard only, never the expected path).
    func waitUntilArrived(guardSeconds: Double = 30) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let arrived = state.withLock { state in
                if state.arrived { return true }
                state.waiters.append(continuation)
                return false
            }
            if arrived {
                continuation.resume(returning: true)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + guardSeconds) { [self] in
                let late = state.withLock { state in
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in late { waiter.resume(returning: false) }
            }
        }
    }

    /// Lets the held request be answered.
    func release() { released.signal() }
}

/// A tiny HTTP/1.1 server on 127.0.0.1 (POSIX sockets, a thread per connection, one request per connection)
/// for the client's tests: every request is recorded, and answered from a queue of canned responses, else by
/// `handler`.
final class ClientTestServer: Sendable {
    typealias Handler = @Sendable (ClientTestRequest) -> ClientTestResponse

    private struct State {
        var requests: [ClientTestRequest] = []
        var queued: [ClientTestResponse] = []
        var stopped = false
    }

    /// The state the accept and connection threads share with the test.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    let port: UInt16
    private let listener: Int32
    /// Writing a byte to `wake.1` stops the accept loop.
    private let wake: (Int32, Int32)
    private let shared = Shared()
    private let handler: Handler

    /// `http://127.0.0.1:PORT`.
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(handler: @escaping Handler = { _ in .error(404, "not_found", "nothing here") }) throws {
        self.handler = handler
        let (fd, port) = try Self.openListener()
        listener = fd
        self.port = port
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw ClientTestServerError.system("pipe", errno)
        }
        wake = (pipeFDs[0], pipeFDs[1])
        let thread = Thread { [listener, wake, shared, handler] in
            Self.acceptLoop(listener: listener, wake: wake.0, shared: shared, handler: handler)
            close(listener)
            close(wake.0)
        }
        thread.name = "client-test-server"
        thread.start()
    }

    /// Stops accepting connections (connections being answered finish). Idempotent.
    func stop() {
        let first = shared.state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.1, &byte, 1)
        close(wake.1)
    }

    /// The next requests get these answers, in order, before `handler` answers again.
    func enqueue(_ responses: ClientTestResponse...) {
        shared.state.withLock { $0.queued.append(contentsOf: responses) }
    }

    /// Every request read so far, in order of arrival.
    var requests: [ClientTestRequest] { shared.state.withLock { $0.requests } }

    /// A port on 127.0.0.1 with nothing listening: bound to port 0 to get a free one, then closed.
    static func closedPort() throws -> UInt16 {
        let (fd, port) = try openListener()
        close(fd)
        return port
    }

    // MARK: Sockets

    private static func openListener() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientTestServerError.system("socket", errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let error = errno
            close(fd)
            throw ClientTestServerError.system("bind/listen", error)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = errno
            close(fd)
            throw ClientTestServerError.system("getsockname", error)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    private static func acceptLoop(listener: Int32, wake: Int32, shared: Shared, handler: @escaping Handler) {
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0, fds[1].revents == 0 else { return }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            let thread = Thread {
                serve(connection, shared: shared, handler: handler)
            }
            thread.name = "client-test-connection"
            thread.start()
        }
    }

    private static func serve(_ connection: Int32, shared: Shared, handler: Handler) {
        defer { close(connection) }
        guard let request = readRequest(connection) else { return }
        let queued = shared.state.withLock { state in
            state.requests.append(request)
            return state.queued.isEmpty ? nil : state.queued.removeFirst()
        }
        var response = queued ?? handler(request)
        while true {
            if case .held(let hold, let then) = response {
                hold.pass()
                response = then
            } else if case .heldThenHandled(let hold) = response {
                hold.pass()
                response = handler(request)
            } else {
                break
            }
        }
        switch response {
        case .http(let status, let body, let contentType):
            let bytes = Array(body.utf8)
            let head = "HTTP/1.1 \(status) \(reason(status))\r\nContent-Type: \(contentType)\r\n"
                + "Content-Length: \(bytes.count)\r\nConnection: close\r\n\r\n"
            sendAll(connection, Array(head.utf8) + bytes)
        case .raw(let text):
            sendAll(connection, Array(text.utf8))
        case .close, .held, .heldThenHandled:
            break
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    /// Reads up to the end of the header block (the client's GETs have no body).
    private static func readRequest(_ connection: Int32) -> ClientTestRequest? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while data.count < 65536 {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            if let range = data.firstRange(of: end) {
                let lines = String(decoding: data[..<range.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let requestLine = lines[0].split(separator: " ")
                guard requestLine.count == 3 else { return nil }
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: .whitespaces)
                }
                return ClientTestRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
            }
        }
        return nil
    }

    private static func sendAll(_ connection: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }
}

enum ClientTestServerError: Error {
    case system(String, Int32)
}
