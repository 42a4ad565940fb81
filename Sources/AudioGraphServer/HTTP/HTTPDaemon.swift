import AudioGraphCore
import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// Why the server could not start.
public struct HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads polling with epoll, every request handed to
/// `handler` (which must be thread-safe), answers of bytes or server-sent events.
///
/// - A request's body is kept up to `HTTPRequest.maximumBody` bytes (the control API's JSON); past that it is
///   read and dropped and the request is marked `bodyTooLarge`.
/// - libmicrohttpd refuses on its own what does not fit its per-connection memory (`memoryLimit`: a request
///   line plus headers of more than that is answered 431).
/// - One client cannot hold the server (`limits`): past `maxConnectionsPerAddress` connections from one IP
///   address libmicrohttpd closes new ones at once; a connection that has not sent its whole request
///   `headerTimeoutSeconds` after it opened (or after its previous answer) is closed (`RequestDeadlines`);
///   one without traffic for `idleTimeoutSeconds` while it is answered is closed by libmicrohttpd. Neither
///   closes an event stream: its deadline ended with its request, and 0.9.75 does not time out a suspended
///   connection, which a stream is between writes (each resume counts as activity).
/// - An answer may upgrade the connection to a WebSocket (`HTTPResponse.Body.webSocket`): after the 101 went
///   out, libmicrohttpd hands the socket over and a thread of its own runs the connection (`WebSocketConnection`)
///   until it closes; libmicrohttpd's threads never block on it.
/// - `shutdown()` answers new requests 503, lets requests in flight finish, closes every event stream (after what is
///   queued on it is sent) and every WebSocket (1001 Going Away; their threads end), then stops the threads.
///
/// `@unchecked Sendable`: `daemon` is set once in `init` and cleared once in `shutdown` (under `stopping`);
/// everything else shared is in a `Mutex` or an `Atomic`.
public final class HTTPDaemon: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The port it listens on (the one the system picked when asked for port 0).
    public let port: UInt16
    public let host: String
    private var daemon: OpaquePointer?
    private let context: Context
    private let stopping = Mutex(false)
    private let keepalive: any DispatchSourceTimer
    private let deadlineSweeper: any DispatchSourceTimer

    /// What libmicrohttpd's callbacks reach through their `cls` pointer.
    final class Context: Sendable {
        let handler: Handler
        let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
        /// The WebSockets open now, and their threads (left when a connection's loop is over).
        let webSockets = Mutex<[ObjectIdentifier: WebSocketConnection]>([:])
        let webSocketThreads = DispatchGroup()
        /// Accepting or draining, and the requests in flight: one lock for the check and the count.
        let admission = Mutex(DaemonAdmission())
        /// Signalled when a drain's last request in flight completes.
        let drained = DispatchSemaphore(value: 0)
        let deadlines: RequestDeadlines

        init(handler: @escaping Handler, deadlines: RequestDeadlines) {
            self.handler = handler
            self.deadlines = deadlines
        }
    }

    /// Starts listening.
    /// - Parameters:
    ///   - address: where to listen (port 0: any free port).
    ///   - threads: worker threads.
    ///   - memoryLimit: bytes per connection for the request line and headers.
    ///   - connectionLimit: connections at once (default: 1024 per thread, within the open-file limit, which is
    ///     raised to its hard limit). libmicrohttpd splits the limit evenly between the threads, and under epoll
    ///     a thread whose share is full stops answering until its connections time out (0.9.75, seen in
    ///     benchmarks/http.sh at 700+ connections with 256 per thread), so each thread gets a large share.
    ///   - limits: connections per client address, the time to send a request, the idle timeout.
    ///   - keepaliveSeconds: how often every event stream gets a `: keepalive` comment.
    public init(address: ListenAddress, threads: Int = 4, connectionLimit: Int? = nil, limits: HTTPClientLimits = HTTPClientLimits(),
                memoryLimit: Int = 32 * 1024, keepaliveSeconds: Double = 15,
                handler: @escaping Handler) throws(HTTPServerError) {
        let deadlines = RequestDeadlines(timeoutSeconds: limits.headerTimeoutSeconds)
        let idleTimeout = max(limits.idleTimeoutSeconds, 1)
        context = Context(handler: handler, deadlines: deadlines)
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = address.port.bigEndian
        socketAddress.sin_addr.s_addr = address.octets.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_ALLOW_UPGRADE.rawValue
        let connectionLimit = connectionLimit ?? Self.defaultConnectionLimit(threads: max(threads, 1))
        let cls = Unmanaged.passUnretained(context).toOpaque()
        let started = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                audiograph_mhd_start(flags, address, UInt32(max(threads, 1)), UInt32(connectionLimit),
                                     UInt32(max(limits.maxConnectionsPerAddress, 0)), UInt32(idleTimeout), memoryLimit,
                                     accessHandler, cls, requestCompleted, cls, connectionNotified, cls)
            }
        }
        guard let started else {
            throw HTTPServerError(message: "cannot listen on \(address): "
                + (errno != 0 ? String(cString: strerror(errno)) : "libmicrohttpd refused"))
        }
        daemon = started
        host = address.host
        port = audiograph_mhd_bound_port(started)
        keepalive = DispatchSource.makeTimerSource(queue: .global())
        keepalive.schedule(deadline: .now() + keepaliveSeconds, repeating: keepaliveSeconds)
        keepalive.setEventHandler { [context] in
            for stream in context.streams.withLock({ Array($0.values) }) { stream.send(": keepalive\n\n") }
        }
        keepalive.resume()
        deadlineSweeper = DispatchSource.makeTimerSource(queue: .global())
        deadlineSweeper.schedule(deadline: .now() + deadlines.sweepInterval, repeating: deadlines.sweepInterval)
        deadlineSweeper.setEventHandler { deadlines.sweep() }
        deadlineSweeper.resume()
    }

    deinit { shutdown(timeout: 0) }

    /// 1024 connections per thread, within the open-file limit (its soft value raised to the hard one), less
    /// room for the store and the log.
    static func defaultConnectionLimit(threads: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = limit.rlim_cur >= UInt(Int.max) ? Int.max : Int(limit.rlim_cur)  // RLIM_INFINITY is all ones
        return max(64, min(threads * 1024, available - 64))
    }

    /// `http://HOST:PORT`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Requests being answered now (event streams count until they close).
    public var requestsInFlight: Int { context.admission.withLock { $0.inFlight } }

    /// Connections closed so far for not sending a whole request within `headerTimeoutSeconds`.
    public var requestTimeouts: Int { context.deadlines.closed }

    /// WebSockets open now.
    public var webSocketsOpen: Int { context.webSockets.withLock { $0.count } }

    /// Answers every new request `503 Service Unavailable` (`Connection: close`), closes the event streams and
    /// the WebSockets (1001 Going Away), waits up to `timeout` seconds for requests in flight and for the
    /// WebSockets' threads, and stops. Idempotent.
    ///
    /// Not `MHD_quiesce_daemon`: under epoll with a thread pool it takes the listening socket out of each worker's
    /// epoll set from the calling thread while a busy worker may be doing the same, and the loser's `ENOENT`
    /// aborts the process ("Fatal error in GNU libmicrohttpd daemon.c:5531: Failed to remove listen FD from
    /// epoll set", 0.9.75; seen once as `audiograph run` with a `serve` block exiting on SIGABRT after Ctrl-C).
    public func shutdown(timeout: Double = 10) {
        let first = stopping.withLock { stopping in defer { stopping = true }; return !stopping }
        guard first, let daemon else { return }
        keepalive.cancel()
        deadlineSweeper.cancel()
        let idle = context.admission.withLock { $0.beginDrain() }
        // A request admitted before the drain that opens its stream after this closes it itself (see
        // `accessHandler`), so every stream ends.
        for stream in context.streams.withLock({ Array($0.values) }) { stream.close() }
        // As for streams: a WebSocket that starts after this sees the drain itself (`upgradeHandler`).
        for socket in context.webSockets.withLock({ Array($0.values) }) {
            socket.requestClose(code: WebSocketCloseCode.goingAway, reason: "the server is stopping")
        }
        let deadline = DispatchTime.now() + timeout
        if !idle { _ = context.drained.wait(timeout: deadline) }
        // libmicrohttpd must not be stopped while an upgraded socket is still the application's.
        _ = context.webSocketThreads.wait(timeout: deadline)
        // libmicrohttpd must not be stopped with a suspended connection. The streams closed above were resumed
        // then, and a closed stream never suspends again; one that a request still in flight opened since is
        // closed (so resumed, `MHD_resume_connection`) here, before it is marked finished.
        for stream in context.streams.withLock({ Array($0.values) }) {
            stream.close()
            stream.finish()
        }
        MHD_stop_daemon(daemon)
        context.admission.withLock { $0.stop() }
        self.daemon = nil
    }
}

