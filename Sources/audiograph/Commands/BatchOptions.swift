import AudioGraph
import Foundation

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
        return BatchRunner(pipeline: pipeline, control: control, options: RunOptions(verbose: args.flag("--verbose")),
                           clearSession: store.map(BatchRunner.storeCleaner(location:)),
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
