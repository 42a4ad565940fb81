import AudioGraph
import Foundation

struct WorkerCommand: Command {
    static let name = "worker"
    static let abstract = "Claim files from a batch queue and run the pipeline on them"
    static let usage = "audiograph worker --store STORE [--wait] [--pipeline CONFIG] [--jobs N] [--lease-seconds S] [--max-attempts N] [--set NODE.PARAM=VALUE]... [--metrics-port PORT] [--json] [--quiet]"
    static let options = CommandOptions([
        .valued("--store", "STORE", "The transcript store whose queue holds the work: a SQLite path, or a "
            + "postgres:// URL shared by workers on several machines."),
        .valued("--pipeline", "CONFIG", "Run every file through this config (exactly one file-source node) instead "
            + "of the pipeline each was enqueued with."),
        .flag("--wait", "When the queue is empty, poll for new work (every 2 s) until SIGTERM or Ctrl-C; then finish "
            + "the running files and exit (0 on SIGTERM)."),
        .pipelinesAtOnce,
        .leaseSeconds,
        .maxAttempts,
        .setPipelineParameter,
        .valued("--metrics-port", "PORT", "Serve Prometheus metrics at http://127.0.0.1:PORT/metrics while the "
            + "worker runs (HOST:PORT for another address, e.g. 0.0.0.0:9464; 0 picks a free port): per-node totals "
            + "over the files run so far (running ones included), "
            + "audiograph_worker_files_total{outcome=\"done|failed|retried|interrupted\"}, busy jobs. Prints "
            + "\"audiograph: metrics at http://HOST:PORT/metrics\" on stderr."),
        .flag("--json", "Print the summary as JSON on stdout."),
        .flag("--quiet", "No progress and no per-file lines on stderr."),
        .verbose,
    ])
    static let help = """
        \(abstract) (enqueued by `audiograph batch MANIFEST --pipeline CONFIG --store STORE --enqueue-only`).

        USAGE: \(usage)

        Each claimed file runs through the pipeline it was enqueued with (the queue holds each file's config text
        and folder) as `audiograph batch` runs it (the file as the file-source's path, the line's session and
        room, transcripts into STORE); --pipeline CONFIG runs every file through CONFIG instead (and is needed
        for files enqueued by an audiograph whose queue did not hold pipelines). While a file runs its claim's
        lease is extended every S/3 seconds; a worker that dies stops extending it, and after S seconds another
        worker claims the file again (attempt 2, …, at most --max-attempts), first removing what the file's
        earlier attempts stored (only that: other runs under the same session id stay), so every file is stored
        once. Paths in a queued pipeline (models, plugins) must exist on
        every worker's machine.

        \(options.help)

        Without --wait the worker ends when every file in the queue is done or failed; while files are queued or
        claimed by other workers it polls every 2 s, and runs a file whose worker died once its lease runs out.
        EXIT CODES: 0 done (or SIGTERM with --wait); 64 bad arguments, or (without --pipeline) a claimed file
        queued without its pipeline (named; its attempt is failed); 65 a bad pipeline; 66 no pipeline file or
        no store; 69 cannot listen on --metrics-port; 73/74 the store cannot be opened or written; 75 files
        this worker ran failed for good; 130 interrupted.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        _ = try args.requirePositionals([])
        let metricsAddress = try BatchOptions.metricsAddress(args)
        guard let store = args.value("--store").map(BatchStore.location) else {
            throw GraphError(.usage, at: "--store", "worker needs the store that holds the queue: --store STORE")
        }
        let jobs = try BatchOptions.jobs(args)
        let options = try BatchOptions.worker(args, jobs: jobs, wait: args.flag("--wait"))
        let control = BatchControl()
        let resolve: BatchRunner.Resolver
        if let config = args.value("--pipeline") {
            let runner = try BatchOptions.runner(config: config, args: args, store: store, registry: registry,
                                                 firstPath: "input.wav", control: control)
            resolve = { _ in runner }
        } else {
            resolve = QueuedPipelines(overrides: args.values("--set"), store: store) { pipeline, item throws(GraphError) in
                try BatchOptions.runner(pipeline: pipeline, args: args, store: store, registry: registry,
                                        firstPath: item.path, control: control)
            }.resolver
        }
        let queue = try BatchStore.open(store, create: false)
        defer { queue.close() }
        let metrics = try metricsAddress.map { address throws(GraphError) in
            try BatchMetrics.start(address, control: control, jobs: jobs)
        }
        defer { metrics?.shutdown() }
        return try BatchWork.run(queue: queue, store: store, control: control, resolve: resolve, options: options,
                                 total: nil, args: args, exitZeroOnTerm: true, metrics: metrics)
    }
}
