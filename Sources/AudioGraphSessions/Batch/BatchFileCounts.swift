import AudioGraphCore
import Synchronization

/// A batch process's file counts for its metrics: files running now, files finished by `BatchOutcome`, and the
/// seconds of audio in them. Thread-safe: the batch's threads call `began` and `finished`, a scrape reads.
public final class BatchFileCounts: Sendable {
    /// The counts at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Files running now.
        public var busy = 0
        /// Files finished, by outcome (every outcome present, 0 when none).
        public var outcomes: [BatchOutcome: Int64] = Dictionary(uniqueKeysWithValues: BatchOutcome.allCases.map { ($0, 0) })
        /// Seconds of audio in the files finished.
        public var audioSeconds = 0.0
    }

    private let counts = Mutex(Snapshot())

    public init() {}

    /// A file started.
    public func began() { counts.withLock { $0.busy += 1 } }

    /// A file that `began` finished with `outcome`.
    public func finished(_ result: BatchFileResult, outcome: BatchOutcome) {
        counts.withLock { counts in
            counts.busy -= 1
            counts.outcomes[outcome, default: 0] += 1
            counts.audioSeconds += result.audioSeconds
        }
    }

    public var snapshot: Snapshot { counts.withLock { $0 } }

    /// Adds `audiograph_worker_files_total{outcome}`, `audiograph_worker_busy_jobs`, `audiograph_worker_jobs`
    /// (`jobs`: files run at once at most) and `audiograph_worker_audio_seconds_total`.
    public func write(to exposition: inout PrometheusExposition, jobs: Int) {
        let counts = snapshot
        for outcome in BatchOutcome.allCases {
            exposition.add(counter: "audiograph_worker_files_total",
                           help: "Files this process finished, by outcome: done, failed (for good), retried "
                               + "(a failed attempt queued again), interrupted (or its claim was lost).",
                           labels: [("outcome", outcome.rawValue)], value: counts.outcomes[outcome] ?? 0)
        }
        exposition.add(gauge: "audiograph_worker_busy_jobs", help: "Files running now.", value: Double(counts.busy))
        exposition.add(gauge: "audiograph_worker_jobs", help: "Files this process runs at once at most (--jobs).",
                       value: Double(jobs))
        exposition.add(counter: "audiograph_worker_audio_seconds_total",
                       help: "Seconds of audio in the files this process finished.", value: counts.audioSeconds)
    }
}
