import Foundation

/// The clock that paced nodes wait on. The runtime uses `SystemClock`; tests use the test kit's manual clock so
/// pacing is checked without waiting.
public protocol MediaClock: Sendable {
    /// Seconds since an arbitrary fixed origin.
    func now() -> Double
    /// Returns once `now() >= deadline`, or early when `cancellation` is raised.
    func sleep(until deadline: Double, cancellation: CancellationFlag)
}

/// The machine's monotonic clock.
public struct SystemClock: MediaClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func now() -> Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    public func sleep(until deadline: Double, cancellation: CancellationFlag) {
        // Sleep in short slices so a cancelled graph stops promptly.
        while !cancellation.isCancelled {
            let remaining = deadline - now()
            if remaining <= 0 { return }
            Thread.sleep(forTimeInterval: min(remaining, 0.05))
        }
    }
}
