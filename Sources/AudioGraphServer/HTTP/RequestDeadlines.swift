import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The time a connection has to send a whole request: from when it opens, or from when its previous answer was
/// sent, until libmicrohttpd hands the complete request to the API. libmicrohttpd 0.9.75 has only an *idle*
/// timeout (`MHD_OPTION_CONNECTION_TIMEOUT`), which a client sending a header byte every few seconds never
/// reaches; this closes such a connection once its deadline passes, whatever it still trickles.
///
/// A connection past its deadline is shut down (`shutdown(2)`, both ways) rather than closed: libmicrohttpd
/// sees the end of the stream on its own thread and frees the connection as for a client that went away. The
/// socket stays libmicrohttpd's until its "closed" notification, which removes the entry under the same lock
/// that `sweep` holds, and libmicrohttpd closes the socket only after that notification returns, so a
/// descriptor shut down here is always still this connection's.
final class RequestDeadlines: Sendable {
    private struct Entry {
        var descriptor: Int32
        /// Nil while a request is being answered (and once shut down).
        var deadline: UInt64?
    }

    let timeoutNanoseconds: UInt64
    private let entries = Mutex<[UInt: Entry]>([:])
    private let closedCount = Atomic<Int>(0)

    init(timeoutSeconds: Int) { timeoutNanoseconds = UInt64(max(timeoutSeconds, 1)) * 1_000_000_000 }

    /// How often `sweep` should run: a quarter of the timeout, between 0.1 and 1 s.
    var sweepInterval: Double { min(1, max(0.1, Double(timeoutNanoseconds) / 4e9)) }

    /// Connections closed for missing their deadline so far.
    var closed: Int { closedCount.load(ordering: .relaxed) }

    /// libmicrohttpd accepted `connection`: its first request is due within the timeout.
    func opened(_ connection: OpaquePointer) {
        let descriptor = audiograph_mhd_connection_fd(connection)
        guard descriptor >= 0 else { return }
        let deadline = DispatchTime.now().uptimeNanoseconds + timeoutNanoseconds
        entries.withLock { $0[Self.key(connection)] = Entry(descriptor: descriptor, deadline: deadline) }
    }

    /// The request on `connection` is complete: no deadline while it is answered.
    func requestRead(_ connection: OpaquePointer) {
        entries.withLock { $0[Self.key(connection)]?.deadline = nil }
    }

    /// The answer on `connection` is over: the next request is due within the timeout.
    func answerDone(_ connection: OpaquePointer) {
        let deadline = DispatchTime.now().uptimeNanoseconds + timeoutNanoseconds
        entries.withLock { entries in
            let key = Self.key(connection)
            if entries[key] != nil { entries[key]?.deadline = deadline }
        }
    }

    /// libmicrohttpd is about to close `connection`'s socket.
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Self.key(connection)) }
    }

    /// Shuts down every connection past its deadline.
    func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let count = entries.withLock { entries in
            var count = 0
            for (key, entry) in entries {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                _ = shutdown(entry.descriptor, Int32(SHUT_RDWR))
                entries[key]?.deadline = nil
                count += 1
            }
            return count
        }
        if count > 0 { closedCount.add(count, ordering: .relaxed) }
    }

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: UnsafeRawPointer(connection)) }
}
