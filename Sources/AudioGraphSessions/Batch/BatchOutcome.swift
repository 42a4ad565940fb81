import AudioGraphStore

/// How one file's run ended for the batch: the one rule the summary (`BatchTally`), the per-file lines and
/// the metrics (`BatchFileCounts`, `audiograph_worker_files_total{outcome=…}`) all use.
public enum BatchOutcome: String, Sendable, CaseIterable {
    /// It ran to its end.
    case done
    /// It failed with an error and has no attempt left (outside a queue every failure is final).
    case failed
    /// A failed attempt of a queue item with attempts left: queued again, not finished yet.
    case retried
    /// Stopped before its end (a second Ctrl-C), or its claim was lost to another worker: no result of its own.
    case interrupted

    /// The outcome of `result`.
    /// - Parameter maxAttempts: a queue's tries per file (`BatchRunner.WorkerOptions.maxAttempts`); nil outside a
    ///   queue, where a failure is final.
    public init(_ result: BatchFileResult, maxAttempts: Int? = nil) {
        if result.succeeded {
            self = .done
        } else if result.error != nil, !result.lostClaim {
            let attemptsLeft = maxAttempts.map { result.attempt < $0 } ?? false
            self = attemptsLeft ? .retried : .failed
        } else {
            self = .interrupted
        }
    }
}

/// The counts a batch's summary shows: files by outcome, hours of audio, wall time, and each file failed for good.
public struct BatchTally: Sendable, Equatable {
    /// A file that failed for good.
    public struct Failure: Sendable, Equatable {
        public var path: String
        /// The session id (for a queue's failures, the item's key).
        public var session: String
        public var attempts: Int
        public var error: String

        public init(path: String, session: String, attempts: Int, error: String) {
            self.path = path
            self.session = session
            self.attempts = attempts
            self.error = error
        }
    }

    /// Files in the batch: the manifest's lines (local), the queue's items (a queue without `wait`), else the
    /// attempts this process ran.
    public var files = 0
    public var done = 0
    public var failed = 0
    /// Failed attempts queued again.
    public var retried = 0
    public var interrupted = 0
    /// Manifest lines never started (the batch was stopped first).
    public var notStarted = 0
    /// Queue items still queued, or running on other workers.
    public var queued = 0
    public var running = 0
    /// Seconds of audio in the files this process ran.
    public var audioSeconds = 0.0
    public var wallSeconds = 0.0
    public var failures: [Failure] = []

    /// Tallies `results` by `BatchOutcome` (with `maxAttempts`, a queue's; nil outside a queue).
    public init(results: [BatchFileResult], wallSeconds: Double, maxAttempts: Int? = nil) {
        self.wallSeconds = wallSeconds
        files = results.count
        for result in results {
            audioSeconds += result.audioSeconds
            switch BatchOutcome(result, maxAttempts: maxAttempts) {
            case .done: done += 1
            case .retried: retried += 1
            case .interrupted: interrupted += 1
            case .failed:
                failed += 1
                failures.append(Failure(path: result.item.path, session: result.sessionID, attempts: result.attempt,
                                        error: result.error?.description ?? ""))
            }
        }
    }

    /// A local batch of `total` manifest lines (`BatchRunner.runAll`): the lines without a result never started.
    public init(results: [BatchFileResult], of total: Int, wallSeconds: Double) {
        self.init(results: results, wallSeconds: wallSeconds)
        files = total
        notStarted = total - results.count
    }

    /// A worker's tally (`BatchRunner.work`). Unless the worker waits for new work (`options.wait`), what the queue
    /// holds at the end decides the counts and failures, since a failed attempt may have been retried and done
    /// elsewhere: `reconcile(with:)` with `queue.status()` (kept as counted when the status cannot be read).
    public init(work outcome: BatchRunner.WorkOutcome, queue: any WorkQueue, options: BatchRunner.WorkerOptions,
                wallSeconds: Double) {
        self.init(results: outcome.results, wallSeconds: wallSeconds, maxAttempts: options.maxAttempts)
        if !options.wait, let status = try? queue.status() { reconcile(with: status) }
    }

    /// Takes the files, done, failed, queued and running counts and the failures from the queue's `status`.
    public mutating func reconcile(with status: WorkQueueStatus) {
        files = status.queued + status.running + status.done + status.failed
        done = status.done
        failed = status.failed
        queued = status.queued
        running = status.running
        failures = status.failures.map { Failure(path: $0.path, session: $0.key, attempts: $0.attempts, error: $0.error) }
    }

    /// Seconds of audio per second of wall time (0 before any time passed).
    public var realTimeFactor: Double { wallSeconds > 0 ? audioSeconds / wallSeconds : 0 }
}
