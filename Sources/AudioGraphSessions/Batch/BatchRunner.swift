import AudioGraphCore
import AudioGraphStore
import Dispatch
import Foundation
import Synchronization

/// What one file's run came to.
public struct BatchFileResult: Sendable {
    public var item: WorkItem
    public var sessionID: String
    /// 1 for the first attempt (a queue's claim counts them).
    public var attempt: Int
    /// Seconds of audio read (the longest source).
    public var audioSeconds: Double = 0
    public var wallSeconds: Double = 0
    /// Why the file failed; nil when it ran to its end (or was interrupted).
    public var error: GraphError?
    /// Stopped by a second Ctrl-C, or because its claim was lost; outputs were finalized.
    public var interrupted = false
    /// A queue item whose claim was taken over (its lease expired) before it ended: its result was not recorded.
    public var lostClaim = false
    public var succeeded: Bool { error == nil && !interrupted && !lostClaim }
}

/// Stopping a batch: `stop()` takes no new files (running ones finish), `cancel()` also stops the running
/// ones (their outputs are finalized). Shared by every thread of a batch, it also totals the per-node
/// statistics of the files run so far (`statistics()`, what `--metrics-port` serves).
public final class BatchControl: Sendable {
    private struct State {
        var stopping = false
        var cancelling = false
        var next = 0
        var running: [Int: TranscriptionSession] = [:]
        var finished = GraphStatistics(wallSeconds: 0, nodes: [])
    }

    private let state = Mutex(State())

    public init() {}

    public var isStopping: Bool { state.withLock { $0.stopping } }
    public var isCancelling: Bool { state.withLock { $0.cancelling } }

    /// Take no new files.
    public func stop() { state.withLock { $0.stopping = true } }

    /// Take no new files and stop the running ones.
    public func cancel() {
        let running = state.withLock { state in
            state.stopping = true
            state.cancelling = true
            return Array(state.running.values)
        }
        for session in running { session.cancel() }
    }

    /// Registers a session about to run; nil when the batch is cancelling (do not run it).
    func begin(_ session: TranscriptionSession) -> Int? {
        state.withLock { state in
            guard !state.cancelling else { return nil }
            state.next += 1
            state.running[state.next] = session
            return state.next
        }
    }

    /// A session ended: its final statistics join the totals in the same step as it leaves the running ones, so
    /// `statistics()` never goes back.
    func end(_ token: Int, statistics: GraphStatistics) {
        state.withLock { state in
            state.running.removeValue(forKey: token)
            state.finished.accumulate(statistics)
        }
    }

    /// Per node (by id and type), what every file run so far counted, the running ones included (up to now).
    /// `wallSeconds` is the sum of the runs' wall times.
    public func statistics() -> GraphStatistics {
        state.withLock { state in
            var total = state.finished
            for (_, session) in state.running.sorted(by: { $0.key < $1.key }) { total.accumulate(session.statistics()) }
            return total
        }
    }

    /// Files running now.
    public var runningCount: Int { state.withLock { $0.running.count } }

    /// Sleeps up to `seconds`, returning early once stopping.
    func pause(_ seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while !isStopping, Date() < deadline { Thread.sleep(forTimeInterval: min(0.1, max(0, deadline.timeIntervalSinceNow))) }
    }
}

/// Runs a batch pipeline on files: one at a time (`run`), on a bounded pool of threads (`runAll`), or as a
/// worker over a `WorkQueue` (`work`). Each file's graph runs on a pool thread of its own (the graph's nodes
/// start threads of their own as usual); at most `jobs` graphs run at once.
public final class BatchRunner: Sendable {
    /// Builds a file's graph from its config (the CLI loads plugins first, then `GraphBuilder`).
    public typealias Builder = @Sendable (GraphSpec) throws(GraphError) -> Graph
    /// Removes what earlier attempts of a queue item stored — the session rows tagged with the item's tag
    /// (`WorkClaim.itemTag`), their transcripts and utterances — so a retried file is stored once, and nothing
    /// of other runs, also under the same session id, goes.
    public typealias SessionCleaner = @Sendable (_ itemTag: String) throws(TranscriptsError) -> Void

    public let pipeline: BatchPipeline
    public let control: BatchControl
    private let build: Builder
    private let options: RunOptions
    private let clearSession: SessionCleaner?
    private let onWarning: @Sendable (WorkItem, String) -> Void

    public init(pipeline: BatchPipeline, control: BatchControl = BatchControl(), options: RunOptions = RunOptions(),
                clearSession: SessionCleaner? = nil, onWarning: @escaping @Sendable (WorkItem, String) -> Void = { _, _ in },
                build: @escaping Builder) {
        self.pipeline = pipeline
        self.control = control
        self.options = options
        self.clearSession = clearSession
        self.onWarning = onWarning
        self.build = build
    }

