#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The machine's monotonic clock in nanoseconds: what the runtime times nodes with (one vDSO call, ~20 ns).
///
/// Processing time is measured on this clock, never on the graph's `MediaClock`: a manual clock in tests moves
/// only when told to, and node timings are not part of what tests assert.
enum MonotonicTime {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
