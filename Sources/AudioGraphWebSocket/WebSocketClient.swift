import CCrypto
import CWslay
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket client (RFC 6455, version 13) over a plain TCP connection (`ws://`, no TLS): the opening
/// handshake written by hand and its `Sec-WebSocket-Accept` checked, then framing by wslay in its client mode
/// (masked frames, ping/pong, the close handshake).
///
/// Blocking and single-threaded: `send` returns once the message is on the socket (so a server that stops
/// reading slows the sender: TCP backpressure), and between sends `service(until:)` answers pings and notices
/// the server's close. `close()` sends a close frame and waits for the server's.
///
/// Confinement: not `Sendable`; use an instance from one thread at a time.
public final class WebSocketClient {
    /// What the server's close frame said.
    public struct CloseStatus: Sendable, Equatable {
        /// The code (1005 when the frame had none).
        public var code: UInt16
        public var reason: String
    }

    private let connection: TCPConnection
    private var context: OpaquePointer?
    /// The subprotocol the server chose (`Sec-WebSocket-Protocol`), if any.
    public let subprotocol: String?
    /// The server's close frame, once it came.
    public private(set) var serverClose: CloseStatus?
    /// The connection ended (the peer is gone or a read or write failed).
    private var lost = false
    /// Seconds a send may wait for the server to read before the connection counts as stalled.
    public var stallTimeout: Double = 60

    private init(connection: TCPConnection, subprotocol: String?) {
        self.connection = connection
        self.subprotocol = subprotocol
    }

    deinit {
        if let context { wslay_event_context_free(context) }
        connection.close()
    }

