import AudioGraphCore
import AudioGraphStore
import Synchronization

/// The runners of the pipelines queue items carry (`WorkItem.pipeline` and `pipelineBase`), each loaded and
/// checked once per text and folder, for a worker given no pipeline of its own: `resolver` is its
/// `BatchRunner.Resolver`. A pipeline that fails to load is not kept (the next item carrying it tries again).
public final class QueuedPipelines: Sendable {
    /// Makes the runner of a loaded pipeline (the CLI prepares plugins and validates it for `item`, its first file).
    public typealias Make = @Sendable (_ pipeline: BatchPipeline, _ item: WorkItem) throws(GraphError) -> BatchRunner

    private let overrides: [String]
    private let store: String?
    private let make: Make
    private let runners = Mutex<[String: BatchRunner]>([:])

    /// - Parameters:
    ///   - overrides: `NODE.PARAM=VALUE` overrides applied to every queued pipeline (`--set`).
    ///   - store: the store location every transcript-store node writes to.
    public init(overrides: [String] = [], store: String?, make: @escaping Make) {
        self.overrides = overrides
        self.store = store
        self.make = make
    }

    /// The runner of `item`'s pipeline. A usage error at `--pipeline` for an item enqueued without one (by an
    /// older audiograph); the pipeline's own error when it does not load.
    public func runner(for item: WorkItem) throws(GraphError) -> BatchRunner {
        guard let text = item.pipeline, let base = item.pipelineBase else {
            throw GraphError(.usage, at: "--pipeline", "queue item \"\(item.key)\" (\(item.path)) was enqueued without its "
                + "pipeline (by an older audiograph); give the worker the pipeline: --pipeline CONFIG")
        }
        let key = base + "\u{0}" + text
        return try runners.withLock { runners throws(GraphError) -> BatchRunner in
            if let runner = runners[key] { return runner }
            let pipeline = try BatchPipeline(text: text, baseDirectory: base,
                                             name: "the queued pipeline of \"\(item.key)\" (from \(base))",
                                             overrides: overrides, store: store)
            let runner = try make(pipeline, item)
            runners[key] = runner
            return runner
        }
    }

    /// `runner(for:)` as a worker's resolver.
    public var resolver: BatchRunner.Resolver {
        { [self] item throws(GraphError) in try runner(for: item) }
    }
}

extension BatchRunner {
    /// The `SessionCleaner` of the store at `location` (a SQLite path or a `postgres://` URL): for each retry it
    /// opens the store, removes the session rows tagged with the item (`TranscriptStore.removeSessions(workItem:)`)
    /// and closes it again.
    public static func storeCleaner(location: String) -> SessionCleaner {
        { (itemTag: String) throws(TranscriptsError) -> Void in
            let opened = try TranscriptStores.open(location: location, create: true)
            defer { opened.close() }
            _ = try opened.removeSessions(workItem: itemTag)
        }
    }
}
