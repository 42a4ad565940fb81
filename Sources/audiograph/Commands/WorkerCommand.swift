import AudioGraph
import Foundation

struct WorkerCommand: Command {
    static let name = "worker"
    static let abstract = "Claim files from a batch queue and run the pipeline on them"
    static let usage = "audiograph worker --store STORE --pipeline CONFIG [--wait] [--jobs N] [--lease-seconds S] [--max-attempts N] [--set NODE.PARAM=VALUE]... [--json] [--quiet]"
    static let help = """
        \(abstract) (enqueued by `audiograph batch MANIFEST --pipeline CONFIG --store STORE --enqueue-only`).

        USAGE: \(usage)

        Each claimed file runs through CONFIG as `audiograph batch` runs it (the file as the file-source's path,
        the line's session and room, transcripts into STORE). While a file runs its claim's lease is extended
        every S/3 seconds; a worker that dies stops extending it, and after S seconds another worker claims the
        file again (attempt 2, …, at most --max-attempts), first removing what the dead attempt stored, so every
        file is stored once. Give every worker the same CONFIG (the queue holds the files, not the pipeline).

        OPTIONS:
          --store STORE         The transcript store whose queue holds the work: a SQLite path, or a
                                postgres:// URL shared by workers on several machines.
          --pipeline CONFIG     The pipeline config (exactly one file-source node).
          --wait                When the queue is empty, poll for new work (every 2 s) until SIGTERM or Ctrl-C;
                                then finish the running files and exit (0 on SIGTERM).
          --jobs N              Pipelines at once (default: the number of cores).
          --lease-seconds S     How long a claim lasts without a heartbeat (default 60).
          --max-attempts N      Tries per file before it is failed for good (default 3).
          --set NODE.PARAM=VALUE  Override a pipeline parameter (or session.KEY); repeatable.
          --json                Print the summary as JSON on stdout.
          --quiet               No progress and no per-file lines on stderr.
          --verbose             Let libraries print their own logs.

        Without --wait the worker ends when nothing is claimable (files claimed by live workers are theirs).
        EXIT CODES: 0 done (or SIGTERM with --wait); 64 bad arguments; 65 a bad pipeline; 66 no pipeline or
        no store; 73/74 the store cannot be opened or written; 75 files this worker ran failed for good;
        130 interrupted.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, valued: ["--pipeline", "--store", "--jobs", "--set", "--lease-seconds",
                                                     "--max-attempts"],
                                 flags: ["--wait", "--json", "--quiet", "--verbose"])
        _ = try args.requirePositionals([])
        guard let store = args.value("--store").map(BatchStore.location) else {
            throw GraphError(.usage, at: "--store", "worker needs the store that holds the queue: --store STORE")
        }
        guard let config = args.value("--pipeline") else {
            throw GraphError(.usage, at: "--pipeline", "worker needs the pipeline: --pipeline CONFIG")
        }
        let jobs = try BatchOptions.jobs(args)
        let options = try BatchOptions.worker(args, jobs: jobs, wait: args.flag("--wait"))
        let runner = try BatchOptions.runner(config: config, args: args, store: store, registry: registry,
                                             firstPath: "input.wav")
        let queue = try BatchStore.open(store, create: false)
        defer { queue.close() }
        return try BatchWork.run(queue: queue, store: store, runner: runner, options: options, total: nil, args: args,
                                 exitZeroOnTerm: true)
    }
}
