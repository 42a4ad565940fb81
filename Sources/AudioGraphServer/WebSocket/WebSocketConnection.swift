import AudioGraphWebSocket
import CWslay
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What one WebSocket connection may hold.
public struct WebSocketLimits: Sendable, Equatable {
    /// The largest message taken (fragments joined); a larger one closes the connection with 1009 Message Too
    /// Big. It bounds what wslay buffers per connection. Default 256 KiB (0.7 s of 48 kHz stereo f32le).
    public var maxMessageBytes: Int
    /// Seconds without a byte from the client (while the server wants to read) before it is closed with 1001.
    /// Default 30.
    public var idleTimeoutSeconds: Double
    /// Seconds to wait for the client's close frame after the server sent its own, before dropping the
    /// connection. Default 2.
    public var closeTimeoutSeconds: Double

    public init(maxMessageBytes: Int = 256 * 1024, idleTimeoutSeconds: Double = 30, closeTimeoutSeconds: Double = 2) {
        self.maxMessageBytes = maxMessageBytes
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.closeTimeoutSeconds = closeTimeoutSeconds
    }
}

/// What a WebSocket connection's messages go to. Called on the connection's own thread, one call at a time.
public protocol WebSocketDelegate: AnyObject, Sendable {
    /// A whole binary message (wslay joins fragments); the bytes are valid during the call only.
    func received(binary: UnsafeRawBufferPointer, on connection: WebSocketConnection)
    /// A whole text message (valid UTF-8: wslay closes with 1007 otherwise).
    func received(text: String, on connection: WebSocketConnection)
    /// Seconds the connection should stop reading for (pacing); 0 to read on. `now` is monotonic seconds.
    func readingPause(now: Double) -> Double
    /// The connection is over (closed either way, dropped, or never opened). Exactly once, and last.
    func ended()
}

extension WebSocketDelegate {
    public func received(text: String, on connection: WebSocketConnection) {
        connection.close(code: WebSocketCloseCode.unsupportedData, reason: "this endpoint takes no text messages")
    }

    public func readingPause(now: Double) -> Double { 0 }
}

/// The close codes this server sends (RFC 6455 section 7.4.1).
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let unsupportedData: UInt16 = 1003
    public static let invalidPayload: UInt16 = 1007
    public static let messageTooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011
}

/// What a read or a write on a transport did (the client's type: the same three outcomes).
typealias WebSocketTransfer = SocketTransfer

/// The bytes under a WebSocket: the upgraded socket (`SocketTransport`), or memory when fuzzing.
protocol WebSocketTransport: AnyObject {
    /// The descriptor to poll, -1 for none.
    var descriptor: Int32 { get }
    /// Bytes read before the connection started (libmicrohttpd's `extra_in`) not yet handed out: poll would
    /// not report them.
    var hasBufferedInput: Bool { get }
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> WebSocketTransfer
    func send(_ bytes: UnsafeRawBufferPointer) -> WebSocketTransfer
    /// The connection is over: give the socket back (libmicrohttpd closes it).
    func release()
}

/// One WebSocket connection, server side: RFC 6455 framing by wslay (ping/pong, fragments, close handshake,
/// UTF-8 of text, the message size limit) over a transport, messages handed to a delegate.
///
/// `run()` is the connection's loop, on a thread of its own: poll the socket (and a wake-up eventfd), let
/// wslay read and write, close after `idleTimeoutSeconds` without input, pace reading as the delegate asks
/// (not reading is what slows a TCP sender), and end when the close handshake is done or the peer is gone.
///
/// `@unchecked Sendable`: everything but `requested` (a `Mutex`) and `wake` (an eventfd, written from any
/// thread) is touched only by the thread running `run()`/`drive()`, and the delegate's callbacks run there too.
public final class WebSocketConnection: @unchecked Sendable {
    private var context: OpaquePointer?
    private let transport: any WebSocketTransport
    private let delegate: any WebSocketDelegate
    let limits: WebSocketLimits
    private let clock: @Sendable () -> Double
    /// A close asked for from another thread (`requestClose`), applied by the loop.
    private let requested = Mutex<(code: UInt16, reason: String)?>(nil)
    /// A pipe: `requestClose` writes a byte to wake the loop from `poll`; -1 without a socket.
    private let wake: (read: Int32, write: Int32)
    /// The loop queued a close frame: data messages after it are dropped.
    private var closing = false
    private var ended = false

