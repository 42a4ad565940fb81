import CMicroHTTPD
import Synchronization

/// One open `text/event-stream` answer: what is written to it waits here until libmicrohttpd's worker thread
/// reads it out.
///
/// The worker thread must never block on an idle stream (it serves other connections too), so when there is
/// nothing to send the reader *suspends* the connection and answers 0 bytes; `send` and `close` resume it.
/// Both happen under the stream's lock, so a write can never slip in between "nothing to send" and "suspended"
/// and be left unsent. (libmicrohttpd allows suspending from the content reader, and resuming from any thread.)
public final class EventStream: Sendable {
    private struct State {
        var pending: [UInt8] = []
        var closed = false
        var suspended = false
        /// The libmicrohttpd connection's address, once the answer is queued on it (nil in tests). Kept as
        /// an integer: the pointer is only handed back to libmicrohttpd, which is thread-safe for these calls.
        var connectionAddress: UInt?
        var connection: OpaquePointer? { connectionAddress.flatMap { OpaquePointer(bitPattern: $0) } }
        /// The connection ended (the client went away or the answer is complete).
        var finished = false
    }

    /// At most this many bytes wait for a slow reader; past it the stream is closed (the client can reconnect).
    public static let maximumPending = 1 << 20

    private let state = Mutex(State())

    public init() {}

    /// Queues `text` (already framed as SSE) for the client.
    public func send(_ text: String) {
        state.withLock { state in
            guard !state.closed else { return }
            state.pending.append(contentsOf: text.utf8)
            if state.pending.count > Self.maximumPending { state.closed = true }
            Self.wake(&state)
        }
    }

    /// Sends one event: `event: NAME`, an optional `id:`, and `data:` lines.
    public func send(event name: String, id: Int? = nil, data: String) {
        var text = "event: \(name)\n"
        if let id { text += "id: \(id)\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        send(text + "\n")
    }

    /// Ends the stream once what is queued has been sent.
    public func close() {
        state.withLock { state in
            state.closed = true
            Self.wake(&state)
        }
    }

    public var isClosed: Bool { state.withLock { $0.closed } }
    /// The connection is gone: nothing sent now will arrive.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Everything queued and not yet read (tests read the stream this way, without a connection).
    public func drain() -> String {
        state.withLock { state in
            defer { state.pending.removeAll() }
            return String(decoding: state.pending, as: UTF8.self)
        }
    }

    // MARK: libmicrohttpd's side

    func attach(to connection: OpaquePointer) {
        let address = UInt(bitPattern: UnsafeRawPointer(connection))
        state.withLock { $0.connectionAddress = address }
    }

    /// The content reader: copies up to `max` bytes into `buffer`; 0 after suspending the connection when there
    /// is nothing yet; end of stream once closed and drained.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state in
            if !state.pending.isEmpty {
                let count = min(max, state.pending.count)
                state.pending.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
                state.pending.removeFirst(count)
                return count
            }
            if state.closed { return audiograph_mhd_end_of_stream() }
            guard let connection = state.connection else { return audiograph_mhd_end_of_stream() }
            state.suspended = true
            MHD_suspend_connection(connection)
            return 0
        }
    }

    /// The connection is over: nothing more will be read.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.closed = true
            state.pending.removeAll()
            state.suspended = false
            state.connectionAddress = nil
        }
    }

    /// Resumes a suspended connection so the reader runs again. Called with the lock held.
    private static func wake(_ state: inout State) {
        guard state.suspended, let connection = state.connection else { return }
        state.suspended = false
        MHD_resume_connection(connection)
    }
}
