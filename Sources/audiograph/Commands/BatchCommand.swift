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
    static let options = CommandOptions([
        .valued("--pipeline", "CONFIG", "The pipeline config (exactly one file-source node)."),
        .pipelinesAtOnce,
        .setPipelineParameter,
        .valued("--store", "STORE", "The transcript store whose queue holds the work: a SQLite path, or a "
            + "postgres:// URL for workers on several machines."),
        .flag("--enqueue-only", "With --store: enqueue and exit; workers do the rest."),
        .leaseSeconds,
        .maxAttempts,
        .valued("--metrics-port", "PORT", "Serve Prometheus metrics at http://127.0.0.1:PORT/metrics while the batch "
            + "runs (HOST:PORT for another address; 0 picks a free port): per-node totals over the files run so far "
            + "and file counts (see docs/scale.md). Prints \"audiograph: metrics at http://HOST:PORT/metrics\" on "
            + "stderr. Not with --enqueue-only."),
        .flag("--json", "Print the summary (or status) as JSON on stdout."),
        .flag("--quiet", "No progress bar and no per-file lines on stderr."),
        .verbose,
    ])
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

        \(options.help)

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
        let args = try Arguments(arguments, Self.options)
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
        let signals = InterruptSignals(batch: runner.control)
        defer { withExtendedLifetime(signals) {} }
        let started = Date()
        progress.start()
        let results = runner.runAll(items, jobs: jobs, onStart: { _ in
            metrics?.began()
            progress.began()
        }, onFinish: { result in
            BatchReport.file(result, outcome: BatchOutcome(result), progress: progress, quiet: quiet, metrics: metrics)
        })
        progress.stop()
        let tally = BatchTally(results: results, of: items.count, wallSeconds: Date().timeIntervalSince(started))
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
