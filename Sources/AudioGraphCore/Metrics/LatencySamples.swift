/// Latencies of a few events per utterance (speech end → final), kept exactly for percentiles — the latest
/// 4096, so memory stays flat however long the run — and counted in fixed buckets for Prometheus.
public struct LatencySamples: Sendable, Equatable {
    /// Upper bounds of the Prometheus buckets, in seconds (`+Inf` is implied).
    public static let bucketBounds: [Double] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 2, 3, 5, 10]
    static let kept = 4096

    public private(set) var count: Int64 = 0
    public private(set) var sum: Double = 0
    /// How many were at most each of `bucketBounds` (cumulative).
    public private(set) var cumulativeCounts: [Int64] = Array(repeating: 0, count: LatencySamples.bucketBounds.count)
    private var recent: [Double] = []
    private var next = 0

    public init() {}

    mutating func record(_ seconds: Double) {
        count += 1
        sum += seconds
        for (index, bound) in Self.bucketBounds.enumerated() where seconds <= bound { cumulativeCounts[index] += 1 }
        if recent.count < Self.kept {
            recent.append(seconds)
        } else {
            recent[next] = seconds
            next = (next + 1) % Self.kept
        }
    }

    /// The `q` quantile (0…1) of the latest 4096, by nearest rank; nil when none.
    public func quantile(_ q: Double) -> Double? {
        guard !recent.isEmpty else { return nil }
        let sorted = recent.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }
}

/// A transcript-emitting node's speech latencies (see `SpeechLatency`).
public struct SpeechLatencyStatistics: Sendable, Equatable {
    public var speechEndToFinal = LatencySamples()
    public var firstPartial = LatencySamples()

    public init() {}

    mutating func record(_ latency: SpeechLatency) {
        speechEndToFinal.record(latency.speechEndToFinal)
        if let firstPartial = latency.firstPartial { self.firstPartial.record(firstPartial) }
    }
}

extension LatencySamples {
    /// Adds another set's counts and samples to this one (the latest 4096 of both are kept).
    public mutating func merge(_ other: LatencySamples) {
        count += other.count
        sum += other.sum
        for index in cumulativeCounts.indices { cumulativeCounts[index] += other.cumulativeCounts[index] }
        let theirs = other.next == 0 ? other.recent : Array(other.recent[other.next...] + other.recent[..<other.next])
        for value in theirs {
            if recent.count < Self.kept {
                recent.append(value)
            } else {
                recent[next] = value
                next = (next + 1) % Self.kept
            }
        }
    }
}
