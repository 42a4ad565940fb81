import AudioGraphCore
import Synchronization

/// A clock that moves only when told to, so paced nodes are tested without waiting. `sleep(until:)` jumps the
/// clock to the deadline at once and records it.
public final class ManualClock: MediaClock {
    private let state = Mutex<(now: Double, sleeps: [Double])>((0, []))

    public init(now: Double = 0) {
        state.withLock { $0.now = now }
    }

    public func now() -> Double { state.withLock { $0.now } }

    /// Moves the clock forward.
    public func advance(by seconds: Double) {
        state.withLock { $0.now += seconds }
    }

    public func sleep(until deadline: Double, cancellation: CancellationFlag) {
        state.withLock {
            $0.sleeps.append(deadline)
            if deadline > $0.now { $0.now = deadline }
        }
    }

    /// Every deadline a node slept until, in order.
    public var sleeps: [Double] { state.withLock { $0.sleeps } }
}