    /// Monotonic seconds.
    static let monotonic: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    init(transport: any WebSocketTransport, delegate: any WebSocketDelegate, limits: WebSocketLimits,
         clock: @escaping @Sendable () -> Double = WebSocketConnection.monotonic) {
        self.transport = transport
        self.delegate = delegate
        self.limits = limits
        self.clock = clock
        wake = transport.descriptor >= 0 ? Self.wakePipe() : (-1, -1)
        var callbacks = wslay_event_callbacks(recv_callback: receiveCallback, send_callback: sendCallback,
                                              genmask_callback: nil, on_frame_recv_start_callback: nil,
                                              on_frame_recv_chunk_callback: nil, on_frame_recv_end_callback: nil,
                                              on_msg_recv_callback: messageCallback)
        var created: OpaquePointer?
        if wslay_event_context_server_init(&created, &callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 {
            context = created
            wslay_event_config_set_max_recv_msg_length(created, UInt64(max(limits.maxMessageBytes, 1)))
        }
    }

    deinit {
        if let context { wslay_event_context_free(context) }
        if wake.read >= 0 {
            Glibc.close(wake.read)
            Glibc.close(wake.write)
        }
    }

    /// A non-blocking pipe, close-on-exec; (-1, -1) when there is none to be had (then a close asked for from
    /// another thread waits for the loop's next turn: at most the idle timeout).
    private static func wakePipe() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        return (ends[0], ends[1])
    }

    /// Queues a close frame with `code` and `reason` (at most 123 bytes of UTF-8); later data messages are
    /// dropped. Only from the delegate's callbacks (the connection's thread); other threads: `requestClose`.
    public func close(code: UInt16, reason: String) {
        guard let context, !closing else { return }
        closing = true
        let reason = Array(reason.utf8.prefix(123))
        _ = reason.withUnsafeBufferPointer { wslay_event_queue_close(context, code, $0.baseAddress, $0.count) }
    }

    /// Asks the connection's loop to close with `code` (server shutdown: 1001). Any thread.
    public func requestClose(code: UInt16, reason: String) {
        requested.withLock { if $0 == nil { $0 = (code, reason) } }
        if wake.write >= 0 {
            var one: UInt8 = 1
            _ = Glibc.write(wake.write, &one, 1)
        }
    }

