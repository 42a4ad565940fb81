import AudioGraph
import Dispatch
import Foundation
import Synchronization

struct BatchCommand: Command {
    static let name = "batch"
    static let abstract = "Run a pipeline over every file of a manifest, here or through a shared queue"
    static let usage = "audiograph batch MANIFEST --pipeline CONFIG [--jobs N] [--set NODE.PARAM=VALUE]... [--metrics-port PORT] [--json] [--quiet]\n"
        + "       audiograph batch MANIFEST --pipeline CONFIG --store STORE [--enqueue-only] [--jobs N] [--lease-seconds S] [--max-attempts N] [--metrics-port PORT]\n"
        + "       audiograph batch status --store STORE [--json]"
    /// Some files failed, the others are done: distinct from the codes that mean the batch itself could not run.
    static let someFailedExitCode: Int32 = 75
    static let help = """
        \(abstract).

        USAGE: \(usage)

        MANIFEST is JSON Lines, one file per line: {"path": "calls/a.flac", "session": "call-17", "room": "support"}
        ("path" required; relative paths are from the manifest's folder). Each file runs through CONFIG with the
        file as its one file-source's path, session.id from "session" (default: the file name without its
        extension), session.room from "room", transcription on (session.autoStartTranscription), and with
        --store every transcript-store writing to STORE. See docs/scale.md.

        Without --store the files run here, --jobs at once. With --store the files are enqueued in STORE's work
        queue (a file already queued is not added again), each with the pipeline (CONFIG's text, --set applied,
        and its folder, so relative paths inside it mean the same files to every worker), and this process works
        the queue until every file in it is done or failed (waiting out the leases of workers that died);
        `audiograph worker --store STORE` processes on other machines may share the work. A line whose session
        id the store already holds adds a run of its own; a retry removes only what its own attempts stored.

        OPTIONS:
          --pipeline CONFIG     The pipeline config (exactly one file-source node).
          --jobs N              Pipelines at once (default: the number of cores).
          --set NODE.PARAM=VALUE  Override a pipeline parameter (or session.KEY); repeatable.
          --store STORE         The transcript store whose queue holds the work: a SQLite path, or a
                                postgres:// URL for workers on several machines.
          --enqueue-only        With --store: enqueue and exit; workers do the rest.
          --lease-seconds S     How long a claim lasts without a heartbeat (default 60; heartbeats every S/3).
          --max-attempts N      Tries per file before it is failed for good (default 3).
          --metrics-port PORT   Serve Prometheus metrics at http://127.0.0.1:PORT/metrics while the batch
                                runs (HOST:PORT for another address; 0 picks a free port): per-node totals
                                over the files run so far and file counts (see docs/scale.md). Prints
                                "audiograph: metrics at http://HOST:PORT/metrics" on stderr. Not with
                                --enqueue-only.
          --json                Print the summary (or status) as JSON on stdout.
          --quiet               No progress bar and no per-file lines on stderr.
          --verbose             Let libraries print their own logs.

        status  The queue's queued / running / done / failed counts and each failure.

        On a terminal stderr shows a progress bar; at the end a summary: files done and failed, hours of audio,
        wall time and real-time factor, and each failed file with its error.
        Ctrl-C (or SIGTERM) takes no new files and lets the running ones finish; a second stops those too
        (outputs finalized); a third quits at once.

        EXIT CODES: 0 every file done; 64 bad arguments; 65 a bad manifest line (MANIFEST:LINE) or pipeline;
        66 no manifest or pipeline; 69 cannot listen on --metrics-port; 73/74 the store cannot be opened or
        written; 75 some files failed (each is listed; the others are done; 75 rather than 70 so a script can
        tell "some files failed" from "the batch could not run"); 130 interrupted.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, valued: ["--pipeline", "--store", "--jobs", "--set", "--lease-seconds",
                                                     "--max-attempts", "--metrics-port"],
                                 flags: ["--enqueue-only", "--json", "--quiet", "--verbose"])
        if args.positionals.first == "status" { return try status(args) }
        let metricsAddress = try BatchOptions.metricsAddress(args)
        if metricsAddress != nil, args.flag("--enqueue-only") {
            throw GraphError(.usage, at: "--metrics-port", "does not apply with --enqueue-only (nothing runs here)")
        }
        let manifestPath = try args.requirePositionals(["manifest"])[0]
        guard let config = args.value("--pipeline") else {
            throw GraphError(.usage, at: "--pipeline", "batch needs the pipeline: --pipeline CONFIG")
        }
        let store = args.value("--store").map(BatchStore.location)
        if args.flag("--enqueue-only"), store == nil {
            throw GraphError(.usage, at: "--enqueue-only", "needs --store STORE (the queue to put the files in)")
        }
        let jobs = try BatchOptions.jobs(args)
        let worker = try BatchOptions.worker(args, jobs: jobs, wait: false)

        let items = try BatchManifest.load(path: manifestPath)
        let runner = try BatchOptions.runner(config: config, args: args, store: store, registry: registry,
                                             firstPath: items[0].path, items: items)
        guard let store else {
            let metrics = try metricsAddress.map { address throws(GraphError) in
                try BatchMetrics.start(address, control: runner.control, jobs: jobs)
            }
            defer { metrics?.shutdown() }
            return try local(items, runner: runner, jobs: jobs, args: args, metrics: metrics)
        }
        // Each item carries the pipeline, so `audiograph worker --store STORE` needs nothing else.
        let queued = try BatchPipeline.queued(configPath: config, overrides: args.values("--set"))
        let carrying = items.map { item in
            var item = item
            item.pipeline = queued.text
            item.pipelineBase = queued.base
            return item
        }
        let queue = try BatchStore.open(store)
        defer { queue.close() }
        let added: Int
        do {
            added = try queue.enqueue(carrying)
        } catch {
            throw StoreOptions.error(error, store: BatchStore.describe(store))
        }
        if !args.flag("--quiet") {
            printError("audiograph: enqueued \(added) of \(items.count) files in \(BatchStore.describe(store))"
                + (added < items.count ? " (\(items.count - added) already queued)" : ""))
        }
        if args.flag("--enqueue-only") {
            if args.flag("--json") {
                printOut(JSONWriter.compact(.object(JSONObject([("files", .number(Double(items.count))),
                                                                ("enqueued", .number(Double(added)))]))))
            }
            return 0
        }
        let metrics = try metricsAddress.map { address throws(GraphError) in
            try BatchMetrics.start(address, control: runner.control, jobs: jobs)
        }
        defer { metrics?.shutdown() }
        return try BatchWork.run(queue: queue, store: store, control: runner.control, resolve: { _ in runner },
                                 options: worker, total: items.count, args: args, exitZeroOnTerm: false, metrics: metrics)
    }

    /// Runs the files here on a pool of `jobs` threads.
    static func local(_ items: [WorkItem], runner: BatchRunner, jobs: Int, args: Arguments,
                      metrics: BatchMetrics? = nil) throws(GraphError) -> Int32 {
        let quiet = args.flag("--quiet")
        let progress = BatchProgress(total: items.count, enabled: !quiet && Console.stderrIsTerminal)
        let signals = BatchSignals(control: runner.control)
        defer { _ = signals }
        let started = Date()
        progress.start()
        let results = runner.runAll(items, jobs: jobs, onStart: { _ in
            metrics?.began()
            progress.began()
        }, onFinish: { result in
            metrics?.finished(result, retried: false)
            BatchReport.file(result, progress: progress, quiet: quiet)
        })
        progress.stop()
        var tally = BatchTally(results: results, wallSeconds: Date().timeIntervalSince(started))
        tally.files = items.count
        tally.notStarted = items.count - results.count
        BatchReport.summary(tally, json: args.flag("--json"), quiet: quiet)
        if signals.count > 0 || tally.interrupted > 0 { return GraphError.Code.interrupted.exitCode }
        return tally.failed > 0 ? someFailedExitCode : 0
    }

    /// `batch status --store STORE [--json]`.
    static func status(_ args: Arguments) throws(GraphError) -> Int32 {
        _ = try args.requirePositionals(["status"])
        try StoreOptions.reject(["--pipeline", "--jobs", "--set", "--lease-seconds", "--max-attempts", "--enqueue-only",
                                 "--metrics-port"], in: args)
        guard let location = args.value("--store").map(BatchStore.location) else {
            throw GraphError(.usage, at: "--store", "batch status needs the store: --store STORE")
        }
        let queue = try BatchStore.openForReading(location)
        defer { queue.close() }
        let status: WorkQueueStatus
        do {
            status = try queue.status()
        } catch {
            throw StoreOptions.error(error, store: BatchStore.describe(location))
        }
        if args.flag("--json") {
            let failures: [JSONValue] = status.failures.map { failure in
                .object(JSONObject([("key", .string(failure.key)), ("path", .string(failure.path)),
                                    ("attempts", .number(Double(failure.attempts))), ("error", .string(failure.error))]))
            }
            printOut(JSONWriter.compact(.object(JSONObject([
                ("queued", .number(Double(status.queued))), ("running", .number(Double(status.running))),
                ("done", .number(Double(status.done))), ("failed", .number(Double(status.failed))),
                ("failures", .array(failures)),
            ]))))
        } else {
            printOut("queued \(status.queued), running \(status.running), done \(status.done), failed \(status.failed)")
            for failure in status.failures {
                printOut("failed: \(failure.path) (\(failure.attempts) attempts): \(failure.error)")
            }
        }
        return 0
    }
}

/// Options `batch` and `worker` share.
enum BatchOptions {
    static func jobs(_ args: Arguments) throws(GraphError) -> Int {
        guard let text = args.value("--jobs") else { return max(1, ProcessInfo.processInfo.activeProcessorCount) }
        guard let value = Int(text), (1...256).contains(value) else {
            throw GraphError(.usage, at: "--jobs", "expects a whole number from 1 to 256, not \"\(text)\"")
        }
        return value
    }

    /// `--metrics-port PORT` (on 127.0.0.1) or `--metrics-port HOST:PORT`; nil without it.
    static func metricsAddress(_ args: Arguments) throws(GraphError) -> ListenAddress? {
        guard let text = args.value("--metrics-port") else { return nil }
        if !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) {
            guard text.count <= 5, let port = UInt16(text), let address = ListenAddress("127.0.0.1:\(port)") else {
                throw GraphError(.usage, at: "--metrics-port", "expects a port from 0 to 65535 (or HOST:PORT), not \"\(text)\"")
            }
            return address
        }
        guard let address = ListenAddress(text) else {
            throw GraphError(.usage, at: "--metrics-port",
                             "expects a port from 0 to 65535, or HOST:PORT with an IPv4 host like 0.0.0.0:9464, not \"\(text)\"")
        }
        return address
    }

    static func worker(_ args: Arguments, jobs: Int, wait: Bool) throws(GraphError) -> BatchRunner.WorkerOptions {
        var options = BatchRunner.WorkerOptions(name: BatchRunner.WorkerOptions.defaultName, jobs: jobs, wait: wait)
        if let text = args.value("--lease-seconds") {
            guard let value = Double(text), value >= 1, value <= 86400 else {
                throw GraphError(.usage, at: "--lease-seconds", "expects seconds from 1 to 86400, not \"\(text)\"")
            }
            options.lease = value
        }
        if let text = args.value("--max-attempts") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw GraphError(.usage, at: "--max-attempts", "expects a whole number from 1 to 100, not \"\(text)\"")
            }
            options.maxAttempts = value
        }
        return options
    }

    /// Loads and checks the pipeline (its plugins, node types and parameters, and with `items` the files their
    /// runs would write: `BatchPipeline.checkPaths`) and makes the runner.
    static func runner(config: String, args: Arguments, store: String?, registry: NodeRegistry,
                       firstPath: String, items: [WorkItem] = [],
                       control: BatchControl = BatchControl()) throws(GraphError) -> BatchRunner {
        let pipeline = try BatchPipeline(configPath: config, overrides: args.values("--set"), store: store)
        return try runner(pipeline: pipeline, args: args, store: store, registry: registry, firstPath: firstPath,
                          items: items, control: control)
    }

    /// Checks a loaded pipeline (its plugins, node types and parameters, and the files `items` would write) and
    /// makes the runner.
    static func runner(pipeline: BatchPipeline, args: Arguments, store: String?, registry: NodeRegistry,
                       firstPath: String, items: [WorkItem] = [], control: BatchControl) throws(GraphError) -> BatchRunner {
        var registry = registry
        try Plugins.prepare(pipeline.spec, registry: &registry, warn: { printError("audiograph: warning: \($0)") })
        try pipeline.validate(registry: registry, samplePath: firstPath)
        try pipeline.checkPaths(of: items, registry: registry)
        if store != nil, pipeline.storeNodes.isEmpty, !args.flag("--quiet") {
            printError("audiograph: note: the pipeline has no transcript-store node; --store only holds the queue")
        }
        let prepared = registry
        var clean: BatchRunner.SessionCleaner?
        if let store {
            clean = { (itemTag: String) throws(TranscriptsError) -> Void in
                let opened = try BatchStore.openStore(store, create: true)
                defer { opened.close() }
                _ = try opened.removeSessions(workItem: itemTag)
            }
        }
        return BatchRunner(pipeline: pipeline, control: control, options: RunOptions(verbose: args.flag("--verbose")),
                           clearSession: clean,
                           onWarning: { item, message in
                               if !args.flag("--quiet") { printError("audiograph: warning: \(item.path): \(message)") }
                           },
                           build: { spec throws(GraphError) in try GraphBuilder(registry: prepared).build(spec) })
    }
}

/// Opening the store that holds the queue.
enum BatchStore {
    /// A `postgres://` URL as it is; a path resolved against the working folder.
    static func location(_ value: String) -> String {
        TranscriptStores.isDatabaseURL(value)
            ? value : NodeConfiguration.resolve(value, against: FileManager.default.currentDirectoryPath)
    }

    /// The location as messages show it (a URL's password masked).
    static func describe(_ location: String) -> String { TranscriptStores.describe(location: location) }

    static func openStore(_ location: String, create: Bool) throws(TranscriptsError) -> any FullTranscriptStore {
        try TranscriptStores.open(location: location, create: create)
    }

    /// The store opened read-only (`batch status`): never created or migrated; exit 66 when there is no store
    /// there, 65 malformed, 74 unreadable.
    static func openForReading(_ location: String) throws(GraphError) -> any FullTranscriptStore {
        do {
            return try TranscriptStores.openForReading(location: location)
        } catch {
            throw StoreOptions.error(error, store: describe(location))
        }
    }

    /// The store (with its work queue); exit 66 when `create` is false and there is none, 73/74 when it cannot
    /// be opened.
    static func open(_ location: String, create: Bool = true) throws(GraphError) -> any FullTranscriptStore {
        do {
            return try openStore(location, create: create)
        } catch {
            if !create { throw StoreOptions.error(error, store: describe(location)) }
            throw GraphError(.cannotCreateOutput, at: describe(location), error.message)
        }
    }
}

/// Working a queue (`batch --store` and `worker`).
enum BatchWork {
    static func run(queue: any WorkQueue, store: String, control: BatchControl, resolve: @escaping BatchRunner.Resolver,
                    options: BatchRunner.WorkerOptions, total: Int?, args: Arguments,
                    exitZeroOnTerm: Bool, metrics: BatchMetrics? = nil) throws(GraphError) -> Int32 {
        let quiet = args.flag("--quiet")
        let progress = BatchProgress(total: total, enabled: !quiet && Console.stderrIsTerminal)
        let signals = BatchSignals(control: control)
        defer { _ = signals }
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
            // A failed attempt with attempts left is queued again: not finished yet.
            let retried = result.error != nil && !result.lostClaim && result.attempt < options.maxAttempts
            metrics?.finished(result, retried: retried)
            BatchReport.file(result, progress: progress, quiet: quiet, retried: retried)
        })
        progress.stop()
        if let error = outcome.queueError { throw StoreOptions.error(error, store: BatchStore.describe(store)) }
        if let error = outcome.pipelineError { throw error }
        var tally = BatchTally(results: outcome.results, wallSeconds: Date().timeIntervalSince(started))
        // What the queue holds decides what failed for good (a failed attempt may have been retried and done).
        let status: WorkQueueStatus?
        do {
            status = try queue.status()
        } catch {
            status = nil
        }
        if let status, !options.wait {
            tally.files = status.queued + status.running + status.done + status.failed
            tally.done = status.done
            tally.failed = status.failed
            tally.queued = status.queued
            tally.running = status.running
            tally.failures = status.failures.map { ($0.path, $0.key, $0.attempts, $0.error) }
        } else {
            tally.failures = tally.failures.filter { $0.attempts >= options.maxAttempts }
            tally.failed = tally.failures.count
        }
        BatchReport.summary(tally, json: args.flag("--json"), quiet: quiet)
        if signals.count > 0 {
            return exitZeroOnTerm && signals.firstSignal == SIGTERM ? 0 : GraphError.Code.interrupted.exitCode
        }
        return tally.failed > 0 ? BatchCommand.someFailedExitCode : 0
    }
}

/// `--metrics-port`: a `MetricsServer` with the batch's per-node totals (`BatchControl.statistics()`, running
/// files included) and this process's file counts.
final class BatchMetrics: Sendable {
    private struct Counts {
        var busy = 0
        var outcomes: [String: Int64] = ["done": 0, "failed": 0, "retried": 0, "interrupted": 0]
        var audioSeconds = 0.0
    }

    static let outcomes = ["done", "failed", "retried", "interrupted"]
    private let counts = Mutex(Counts())
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
            guard let counts = metrics?.counts.withLock({ $0 }) else { return }
            for outcome in outcomes {
                exposition.add(counter: "audiograph_worker_files_total",
                               help: "Files this process finished, by outcome: done, failed (for good), retried "
                                   + "(a failed attempt queued again), interrupted (or its claim was lost).",
                               labels: [("outcome", outcome)], value: counts.outcomes[outcome] ?? 0)
            }
            exposition.add(gauge: "audiograph_worker_busy_jobs", help: "Files running now.", value: Double(counts.busy))
            exposition.add(gauge: "audiograph_worker_jobs", help: "Files this process runs at once at most (--jobs).",
                           value: Double(jobs))
            exposition.add(counter: "audiograph_worker_audio_seconds_total",
                           help: "Seconds of audio in the files this process finished.", value: counts.audioSeconds)
            exposition.add(control.statistics())
        }
        printError("audiograph: metrics at \(server.baseURL)/metrics")
        return metrics
    }

    func began() { counts.withLock { $0.busy += 1 } }

    /// Counted before the file's line is printed, so a scrape after "done: FILE" sees it.
    func finished(_ result: BatchFileResult, retried: Bool) {
        let outcome = result.succeeded ? "done" : retried ? "retried" : result.error != nil && !result.lostClaim ? "failed"
            : "interrupted"
        counts.withLock { counts in
            counts.busy -= 1
            counts.outcomes[outcome, default: 0] += 1
            counts.audioSeconds += result.audioSeconds
        }
    }

    func shutdown() { server.shutdown() }
}

/// Counts for the summary.
struct BatchTally {
    var files = 0
    var done = 0
    var failed = 0
    var interrupted = 0
    var notStarted = 0
    var queued = 0
    var running = 0
    var audioSeconds = 0.0
    var wallSeconds = 0.0
    var failures: [(path: String, session: String, attempts: Int, error: String)] = []

    init(results: [BatchFileResult], wallSeconds: Double) {
        self.wallSeconds = wallSeconds
        files = results.count
        for result in results {
            audioSeconds += result.audioSeconds
            if result.succeeded {
                done += 1
            } else if let error = result.error, !result.lostClaim {
                failed += 1
                failures.append((result.item.path, result.sessionID, result.attempt, error.description))
            } else {
                interrupted += 1
            }
        }
    }
}

enum BatchReport {
    /// One line per finished file (not with --quiet).
    static func file(_ result: BatchFileResult, progress: BatchProgress, quiet: Bool, retried: Bool = false) {
        progress.finished(failed: result.error != nil, retried: retried)
        guard !quiet else { return }
        progress.clear()
        if retried, let error = result.error {
            printError("audiograph: attempt \(result.attempt) failed, queued again: \(result.item.path): \(error)")
        } else if let error = result.error {
            printError("audiograph: failed: \(result.item.path): \(error)")
        } else if result.lostClaim {
            printError("audiograph: \(result.item.path): its claim expired and went to another worker; result dropped")
        } else if result.interrupted {
            printError("audiograph: interrupted: \(result.item.path)")
        } else {
            printError(String(format: "audiograph: done: %@ (%.1f s of audio in %.2f s)", result.item.path,
                              result.audioSeconds, result.wallSeconds))
        }
    }

    static func summary(_ tally: BatchTally, json: Bool, quiet: Bool) {
        let factor = tally.wallSeconds > 0 ? tally.audioSeconds / tally.wallSeconds : 0
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
        printError(String(format: "audiograph: batch: %d files: %@; %.3f h of audio in %.1f s (%.1fx real time)",
                          tally.files, counts, tally.audioSeconds / 3600, tally.wallSeconds, factor))
        for failure in tally.failures {
            printError("audiograph: failed: \(failure.path): \(failure.error)")
        }
    }
}

/// SIGINT/SIGTERM for a batch: first, take no new files (running ones finish); second, stop the running ones
/// (outputs finalized); third, exit 130 at once.
/// `@unchecked Sendable`: the dispatch sources are set up in `init` and only cancelled in `deinit`.
final class BatchSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private final class Seen: Sendable {
        let received = Atomic<Int>(0)
        let first = Atomic<Int32>(0)
    }

    private let seen = Seen()

    init(control: BatchControl) {
        var sources: [any DispatchSourceSignal] = []
        let seen = self.seen
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                switch seen.received.add(1, ordering: .relaxed).newValue {
                case 1:
                    seen.first.store(signalNumber, ordering: .relaxed)
                    printError("\naudiograph: stopping: taking no new files; running files finish "
                        + "(signal again to stop them)")
                    control.stop()
                case 2:
                    printError("audiograph: stopping the running files, finalizing their outputs (again to quit at once)")
                    control.cancel()
                default:
                    exit(130)
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    var count: Int { seen.received.load(ordering: .relaxed) }
    var firstSignal: Int32 { seen.first.load(ordering: .relaxed) }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// The batch's status line on a terminal: files finished of the total, running, failed, elapsed time.
/// `@unchecked Sendable`: `timer` is a dispatch source (thread-safe); the rest is behind a mutex or atomic.
final class BatchProgress: @unchecked Sendable {
    private let total: Int?
    private let enabled: Bool
    private let counts = Mutex<(running: Int, finished: Int, failed: Int)>((0, 0, 0))
    private let drawn = Atomic<Bool>(false)
    private let started = Date()
    /// Made only when enabled: a dispatch source released without ever being resumed traps.
    private let timer: (any DispatchSourceTimer)?

    init(total: Int?, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        timer = enabled ? DispatchSource.makeTimerSource(queue: .global()) : nil
    }

    func start() {
        guard let timer else { return }
        timer.schedule(deadline: .now() + 0.2, repeating: 0.2)
        timer.setEventHandler { [self] in draw() }
        timer.resume()
    }

    func began() { counts.withLock { $0.running += 1 } }

    func finished(failed: Bool, retried: Bool = false) {
        counts.withLock { counts in
            counts.running -= 1
            if retried { return }
            counts.finished += 1
            if failed { counts.failed += 1 }
        }
    }

    func stop() {
        guard let timer else { return }
        timer.cancel()
        clear()
    }

    func clear() {
        guard enabled, drawn.exchange(false, ordering: .relaxed) else { return }
        Console.writeError("\r\u{1B}[2K")
    }

    private func draw() {
        let counts = counts.withLock { $0 }
        var line = "batch "
        if let total, total > 0 {
            let width = 30
            let filled = min(width, counts.finished * width / total)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                + "] \(counts.finished)/\(total) files"
        } else {
            line += "\(counts.finished) files"
        }
        line += "  \(counts.running) running  \(counts.failed) failed  "
            + ProgressDisplay.clock(Date().timeIntervalSince(started))
        drawn.store(true, ordering: .relaxed)
        Console.writeError("\r\u{1B}[2K" + line)
    }
}
