/// Durations counted in log-linear buckets (four per octave, like HdrHistogram at two significant bits), so a
/// node's per-frame latency costs a few integer operations to record and its percentiles are known to within
/// a quarter octave (at most 25 %) however many frames went through.
///
/// Bucket 0 holds everything up to 1.024 µs; bucket `1 + 4·(e-10) + s` holds `[2^e + s·2^(e-2), 2^e + (s+1)·2^(e-2))`
/// nanoseconds; the last bucket also takes everything longer (about 34 s and up).
public struct LatencyHistogram: Sendable, Equatable {
    static let bucketCount = 1 + 4 * 25
    /// Frames per bucket.
    public private(set) var counts: [Int64]
    /// How many durations were recorded.
    public private(set) var count: Int64 = 0
    /// Their sum, in nanoseconds.
    public private(set) var sumNanoseconds: UInt64 = 0

    public init() {
        counts = Array(repeating: 0, count: Self.bucketCount)
    }

    init(counts: [Int64], count: Int64, sumNanoseconds: UInt64) {
        self.counts = counts
        self.count = count
        self.sumNanoseconds = sumNanoseconds
    }

    mutating func record(nanoseconds value: UInt64) {
        counts[Self.bucket(for: value)] += 1
        count += 1
        sumNanoseconds &+= value
    }

    static func bucket(for value: UInt64) -> Int {
        guard value >= 1024 else { return 0 }
        let octave = 63 - value.leadingZeroBitCount  // >= 10
        let quarter = Int((value >> UInt64(octave - 2)) & 3)
        return min(1 + 4 * (octave - 10) + quarter, bucketCount - 1)
    }

    /// The exclusive upper bound of bucket `index`, in nanoseconds.
    static func upperBound(of index: Int) -> UInt64 {
        guard index > 0 else { return 1024 }
        let octave = 10 + (index - 1) / 4
        let quarter = UInt64((index - 1) % 4)
        return (UInt64(1) << UInt64(octave)) + (quarter + 1) * (UInt64(1) << UInt64(octave - 2))
    }

    static func lowerBound(of index: Int) -> UInt64 {
        index == 0 ? 0 : upperBound(of: index - 1)
    }

    /// The `q` quantile (0…1) in seconds, interpolated linearly inside its bucket (as Prometheus's
    /// `histogram_quantile` does); nil when nothing was recorded.
    public func quantile(_ q: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = q * Double(count)
        var below: Int64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            if Double(below + bucketCount) >= rank {
                let low = Double(Self.lowerBound(of: index)), high = Double(Self.upperBound(of: index))
                let fraction = max(0, min(1, (rank - Double(below)) / Double(bucketCount)))
                return (low + (high - low) * fraction) / 1e9
            }
            below += bucketCount
        }
        return Double(Self.upperBound(of: counts.count - 1)) / 1e9
    }

    /// Cumulative counts at each of `bounds` (seconds, ascending): how many durations were at most that long,
    /// for Prometheus's `_bucket{le=...}` series. Bounds should be bucket boundaries (powers of two from
    /// 1.024 µs); others count the bucket they fall in as below them.
    public func cumulativeCounts(atOrBelow bounds: [Double]) -> [Int64] {
        var result: [Int64] = []
        var index = 0
        var running: Int64 = 0
        for bound in bounds {
            while index < counts.count, Double(Self.upperBound(of: index)) <= bound * 1e9 + 0.5 {
                running += counts[index]
                index += 1
            }
            result.append(running)
        }
        return result
    }
}

extension LatencyHistogram {
    /// Adds another histogram's counts to this one.
    public mutating func merge(_ other: LatencyHistogram) {
        for index in counts.indices { counts[index] += other.counts[index] }
        count += other.count
        sumNanoseconds &+= other.sumNanoseconds
    }
}