/// What one request keeps between libmicrohttpd's calls (`*con_cls`, retained): the body read so far, and the
/// event stream its answer became. Touched only by the connection's worker thread.
private final class RequestState: @unchecked Sendable {
    var body: [UInt8] = []
    var bodyTooLarge = false
    var stream: EventStream?
    /// The WebSocket this request's answer upgrades to.
    var upgrade: PendingUpgrade?
}

/// A WebSocket answer between the access handler and libmicrohttpd's upgrade callback. libmicrohttpd's callbacks
/// for one connection run on its one worker thread; the phase is in a `Mutex` all the same.
final class PendingUpgrade: Sendable {
    enum Phase { case pending, started, abandoned }
    let upgrade: WebSocketUpgrade
    let context: HTTPDaemon.Context
    private let phase = Mutex(Phase.pending)

    init(_ upgrade: WebSocketUpgrade, context: HTTPDaemon.Context) {
        self.upgrade = upgrade
        self.context = context
    }

    /// Moves from pending to `next`; false when it had moved already.
    func move(to next: Phase) -> Bool {
        phase.withLock { phase in
            guard phase == .pending else { return false }
            phase = next
            return true
        }
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, requestState in
    guard let cls, let connection, let requestState else { return .NO }
    let context = Unmanaged<HTTPDaemon.Context>.fromOpaque(cls).takeUnretainedValue()
    guard let stateRaw = requestState.pointee else {
        guard context.admission.withLock({ $0.admit() }) else { return refuseWhileStopping(connection) }
        requestState.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(stateRaw).takeUnretainedValue()
    if let uploadSize, uploadSize.pointee > 0 {
        // Kept up to `maximumBody`; past it the rest is read and dropped and the request answered 413.
        let count = uploadSize.pointee
        if !state.bodyTooLarge, let uploadData, state.body.count + count <= HTTPRequest.maximumBody {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
        } else {
            state.bodyTooLarge = true
            state.body = []
        }
        uploadSize.pointee = 0
        return .YES
    }
    context.deadlines.requestRead(connection)
    let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET",
                              path: url.map { String(cString: $0) } ?? "/",
                              query: connectionValues(connection, .GET_ARGUMENT_KIND).map { ($0.0, $0.1) },
                              headers: Dictionary(connectionValues(connection, .HEADER_KIND).map { ($0.0.lowercased(), $0.1) },
                                                  uniquingKeysWith: { _, last in last }),
                              body: state.body, bodyTooLarge: state.bodyTooLarge)
    let answer = context.handler(request)
    let response: OpaquePointer?
    switch answer.body {
    case .bytes(let bytes):
        response = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
    case .events(let stream):
        stream.attach(to: connection)
        context.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
        // Registered first, then checked: either shutdown's close loop sees this stream or this sees the drain.
        if !context.admission.withLock({ $0.isAccepting }) { stream.close() }
        state.stream = stream  // the completion callback unregisters it
        let retained = Unmanaged.passRetained(stream).toOpaque()
        response = MHD_create_response_from_callback(audiograph_mhd_size_unknown(), 4096, streamReader, retained, streamReleased)
    case .webSocket(let upgrade):
        let pending = PendingUpgrade(upgrade, context: context)
        state.upgrade = pending
        // Released by `upgradeHandler`, or by `requestCompleted` when the upgrade never happens.
        response = MHD_create_response_for_upgrade(upgradeHandler, Unmanaged.passRetained(pending).toOpaque())
    }
    guard let response else { return .NO }
    defer { MHD_destroy_response(response) }
    for header in answer.headers {
        _ = MHD_add_response_header(response, header.name, header.value)
    }
    return MHD_queue_response(connection, UInt32(answer.status), response)
}

/// A request that arrived after `shutdown()` began: `503`, and the connection closed after it.
private func refuseWhileStopping(_ connection: OpaquePointer) -> MHD_Result {
    guard let response = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) else { return .NO }
    defer { MHD_destroy_response(response) }
    _ = MHD_add_response_header(response, "Connection", "close")
    _ = MHD_add_response_header(response, "Retry-After", "1")
    return MHD_queue_response(connection, 503, response)
}