    /// Runs the connection on the calling thread until it is over, then tells the delegate (`ended`).
    func run() {
        defer { finish() }
        guard let context else { return }
        let fd = transport.descriptor
        var idleDeadline = clock() + limits.idleTimeoutSeconds
        var closeDeadline: Double?
        while true {
            applyRequestedClose()
            let now = clock()
            if closeDeadline == nil, closing || wslay_event_get_close_sent(context) != 0 {
                closeDeadline = now + limits.closeTimeoutSeconds
            }
            if let closeDeadline, now >= closeDeadline { return }
            let wantRead = wslay_event_want_read(context) != 0
            let wantWrite = wslay_event_want_write(context) != 0
            guard wantRead || wantWrite else { return }
            let pause = wantRead && !closing ? delegate.readingPause(now: now) : 0
            if pause > 0 { idleDeadline = max(idleDeadline, now + pause + limits.idleTimeoutSeconds) }
            if wantRead, !closing, now >= idleDeadline {
                close(code: WebSocketCloseCode.goingAway, reason: "no data for \(Int(limits.idleTimeoutSeconds)) s")
                continue
            }
            let reading = wantRead && pause <= 0
            if reading, transport.hasBufferedInput {
                guard wslay_event_recv(context) == 0 else { return }
                idleDeadline = clock() + limits.idleTimeoutSeconds
                continue
            }
            var waitUntil = idleDeadline
            if pause > 0 { waitUntil = min(waitUntil, now + pause) }
            if let closeDeadline { waitUntil = min(waitUntil, closeDeadline) }
            var fds = [pollfd(fd: fd, events: Int16((reading ? POLLIN : 0) | (wantWrite ? POLLOUT : 0)), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let timeout = Int32(min(max((waitUntil - now) * 1000, 0), 60_000).rounded(.up))
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0, errno != EINTR { return }
            if fds[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = Glibc.read(wake.read, &drained, drained.count)
            }
            let events = Int32(fds[0].revents)
            if reading, events & Int32(POLLIN | POLLHUP | POLLERR) != 0 {
                guard wslay_event_recv(context) == 0 else { return }
                idleDeadline = clock() + limits.idleTimeoutSeconds
            }
            if wantWrite, events & Int32(POLLOUT | POLLERR) != 0 {
                guard wslay_event_send(context) == 0 else { return }
            }
            if !reading, events & Int32(POLLHUP | POLLERR) != 0 { return }
        }
    }

    /// Runs the connection over a transport that never blocks (memory: the fuzzer), until its input ends.
    func drive() {
        defer { finish() }
        guard let context else { return }
        while true {
            applyRequestedClose()
            let wantRead = wslay_event_want_read(context) != 0 && delegate.readingPause(now: clock()) <= 0
            let wantWrite = wslay_event_want_write(context) != 0
            guard wantRead || wantWrite else { return }
            if wantRead, wslay_event_recv(context) != 0 { return }
            if wantWrite, wslay_event_send(context) != 0 { return }
        }
    }

    /// Runs `upgrade` over bytes from memory instead of a socket, handed out `chunkSizes` at a time (then all
    /// that is left), until they end: the fuzzer's way in (fuzz/websocket). The bytes the server sent.
    public static func runInMemory(_ upgrade: WebSocketUpgrade, input: [UInt8], chunkSizes: [Int] = []) -> Int {
        let transport = MemoryTransport(input: input, chunks: chunkSizes)
        WebSocketConnection(transport: transport, delegate: upgrade.delegate, limits: upgrade.limits).drive()
        return transport.sentBytes
    }

    private func applyRequestedClose() {
        if let (code, reason) = requested.withLock({ $0 }) { close(code: code, reason: reason) }
    }

    private func finish() {
        guard !ended else { return }
        ended = true
        delegate.ended()
        transport.release()
    }

    // MARK: wslay's callbacks (on the connection's thread)

    fileprivate func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if !closing, delegate.readingPause(now: clock()) > 0 { return WebSocketTransfer.wouldBlock.wslayAnswer(context) }
        return transport.receive(into: buffer).wslayAnswer(context)
    }

    fileprivate func send(_ bytes: UnsafeRawBufferPointer) -> Int { transport.send(bytes).wslayAnswer(context) }

    fileprivate func message(opcode: UInt8, bytes: UnsafeRawBufferPointer) {
        guard !closing, context.map({ wslay_event_get_close_sent($0) == 0 }) ?? false else { return }
        switch UInt32(opcode) {
        case WSLAY_BINARY_FRAME.rawValue:
            delegate.received(binary: bytes, on: self)
        case WSLAY_TEXT_FRAME.rawValue:
            delegate.received(text: String(decoding: bytes, as: UTF8.self), on: self)
        default:
            break  // close, ping, pong: wslay answers them
        }
    }
}

private let receiveCallback: wslay_event_recv_callback = { _, buffer, length, _, user in
    guard let buffer, let user else { return -1 }
    return Unmanaged<WebSocketConnection>.fromOpaque(user).takeUnretainedValue()
        .receive(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
}

private let sendCallback: wslay_event_send_callback = { _, bytes, length, _, user in
    guard let bytes, let user else { return -1 }
    return Unmanaged<WebSocketConnection>.fromOpaque(user).takeUnretainedValue()
        .send(UnsafeRawBufferPointer(start: bytes, count: length))
}

private let messageCallback: wslay_event_on_msg_recv_callback = { _, argument, user in
    guard let argument, let user else { return }
    let message = argument.pointee
    Unmanaged<WebSocketConnection>.fromOpaque(user).takeUnretainedValue()
        .message(opcode: message.opcode, bytes: UnsafeRawBufferPointer(start: message.msg, count: message.msg_length))
}

/// The upgraded socket libmicrohttpd hands over: the bytes it had read already come first. Closed only through
/// `release` (libmicrohttpd's `MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE)`), never `close(2)`.
final class SocketTransport: WebSocketTransport {
    let descriptor: Int32
    private var buffered: [UInt8]
    private var bufferedStart = 0
    private var close: (() -> Void)?
    private let lingerSeconds: Double

    /// - Parameter lingerSeconds: at most how long `release` reads and drops what the client still sends.
    init(descriptor: Int32, buffered: [UInt8], lingerSeconds: Double, close: @escaping () -> Void) {
        self.descriptor = descriptor
        self.buffered = buffered
        self.lingerSeconds = lingerSeconds
        self.close = close
    }

    /// A lingering close: the server's side is shut down (the client reads the end after the close frame), and
    /// what the client still sends is read and dropped until it closes too (at most `lingerSeconds`, 1 MiB).
    /// Closing with unread input would reset the connection, and a reset makes the client's system drop the
    /// close frame it has not read yet (seen: 1006 instead of 1009 after a message too big, whose rest was
    /// still arriving).
    func release() {
        guard let close else { return }
        self.close = nil
        shutdown(descriptor, Int32(SHUT_WR))
        let deadline = WebSocketConnection.monotonic() + lingerSeconds
        var drained = 0
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while drained < 1 << 20 {
            let left = deadline - WebSocketConnection.monotonic()
            guard left > 0 else { break }
            var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 1, Int32((left * 1000).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = recv(descriptor, &scratch, scratch.count, 0)
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break }
            drained += count
        }
        close()
    }

    var hasBufferedInput: Bool { bufferedStart < buffered.count }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> WebSocketTransfer {
        if hasBufferedInput {
            let count = min(buffer.count, buffered.count - bufferedStart)
            buffered.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + bufferedStart, byteCount: count)
            }
            bufferedStart += count
            if !hasBufferedInput { buffered = [] }
            return .transferred(count)
        }
        return SocketTransfer.receive(descriptor, into: buffer)
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> WebSocketTransfer { SocketTransfer.send(descriptor, bytes) }
}

/// Bytes from memory, handed out in the sizes given (the fuzzer's); then the peer is gone. What is sent is
/// counted and dropped.
final class MemoryTransport: WebSocketTransport {
    private let input: [UInt8]
    private var chunks: [Int]
    private var position = 0
    private(set) var sentBytes = 0

    init(input: [UInt8], chunks: [Int] = []) {
        self.input = input
        self.chunks = chunks
    }

    var descriptor: Int32 { -1 }
    var hasBufferedInput: Bool { position < input.count }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> WebSocketTransfer {
        guard position < input.count else { return .closed }
        let wanted = chunks.isEmpty ? buffer.count : max(1, chunks.removeFirst())
        let count = min(wanted, buffer.count, input.count - position)
        input.withUnsafeBytes { source in buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count) }
        position += count
        return .transferred(count)
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> WebSocketTransfer {
        sentBytes += bytes.count
        return .transferred(bytes.count)
    }

    func release() {}
}