    /// Runs the pipeline on one file on the calling thread. With a queue item's tag (`WorkClaim.itemTag`) the
    /// session rows the run stores carry it, and `attempt` > 1 first removes what the item's earlier attempts
    /// stored (nothing else). `onSession` sees the session before it runs (to cancel it).
    public func run(_ item: WorkItem, attempt: Int = 1, itemTag: String? = nil,
                    onSession: (@Sendable (TranscriptionSession) -> Void)? = nil) -> BatchFileResult {
        var result = BatchFileResult(item: item, sessionID: pipeline.sessionID(for: item), attempt: attempt)
        let started = Date()
        runOnce(&result, itemTag: itemTag, onSession: onSession)
        result.wallSeconds = Date().timeIntervalSince(started)
        return result
    }

    private func runOnce(_ result: inout BatchFileResult, itemTag: String?,
                         onSession: (@Sendable (TranscriptionSession) -> Void)?) {
        let item = result.item
        let attempt = result.attempt
        do throws(GraphError) {
            if attempt > 1, let clearSession, let itemTag {
                do {
                    try clearSession(itemTag)
                } catch {
                    throw GraphError(.io, at: pipeline.store ?? "store",
                                     "cannot remove the earlier attempt of session \(result.sessionID): \(error.message)")
                }
            }
            let graph = try build(pipeline.spec(for: item, workItem: itemTag))
            let session = TranscriptionSession(graph: graph, options: options)
            guard let token = control.begin(session) else {
                result.interrupted = true
                return
            }
            // The file's counts join the runner's totals (`BatchControl.statistics()`); results do not keep them, so
            // a worker's memory stays flat however many files it runs.
            defer { control.end(token, statistics: session.statistics()) }
            onSession?(session)
            let summary = try session.run(onWarning: { [onWarning] in onWarning(item, $0) })
            result.audioSeconds = summary.sources.map(\.seconds).max() ?? 0
            result.interrupted = summary.interrupted
        } catch {
            result.error = error
        }
    }

    /// Runs every item, at most `jobs` at once, each on a thread of a fixed pool; returns the results in
    /// manifest order (items never started, after `control.stop()`, are left out).
    public func runAll(_ items: [WorkItem], jobs: Int,
                       onStart: @escaping @Sendable (WorkItem) -> Void = { _ in },
                       onFinish: @escaping @Sendable (BatchFileResult) -> Void = { _ in }) -> [BatchFileResult] {
        let next = Mutex(0)
        let results = Mutex<[Int: BatchFileResult]>([:])
        Self.onThreads(max(1, min(jobs, items.count))) { [self] _ in
            while !control.isStopping {
                let index: Int? = next.withLock { next in
                    guard next < items.count else { return nil }
                    defer { next += 1 }
                    return next
                }
                guard let index else { return }
                onStart(items[index])
                let result = run(items[index])
                results.withLock { $0[index] = result }
                onFinish(result)
            }
        }
        let collected = results.withLock { $0 }
        return collected.keys.sorted().compactMap { collected[$0] }
    }

    /// How a worker takes work from a queue.
    public struct WorkerOptions: Sendable {
        /// This worker's name in claims (`host:pid`); thread `i` claims as `name/i`.
        public var name: String
        /// Seconds a claim lasts without a heartbeat; heartbeats come every third of it.
        public var lease: Double
        public var maxAttempts: Int
        /// Pipelines at once.
        public var jobs: Int
        /// When the queue has nothing claimable: poll again every `pollInterval` seconds for new items (true), or
        /// (false) poll only while items are queued or leased — a leased one's worker may have died, and its
        /// item is taken over once the lease expires — and end when every item is done or failed.
        public var wait: Bool
        public var pollInterval: Double

        public init(name: String, lease: Double = 60, maxAttempts: Int = 3, jobs: Int = 1, wait: Bool = false,
                    pollInterval: Double = 2) {
            self.name = name
            self.lease = lease
            self.maxAttempts = maxAttempts
            self.jobs = jobs
            self.wait = wait
            self.pollInterval = pollInterval
        }

        /// `host:pid`.
        public static var defaultName: String {
            "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
        }
    }

    /// What a worker did.
    public struct WorkOutcome: Sendable {
        public var results: [BatchFileResult]
        /// The queue failed (a claim, heartbeat bookkeeping or result could not be written); the worker stopped.
        public var queueError: TranscriptsError?
        /// A claimed item's pipeline could not be had (none stored and none given, or it does not load); the
        /// item's attempt was failed with this error and the worker stopped.
        public var pipelineError: GraphError?
    }

    /// The runner for a claimed item: the one pipeline a worker was given, or the item's own (`WorkItem.pipeline`).
    public typealias Resolver = @Sendable (WorkItem) throws(GraphError) -> BatchRunner