/// libmicrohttpd is done with a stream answer: the reader's reference goes.
private let streamReleased: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<EventStream>.fromOpaque(cls).release()
}

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return audiograph_mhd_end_with_error() }
    return Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestState, termination in
    guard let cls, let requestState, let raw = requestState.pointee else { return }
    let context = Unmanaged<HTTPDaemon.Context>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
    if let connection {
        // An upgraded connection sends no further request: no deadline for one.
        if state.upgrade == nil { context.deadlines.answerDone(connection) } else { context.deadlines.closed(connection) }
    }
    // Not upgraded and never will be (the 101 did not go out): the delegate hears of it, the retain goes.
    if let pending = state.upgrade, termination.rawValue != 0, pending.move(to: .abandoned) {
        pending.upgrade.delegate.ended()
        Unmanaged.passUnretained(pending).release()
    }
    if let stream = state.stream {
        stream.finish()
        _ = context.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
    }
    requestState.pointee = nil
    if context.admission.withLock({ $0.complete() }) { context.drained.signal() }
}

/// The 101 went out: the socket is the application's. The connection runs on a thread of its own; libmicrohttpd's
/// thread returns at once.
private let upgradeHandler: MHD_UpgradeHandler = { cls, _, _, extra, extraSize, socket, handle in
    guard let cls else { return }
    let pending = Unmanaged<PendingUpgrade>.fromOpaque(cls).takeRetainedValue()
    guard pending.move(to: .started) else { return }
    let context = pending.context
    let buffered = extra.map { Array(UnsafeRawBufferPointer(start: $0, count: extraSize)) } ?? []
    let transport = SocketTransport(descriptor: socket, buffered: buffered,
                                    lingerSeconds: pending.upgrade.limits.closeTimeoutSeconds) {
        if let handle { _ = audiograph_mhd_upgrade_close(handle) }
    }
    let connection = WebSocketConnection(transport: transport, delegate: pending.upgrade.delegate, limits: pending.upgrade.limits)
    let key = ObjectIdentifier(connection)
    context.webSockets.withLock { $0[key] = connection }
    // Registered first, then checked: either shutdown's close loop sees this socket or this sees the drain.
    if !context.admission.withLock({ $0.isAccepting }) {
        connection.requestClose(code: WebSocketCloseCode.goingAway, reason: "the server is stopping")
    }
    context.webSocketThreads.enter()
    let thread = Thread {
        connection.run()
        _ = context.webSockets.withLock { $0.removeValue(forKey: key) }
        context.webSocketThreads.leave()
    }
    thread.name = "websocket"
    thread.start()
}

private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let context = Unmanaged<HTTPDaemon.Context>.fromOpaque(cls).takeUnretainedValue()
    if audiograph_mhd_connection_started(code) != 0 {
        context.deadlines.opened(connection)
    } else {
        context.deadlines.closed(connection)
    }
}

/// Every key/value of one kind (headers, query arguments) of a connection.
private func connectionValues(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String)] {
    final class Collected { var items: [(String, String)] = [] }
    let collected = Collected()
    withExtendedLifetime(collected) {
        _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collected = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
            collected.items.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
    }
    return collected.items
}
