import AudioGraph
@testable import AudioGraphSessions
import Foundation
import Synchronization
import AudioGraphTestKit
import Testing

/// The one outcome rule of a batch file and what is built on it: the tally, its reconciliation with the queue,
/// and the metrics' file counts.
@Suite("batch outcome, tally and file counts", .ownThreads)
struct BatchOutcomeTests {
    static func result(_ path: String = "a.wav", attempt: Int = 1, error: Bool = false, interrupted: Bool = false,
                       lostClaim: Bool = false, audio: Double = 2) -> BatchFileResult {
        var result = BatchFileResult(item: WorkItem(key: path, path: path), sessionID: String(path.prefix(1)), attempt: attempt)
        result.audioSeconds = audio
        result.error = error ? GraphError(.io, at: path, "cannot read") : nil
        result.interrupted = interrupted
        result.lostClaim = lostClaim
        return result
    }

    @Test("one rule: done, failed (final outside a queue or on the last attempt), retried, interrupted")
    func outcomeRule() {
        #expect(BatchOutcome(Self.result()) == .done)
        #expect(BatchOutcome(Self.result(error: true)) == .failed)
        #expect(BatchOutcome(Self.result(attempt: 1, error: true), maxAttempts: 3) == .retried)
        #expect(BatchOutcome(Self.result(attempt: 3, error: true), maxAttempts: 3) == .failed)
        #expect(BatchOutcome(Self.result(interrupted: true), maxAttempts: 3) == .interrupted)
        #expect(BatchOutcome(Self.result(lostClaim: true)) == .interrupted)
        // A failure whose claim went to another worker is not this worker's result.
        #expect(BatchOutcome(Self.result(error: true, lostClaim: true), maxAttempts: 3) == .interrupted)
        #expect(Self.result(error: true, lostClaim: true).description.hasPrefix("claim lost: a.wav"))
        #expect(Self.result(attempt: 1, error: true).description.hasPrefix("failed: a.wav"))
    }

    @Test("a local tally counts by outcome, lists the failures and the lines never started")
    func localTally() {
        let results = [Self.result("a.wav"), Self.result("b.wav", error: true), Self.result("c.wav", interrupted: true)]
        let tally = BatchTally(results: results, of: 5, wallSeconds: 3)
        #expect(tally.files == 5 && tally.notStarted == 2)
        #expect(tally.done == 1 && tally.failed == 1 && tally.interrupted == 1 && tally.retried == 0)
        #expect(tally.failures == [.init(path: "b.wav", session: "b", attempts: 1, error: "b.wav: cannot read")])
        #expect(tally.audioSeconds == 6 && tally.realTimeFactor == 2)
        #expect(BatchTally(results: [], wallSeconds: 0).realTimeFactor == 0)
    }

    @Test("a worker's tally: retried attempts are not failures; the queue's status decides unless it waits")
    func workerTally() {
        let outcome = BatchRunner.WorkOutcome(results: [Self.result("a.wav", attempt: 1, error: true),
                                                        Self.result("a.wav", attempt: 2),
                                                        Self.result("b.wav", attempt: 2, error: true)])
        let status = WorkQueueStatus(queued: 1, running: 2, done: 4, failed: 1,
                                     failures: [(key: "b", path: "b.wav", attempts: 2, error: "bad")])
        let queue = StatusQueue(status)
        var options = BatchRunner.WorkerOptions(name: "w", maxAttempts: 2)
        let reconciled = BatchTally(work: outcome, queue: queue, options: options, wallSeconds: 1)
        #expect(reconciled.files == 8 && reconciled.done == 4 && reconciled.failed == 1)
        #expect(reconciled.queued == 1 && reconciled.running == 2 && reconciled.retried == 1)
        #expect(reconciled.failures == [.init(path: "b.wav", session: "b", attempts: 2, error: "bad")])

        options.wait = true
        let counted = BatchTally(work: outcome, queue: queue, options: options, wallSeconds: 1)
        #expect(counted.files == 3 && counted.done == 1 && counted.retried == 1 && counted.failed == 1)
        #expect(counted.queued == 0 && counted.failures.map(\.path) == ["b.wav"])

        options.wait = false
        let unreadable = BatchTally(work: outcome, queue: StatusQueue(nil), options: options, wallSeconds: 1)
        #expect(unreadable == counted)
    }

    @Test("file counts: busy jobs, finished files by outcome and audio seconds, as Prometheus counters")
    func fileCounts() {
        let counts = BatchFileCounts()
        counts.began()
        counts.began()
        counts.finished(Self.result(audio: 1.5), outcome: .done)
        #expect(counts.snapshot.busy == 1 && counts.snapshot.outcomes[.done] == 1 && counts.snapshot.outcomes[.failed] == 0)
        var exposition = PrometheusExposition()
        counts.write(to: &exposition, jobs: 4)
        let text = exposition.text
        #expect(text.contains("audiograph_worker_files_total{outcome=\"done\"} 1"), "\(text)")
        #expect(text.contains("audiograph_worker_files_total{outcome=\"retried\"} 0"), "\(text)")
        #expect(text.contains("audiograph_worker_busy_jobs 1"), "\(text)")
        #expect(text.contains("audiograph_worker_jobs 4"), "\(text)")
        #expect(text.contains("audiograph_worker_audio_seconds_total 1.5"), "\(text)")
    }
}

/// A queue that only answers `status` (nil: it fails).
final class StatusQueue: WorkQueue {
    private let answer: WorkQueueStatus?
    init(_ answer: WorkQueueStatus?) { self.answer = answer }
    func enqueue(_ items: [WorkItem]) throws(TranscriptsError) -> Int { 0 }
    func claim(worker: String, lease: Double, maxAttempts: Int) throws(TranscriptsError) -> WorkClaim? { nil }
    func heartbeat(_ claim: WorkClaim, lease: Double) throws(TranscriptsError) -> Bool { false }
    func complete(_ claim: WorkClaim) throws(TranscriptsError) -> Bool { false }
    func fail(_ claim: WorkClaim, error: String, maxAttempts: Int) throws(TranscriptsError) -> Bool { false }
    func status() throws(TranscriptsError) -> WorkQueueStatus {
        guard let answer else { throw TranscriptsError.storeUnavailable("the queue is unreachable") }
        return answer
    }
}
