import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a host and port, non-blocking underneath, with the waits done by `poll` against
/// deadlines: what the WebSocket client and the caption-event reader run over (plain `http://`/`ws://`; no TLS).
///
/// Confinement: not `Sendable` in use; one thread at a time. `shutdownNow()` may be called from any thread to
/// wake a reader (it only shuts the socket down; `close()` releases it).
public final class TCPConnection: @unchecked Sendable {
    public let descriptor: Int32
    /// Bytes read past what a caller took (a response head's end, say): handed out first.
    private var pending: [UInt8] = []
    private var closed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Monotonic seconds.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Connects to `host` (a name or an IPv4/IPv6 address) on `port`, trying each address the resolver gives
    /// until one answers, within `timeout` seconds in all.
    public static func connect(host: String, port: Int, timeout: Double) throws(WebSocketClientError) -> TCPConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw WebSocketClientError(.unreachable, "cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        let deadline = now() + timeout
        var failure = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            info.pointee.ai_protocol)
            guard fd >= 0 else { failure = String(cString: strerror(errno)); continue }
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                return TCPConnection(descriptor: fd)
            }
            guard errno == EINPROGRESS else {
                failure = String(cString: strerror(errno))
                Glibc.close(fd)
                continue
            }
            var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
            var ready: Int32 = -1
            repeat {
                ready = poll(&fds, 1, milliseconds(until: deadline))
            } while ready < 0 && errno == EINTR
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if ready > 0, getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return TCPConnection(descriptor: fd)
            }
            failure = ready == 0 ? "timed out after \(formatSeconds(timeout)) s" : String(cString: strerror(error != 0 ? error : errno))
            Glibc.close(fd)
        }
        throw WebSocketClientError(.unreachable, "cannot connect to \(host):\(port): \(failure)")
    }

    /// Milliseconds from now to `deadline` for `poll` (0 when past; -1 for no deadline).
    static func milliseconds(until deadline: Double?) -> Int32 {
        guard let deadline else { return -1 }
        return Int32(min(max((deadline - now()) * 1000, 0), 3_600_000).rounded(.up))
    }

    static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }

    /// Whether bytes read earlier are waiting (poll would not report them).
    public var hasPendingInput: Bool { !pending.isEmpty }

    /// Puts `bytes` back in front of what is read next.
    func unread(_ bytes: ArraySlice<UInt8>) {
        pending = Array(bytes) + pending
    }

    /// Reads what is there without blocking.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> SocketTransfer {
        if !pending.isEmpty {
            let count = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            pending.removeFirst(count)
            return .transferred(count)
        }
        return SocketTransfer.receive(descriptor, into: buffer)
    }

    /// Writes what the socket takes now without blocking.
    public func send(_ bytes: UnsafeRawBufferPointer) -> SocketTransfer {
        SocketTransfer.send(descriptor, bytes)
    }

    /// Waits until the socket is readable (`read`) or writable (`write`), or `deadline` passes (nil: no
    /// deadline). The poll flags that came back (0 on time-out).
    public func wait(read: Bool, write: Bool, deadline: Double?) -> Int32 {
        if read, hasPendingInput { return Int32(POLLIN) }
        var fds = [pollfd(fd: descriptor, events: Int16((read ? POLLIN : 0) | (write ? POLLOUT : 0)), revents: 0)]
        while true {
            let ready = poll(&fds, 1, Self.milliseconds(until: deadline))
            if ready < 0, errno == EINTR { continue }
            return ready > 0 ? Int32(fds[0].revents) : 0
        }
    }

    /// Writes all of `bytes`, waiting for the socket as needed, by `deadline`.
    public func sendAll(_ bytes: [UInt8], deadline: Double) throws(WebSocketClientError) {
        var sent = 0
        while sent < bytes.count {
            let transfer = bytes.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            switch transfer {
            case .transferred(let count): sent += count
            case .closed: throw WebSocketClientError(.connectionLost, "the server closed the connection")
            case .wouldBlock:
                guard wait(read: false, write: true, deadline: deadline) != 0 else {
                    throw WebSocketClientError(.connectionLost, "the server stopped reading the request")
                }
            }
        }
    }

    /// Reads until `terminator` has been seen (at most `limit` bytes), by `deadline`; what came after it is kept
    /// for the next read. The bytes up to and including the terminator, or nil when the connection ended first.
    public func read(through terminator: [UInt8], limit: Int, deadline: Double) throws(WebSocketClientError) -> [UInt8]? {
        var data: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        var searchFrom = 0
        while true {
            if data.count >= terminator.count {
                var index = max(searchFrom, 0)
                while index + terminator.count <= data.count {
                    if data[index] == terminator[0], Array(data[index..<index + terminator.count]) == terminator {
                        let end = index + terminator.count
                        unread(data[end...])
                        return Array(data[..<end])
                    }
                    index += 1
                }
                searchFrom = data.count - terminator.count + 1
            }
            guard data.count < limit else {
                throw WebSocketClientError(.badHandshake, "the server's answer has no end of headers in \(limit) bytes")
            }
            switch scratch.withUnsafeMutableBytes({ receive(into: $0) }) {
            case .transferred(let count): data += scratch[..<count]
            case .closed: return data.isEmpty ? nil : data
            case .wouldBlock:
                guard wait(read: true, write: false, deadline: deadline) != 0 else {
                    throw WebSocketClientError(.connectionLost, "no answer from the server in time (the request was sent)")
                }
            }
        }
    }

    /// Reads exactly `count` bytes (fewer when the connection ends first), by `deadline`.
    public func read(count: Int, deadline: Double) -> [UInt8] {
        var data: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        while data.count < count {
            let want = min(scratch.count, count - data.count)
            switch scratch.withUnsafeMutableBytes({ receive(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<want])) }) {
            case .transferred(let got): data += scratch[..<got]
            case .closed: return data
            case .wouldBlock:
                guard wait(read: true, write: false, deadline: deadline) != 0 else { return data }
            }
        }
        return data
    }

    /// Shuts both directions down (a blocked `wait` on another thread wakes up); the descriptor stays until
    /// `close()`.
    public func shutdownNow() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Closes the socket; idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(descriptor)
    }
}
