/// Whether the HTTP daemon takes new requests and how many it is answering, as one value: events in, answers
/// out, no lock inside (`HTTPDaemon` keeps it behind one `Mutex`). The check and the count are one step, so a
/// request is either counted before a drain begins, and waited for, or refused with 503; before, a request
/// could read "not refusing", lose the CPU while shutdown set the flag and saw no request in flight, then
/// count itself and open an event stream after the streams were closed.
///
/// ```
/// accepting(n) ──beginDrain──▶ draining(n) ──(n reaches 0)──▶ draining(0) ──stop──▶ stopped
/// ```
struct DaemonAdmission: Equatable, Sendable {
    enum State: Equatable, Sendable {
        case accepting(inFlight: Int)
        case draining(inFlight: Int)
        case stopped
    }

    private(set) var state = State.accepting(inFlight: 0)

    /// Requests being answered now (event streams count until they close).
    var inFlight: Int {
        switch state {
        case .accepting(let count), .draining(let count): count
        case .stopped: 0
        }
    }

    var isAccepting: Bool { if case .accepting = state { true } else { false } }

    /// A request arrives: true to take it (it is counted until `complete`), false to answer 503.
    mutating func admit() -> Bool {
        guard case .accepting(let count) = state else { return false }
        state = .accepting(inFlight: count + 1)
        return true
    }

    /// A request taken by `admit` is done. True when it was the last one a drain was waiting for.
    mutating func complete() -> Bool {
        switch state {
        case .accepting(let count):
            state = .accepting(inFlight: max(0, count - 1))
            return false
        case .draining(let count):
            let left = max(0, count - 1)
            state = .draining(inFlight: left)
            return left == 0
        case .stopped:
            return false
        }
    }

    /// Shutdown begins: every later request is refused. True when nothing is in flight (drained at once);
    /// false when a drain is under way already, or requests are still being answered.
    mutating func beginDrain() -> Bool {
        guard case .accepting(let count) = state else { return false }
        state = .draining(inFlight: count)
        return count == 0
    }

    /// The daemon is stopped.
    mutating func stop() { state = .stopped }
}
