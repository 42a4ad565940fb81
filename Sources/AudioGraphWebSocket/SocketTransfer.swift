import CWslay

#if canImport(Glibc)
import Glibc
#endif

/// What one non-blocking read or write on a socket did; both ends of a WebSocket (the server's upgraded
/// sockets, the client's `TCPConnection`) read and write through these, and answer wslay's I/O callbacks with
/// `wslayAnswer`.
public enum SocketTransfer: Equatable, Sendable {
    case transferred(Int)
    case wouldBlock
    /// The peer is gone (end of stream, reset) or the transport failed.
    case closed

    /// `recv(2)` on `descriptor` without blocking (EINTR retried).
    public static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> SocketTransfer {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .transferred(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }

    /// `send(2)` on `descriptor` without blocking and without SIGPIPE (EINTR retried).
    public static func send(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> SocketTransfer {
        while true {
            let count = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .transferred(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .closed
        }
    }

    /// What a wslay I/O callback returns for this transfer: the byte count, or -1 with wslay's error set on
    /// `context` (`WOULDBLOCK`: try later; `CALLBACK_FAILURE`: the connection is over).
    public func wslayAnswer(_ context: OpaquePointer?) -> Int {
        guard let context else { return -1 }
        switch self {
        case .transferred(let count):
            return count
        case .wouldBlock:
            wslay_event_set_error(context, Int32(WSLAY_ERR_WOULDBLOCK.rawValue))
        case .closed:
            wslay_event_set_error(context, Int32(WSLAY_ERR_CALLBACK_FAILURE.rawValue))
        }
        return -1
    }
}