    /// Connects to `host`:`port`, asks for `target` (path and query) to be upgraded with the extra `headers`
    /// (`Authorization`, …) and the subprotocols offered, and checks the 101 answer. `timeout` bounds the TCP
    /// connection, `answerTimeout` the wait for the answer (a call's server builds the participant's branch,
    /// recognizer model and all, before it answers).
    /// - Throws: `.unreachable` (no connection), `.refused` (an HTTP answer other than 101: the status and the
    ///   API's error code), `.badHandshake`, `.connectionLost`.
    public static func connect(host: String, port: Int, target: String, headers: [(name: String, value: String)] = [],
                               protocols: [String] = [], timeout: Double = 10,
                               answerTimeout: Double = 60) throws(WebSocketClientError) -> WebSocketClient {
        let connection = try TCPConnection.connect(host: host, port: port, timeout: timeout)
        let deadline = TCPConnection.now() + answerTimeout
        let key = WebSocketAccept.newKey()
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var request = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { request += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        for header in headers { request += "\(header.name): \(header.value)\r\n" }
        request += "\r\n"
        try connection.sendAll(Array(request.utf8), deadline: deadline)
        let head = try HTTPResponseHead.read(from: connection, deadline: deadline)
        guard head.status == 101 else {
            throw head.refusal(reading: connection, deadline: deadline, what: "the WebSocket upgrade was refused")
        }
        guard head.headers["upgrade"]?.lowercased() == "websocket",
              head.headers["connection"]?.lowercased().split(separator: ",")
                .contains(where: { $0.trimmingCharacters(in: .whitespaces) == "upgrade" }) == true else {
            throw WebSocketClientError(.badHandshake, "the server's 101 answer lacks Upgrade: websocket and Connection: Upgrade")
        }
        guard head.headers["sec-websocket-accept"] == WebSocketAccept.value(forKey: key) else {
            throw WebSocketClientError(.badHandshake, "the server's Sec-WebSocket-Accept does not match the key sent")
        }
        let chosen = head.headers["sec-websocket-protocol"]
        if let chosen, !protocols.contains(chosen) {
            throw WebSocketClientError(.badHandshake, "the server chose a subprotocol not offered: \(chosen)")
        }
        let client = WebSocketClient(connection: connection, subprotocol: chosen)
        var callbacks = wslay_event_callbacks(recv_callback: clientReceive, send_callback: clientSend,
                                              genmask_callback: clientMask, on_frame_recv_start_callback: nil,
                                              on_frame_recv_chunk_callback: nil, on_frame_recv_end_callback: nil,
                                              on_msg_recv_callback: clientMessage)
        var created: OpaquePointer?
        guard wslay_event_context_client_init(&created, &callbacks, Unmanaged.passUnretained(client).toOpaque()) == 0 else {
            throw WebSocketClientError(.connectionLost, "cannot set up WebSocket framing (out of memory)")
        }
        client.context = created
        return client
    }

    /// Whether the server has closed (or the connection is gone): nothing more can be sent.
    public var isOver: Bool { serverClose != nil || lost }

    /// Sends one binary message and waits until it is on the socket.
    public func send(binary bytes: UnsafeRawBufferPointer) throws(WebSocketClientError) {
        try queue(opcode: UInt8(WSLAY_BINARY_FRAME.rawValue), bytes)
    }

    /// Sends one text message and waits until it is on the socket.
    public func send(text: String) throws(WebSocketClientError) {
        let bytes = Array(text.utf8)
        var failure: WebSocketClientError?
        bytes.withUnsafeBytes { raw in
            do throws(WebSocketClientError) { try queue(opcode: UInt8(WSLAY_TEXT_FRAME.rawValue), raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func queue(opcode: UInt8, _ bytes: UnsafeRawBufferPointer) throws(WebSocketClientError) {
        try checkOpen()
        guard let context else { return }
        var message = wslay_event_msg(opcode: opcode, msg: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                      msg_length: bytes.count)
        guard wslay_event_queue_msg(context, &message) == 0 else {
            try checkOpen()
            throw WebSocketClientError(.connectionLost, "cannot queue a message (the connection is closing)")
        }
        // wslay copies the message; flush it, reading what comes meanwhile (pings, the server's close).
        try pump(deadline: nil, untilFlushed: true)
        try checkOpen()
    }

    /// Reads what the server sends until `deadline` (answering pings), returning early when the server closes.
    public func service(until deadline: Double) throws(WebSocketClientError) {
        try pump(deadline: deadline, untilFlushed: false)
        try checkOpen()
    }

    /// Sends a close frame with `code` and `reason` (unless one was sent) and waits, at most `timeout` seconds,
    /// for the server's close frame; then closes the socket. The server's close status, or nil when none came.
    @discardableResult
    public func close(code: UInt16 = 1000, reason: String = "", timeout: Double = 5) -> CloseStatus? {
        if let context, !lost, wslay_event_get_close_sent(context) == 0 {
            let reason = Array(reason.utf8.prefix(123))
            _ = reason.withUnsafeBufferPointer { wslay_event_queue_close(context, code, $0.baseAddress, $0.count) }
        }
        let deadline = TCPConnection.now() + timeout
        while !lost, serverClose == nil, TCPConnection.now() < deadline {
            do { try pump(deadline: deadline, untilFlushed: false) } catch { break }
        }
        connection.close()
        return serverClose
    }

    private func checkOpen() throws(WebSocketClientError) {
        if let serverClose {
            var text = "the server closed the connection with \(serverClose.code)"
            if !serverClose.reason.isEmpty { text += ": \(serverClose.reason)" }
            throw WebSocketClientError(.closedByServer(code: serverClose.code), text)
        }
        if lost { throw WebSocketClientError(.connectionLost, "the connection to the server was lost (no close frame)") }
    }

    /// Reads and writes until `deadline` (nil: none), or until everything queued is written (`untilFlushed`),
    /// or the server's close came and our answer to it went out, or the connection is gone.
    private func pump(deadline: Double?, untilFlushed: Bool) throws(WebSocketClientError) {
        guard let context else { return }
        var stallDeadline = TCPConnection.now() + stallTimeout
        while !lost {
            let wantRead = wslay_event_want_read(context) != 0
            let wantWrite = wslay_event_want_write(context) != 0
            if untilFlushed, !wantWrite { return }
            if serverClose != nil, !wantWrite { return }
            guard wantRead || wantWrite else { return }
            if let deadline, TCPConnection.now() >= deadline, !(untilFlushed && wantWrite) { return }
            if wantRead, connection.hasPendingInput {
                if wslay_event_recv(context) != 0 { lost = true }
                continue
            }
            var limit = deadline
            if untilFlushed { limit = stallDeadline }
            let events = connection.wait(read: wantRead, write: wantWrite, deadline: limit)
            if events == 0 {
                if untilFlushed, TCPConnection.now() >= stallDeadline {
                    lost = true
                    throw WebSocketClientError(.connectionLost, "the server read nothing for \(Int(stallTimeout)) s")
                }
                continue
            }
            if wantRead, events & Int32(POLLIN | POLLHUP | POLLERR) != 0 {
                if wslay_event_recv(context) != 0 { lost = true }
            }
            if wantWrite, !lost, events & Int32(POLLOUT | POLLERR) != 0 {
                if wslay_event_send(context) != 0 { lost = true }
                stallDeadline = TCPConnection.now() + stallTimeout
            }
            if !wantRead, events & Int32(POLLHUP | POLLERR) != 0 { lost = true }
        }
    }

    // MARK: wslay's callbacks

    fileprivate func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        connection.receive(into: buffer).wslayAnswer(context)
    }

    fileprivate func send(_ bytes: UnsafeRawBufferPointer) -> Int {
        connection.send(bytes).wslayAnswer(context)
    }

    fileprivate func message(opcode: UInt8, bytes: UnsafeRawBufferPointer, statusCode: UInt16) {
        guard UInt32(opcode) == WSLAY_CONNECTION_CLOSE.rawValue else { return }  // this client takes no messages
        let reason = bytes.count > 2 ? String(decoding: bytes[2...], as: UTF8.self) : ""
        serverClose = CloseStatus(code: statusCode == 0 ? 1005 : statusCode, reason: reason)
    }
}

private let clientReceive: wslay_event_recv_callback = { _, buffer, length, _, user in
    guard let buffer, let user else { return -1 }
    return Unmanaged<WebSocketClient>.fromOpaque(user).takeUnretainedValue()
        .receive(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
}

private let clientSend: wslay_event_send_callback = { _, bytes, length, _, user in
    guard let bytes, let user else { return -1 }
    return Unmanaged<WebSocketClient>.fromOpaque(user).takeUnretainedValue()
        .send(UnsafeRawBufferPointer(start: bytes, count: length))
}

/// The masking keys of the client's frames (RFC 6455 section 5.3: unpredictable).
private let clientMask: wslay_event_genmask_callback = { _, buffer, length, _ in
    guard let buffer else { return -1 }
    return RAND_bytes(buffer, Int32(length)) == 1 ? 0 : -1
}

private let clientMessage: wslay_event_on_msg_recv_callback = { _, argument, user in
    guard let argument, let user else { return }
    let message = argument.pointee
    Unmanaged<WebSocketClient>.fromOpaque(user).takeUnretainedValue()
        .message(opcode: message.opcode, bytes: UnsafeRawBufferPointer(start: message.msg, count: message.msg_length),
                 statusCode: message.status_code)
}
