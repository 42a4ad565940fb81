import AudioGraph
import Foundation

/// Working a queue (`batch --store` and `worker`).
enum BatchWork {
    static func run(queue: any WorkQueue, store: String, control: BatchControl, resolve: @escaping BatchRunner.Resolver,
                    options: BatchRunner.WorkerOptions, total: Int?, args: Arguments,
                    exitZeroOnTerm: Bool, metrics: BatchMetrics? = nil) throws(GraphError) -> Int32 {
        let quiet = args.flag("--quiet")
        let progress = BatchProgress(total: total, enabled: !quiet && Console.stderrIsTerminal)
        let signals = InterruptSignals(batch: control)
        defer { withExtendedLifetime(signals) {} }
        let started = Date()
        progress.start()
        let outcome = BatchRunner.work(queue: queue, control: control, options: options, resolve: resolve, onStart: { claim in
            metrics?.began()
            progress.began()
            if claim.attempt > 1, !quiet {
                progress.clear()
                printError("audiograph: retrying \(claim.item.path) (attempt \(claim.attempt) of \(options.maxAttempts))")
            }
        }, onFinish: { result in
            BatchReport.file(result, outcome: BatchOutcome(result, maxAttempts: options.maxAttempts), progress: progress,
                             quiet: quiet, metrics: metrics)
        })
        progress.stop()
        if let error = outcome.queueError { throw StoreOptions.error(error, store: BatchStore.describe(store)) }
        if let error = outcome.pipelineError { throw error }
        let tally = BatchTally(work: outcome, queue: queue, options: options, wallSeconds: Date().timeIntervalSince(started))
        BatchReport.summary(tally, json: args.flag("--json"), quiet: quiet)
        if signals.count > 0 {
            return exitZeroOnTerm && signals.firstSignal == SIGTERM ? 0 : GraphError.Code.interrupted.exitCode
        }
        return tally.failed > 0 ? BatchCommand.someFailedExitCode : 0
    }
}

/// `--metrics-port`: a `MetricsServer` with the batch's per-node totals (`BatchControl.statistics()`, running
/// files included) and this process's file counts (`BatchFileCounts`).
final class BatchMetrics: Sendable {
    private let counts = BatchFileCounts()
    private let server: MetricsServer

    private init(server: MetricsServer) { self.server = server }

    /// Listens at `address` and announces "audiograph: metrics at http://HOST:PORT/metrics"; exit 69 naming
    /// --metrics-port when it cannot listen.
    static func start(_ address: ListenAddress, control: BatchControl, jobs: Int) throws(GraphError) -> BatchMetrics {
        let server: MetricsServer
        do {
            server = try MetricsServer(listen: address)
        } catch {
            throw GraphError(.unavailable, at: "--metrics-port", error.message)
        }
        let metrics = BatchMetrics(server: server)
        server.endpoint.set("batch") { [weak metrics] exposition in
            guard let metrics else { return }
            metrics.counts.write(to: &exposition, jobs: jobs)
            exposition.add(control.statistics())
        }
        printError("audiograph: metrics at \(server.baseURL)/metrics")
        return metrics
    }

    func began() { counts.began() }

    /// Counted before the file's line is printed, so a scrape after "done: FILE" sees it.
    func finished(_ result: BatchFileResult, outcome: BatchOutcome) { counts.finished(result, outcome: outcome) }

    func shutdown() { server.shutdown() }
}

enum BatchReport {
    /// Counts the finished file (metrics, progress) and prints its line (not with --quiet).
    static func file(_ result: BatchFileResult, outcome: BatchOutcome, progress: BatchProgress, quiet: Bool,
                     metrics: BatchMetrics?) {
        metrics?.finished(result, outcome: outcome)
        progress.finished(failed: outcome == .failed, retried: outcome == .retried)
        guard !quiet else { return }
        progress.clear()
        let error = result.error.map { "\($0)" } ?? ""
        switch outcome {
        case .retried: printError("audiograph: attempt \(result.attempt) failed, queued again: \(result.item.path): \(error)")
        case .failed: printError("audiograph: failed: \(result.item.path): \(error)")
        case .interrupted where result.lostClaim:
            printError("audiograph: \(result.item.path): its claim expired and went to another worker; result dropped")
        case .interrupted: printError("audiograph: interrupted: \(result.item.path)")
        case .done:
            printError(String(format: "audiograph: done: %@ (%.1f s of audio in %.2f s)", result.item.path,
                              result.audioSeconds, result.wallSeconds))
        }
    }

    static func summary(_ tally: BatchTally, json: Bool, quiet: Bool) {
        let factor = tally.realTimeFactor
        if json {
            let failures: [JSONValue] = tally.failures.map { failure in
                .object(JSONObject([("path", .string(failure.path)), ("session", .string(failure.session)),
                                    ("attempts", .number(Double(failure.attempts))), ("error", .string(failure.error))]))
            }
            printOut(JSONWriter.compact(.object(JSONObject([
                ("files", .number(Double(tally.files))), ("done", .number(Double(tally.done))),
                ("failed", .number(Double(tally.failed))), ("interrupted", .number(Double(tally.interrupted))),
                ("notStarted", .number(Double(tally.notStarted))),
                ("audioSeconds", .number(StoreTime.rounded(tally.audioSeconds))),
                ("audioHours", .number((tally.audioSeconds / 3600 * 10000).rounded() / 10000)),
                ("wallSeconds", .number(StoreTime.rounded(tally.wallSeconds))),
                ("realTimeFactor", .number((factor * 100).rounded() / 100)),
                ("failures", .array(failures)),
            ]))))
        }
        guard !quiet || tally.failed > 0 else { return }
        var counts = "\(tally.done) done, \(tally.failed) failed"
        if tally.interrupted > 0 { counts += ", \(tally.interrupted) interrupted" }
        if tally.notStarted > 0 { counts += ", \(tally.notStarted) not started" }
        if tally.queued + tally.running > 0 { counts += ", \(tally.queued) queued, \(tally.running) running elsewhere" }
        printError(String(format: "audiograph: batch: %d files: %@; %.3f h of audio in %.1f s (%@ real time)",
                          tally.files, counts, tally.audioSeconds / 3600, tally.wallSeconds, RealTimeFactor.format(factor)))
        for failure in tally.failures {
            printError("audiograph: failed: \(failure.path): \(failure.error)")
        }
    }
}