    /// Claims items from `queue` and runs them, `options.jobs` at once, until every item is done or failed
    /// (or, with `wait`, until `control.stop()`): while items are leased by other workers it polls, so an item
    /// whose worker died is run here once its lease expires. While a file runs, a timer extends its lease
    /// every `lease / 3` seconds; when the claim turns out to be someone else's, the run is stopped. A file that ran to its end is
    /// `complete`d; one that failed or was interrupted is `fail`ed (queued again while attempts remain).
    public func work(queue: any WorkQueue, options: WorkerOptions,
                     onStart: @escaping @Sendable (WorkClaim) -> Void = { _ in },
                     onFinish: @escaping @Sendable (BatchFileResult) -> Void = { _ in }) -> WorkOutcome {
        Self.work(queue: queue, control: control, options: options, resolve: { _ throws(GraphError) in self },
                  onStart: onStart, onFinish: onFinish)
    }

    /// `work` with each claimed item run by the runner `resolve` gives for it (sharing `control`). When
    /// `resolve` throws, the item's attempt is failed with that error and the worker stops (`pipelineError`).
    public static func work(queue: any WorkQueue, control: BatchControl, options: WorkerOptions, resolve: @escaping Resolver,
                            onStart: @escaping @Sendable (WorkClaim) -> Void = { _ in },
                            onFinish: @escaping @Sendable (BatchFileResult) -> Void = { _ in }) -> WorkOutcome {
        let results = Mutex<[BatchFileResult]>([])
        let queueError = Mutex<TranscriptsError?>(nil)
        let pipelineError = Mutex<GraphError?>(nil)
        onThreads(max(1, options.jobs)) { thread in
            let worker = options.jobs > 1 ? "\(options.name)/\(thread + 1)" : options.name
            while !control.isStopping, queueError.withLock({ $0 == nil }) {
                let claim: WorkClaim?
                do throws(TranscriptsError) {
                    claim = try queue.claim(worker: worker, lease: options.lease, maxAttempts: options.maxAttempts)
                } catch {
                    queueError.withLock { $0 = $0 ?? error }
                    return
                }
                guard let claim else {
                    // Without `wait` the worker ends only once every item is done or failed: an item queued, or
                    // leased (perhaps by a worker that died), may still become claimable here.
                    var unfinished = false
                    do throws(TranscriptsError) {
                        if !options.wait { unfinished = try queue.status().unfinished > 0 }
                    } catch {
                        queueError.withLock { $0 = $0 ?? error }
                        return
                    }
                    if options.wait || unfinished {
                        control.pause(options.pollInterval)
                        continue
                    }
                    return
                }
                let runner: BatchRunner
                do throws(GraphError) {
                    runner = try resolve(claim.item)
                } catch {
                    pipelineError.withLock { $0 = $0 ?? error }
                    control.stop()
                    do throws(TranscriptsError) {
                        _ = try queue.fail(claim, error: error.description, maxAttempts: options.maxAttempts)
                    } catch {
                        queueError.withLock { $0 = $0 ?? error }
                    }
                    return
                }
                onStart(claim)
                var result = runner.runClaimed(claim, queue: queue, lease: options.lease)
                do throws(TranscriptsError) {
                    let mine: Bool
                    if result.succeeded {
                        mine = try queue.complete(claim)
                    } else if !result.lostClaim {
                        let message = result.error?.description ?? "interrupted"
                        mine = try queue.fail(claim, error: message, maxAttempts: options.maxAttempts)
                    } else {
                        mine = false
                    }
                    if !mine { result.lostClaim = true }
                } catch {
                    queueError.withLock { $0 = $0 ?? error }
                }
                results.withLock { $0.append(result) }
                onFinish(result)
            }
        }
        return WorkOutcome(results: results.withLock { $0 }, queueError: queueError.withLock { $0 },
                           pipelineError: pipelineError.withLock { $0 })
    }

    /// Runs a claimed item with a heartbeat timer; stops the run when the claim is lost.
    private func runClaimed(_ claim: WorkClaim, queue: any WorkQueue, lease: Double) -> BatchFileResult {
        let lost = Atomic<Bool>(false)
        let current = Mutex<TranscriptionSession?>(nil)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let interval = max(0.2, lease / 3)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            // A failed heartbeat (the database is briefly unreachable) is retried at the next tick.
            if (try? queue.heartbeat(claim, lease: lease)) == false, !lost.exchange(true, ordering: .relaxed) {
                current.withLock { $0 }?.cancel()
            }
        }
        timer.resume()
        var result = run(claim.item, attempt: claim.attempt, itemTag: claim.itemTag) { session in
            current.withLock { $0 = session }
            if lost.load(ordering: .relaxed) { session.cancel() }
        }
        timer.cancel()
        if lost.load(ordering: .relaxed) { result.lostClaim = true }
        return result
    }

    /// Runs `body(i)` for i in 0..<count on threads of their own (8 MB stacks) and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.name = "audiograph-batch-\(index + 1)"
            thread.start()
        }
        group.wait()
    }
}
