import AudioGraph
import Dispatch
import Foundation
import Synchronization

/// What `transcripts` and `calls` share: the store option, paging options, JSON output, error mapping.
enum StoreOptions {
    struct Paging {
        var limit: Int
        var page: Int
        var all: Bool
    }

    static func paging(_ args: Arguments) throws(GraphError) -> Paging {
        var limit = TranscriptsRequest.defaultLimit
        if let text = args.value("--limit") {
            guard let value = Int(text) else { throw GraphError(.usage, at: "--limit", "expects a whole number, not \"\(text)\"") }
            limit = min(max(value, TranscriptsRequest.limitRange.lowerBound), TranscriptsRequest.limitRange.upperBound)
        }
        var page = 1
        if let text = args.value("--page") {
            guard let value = Int(text), value >= 1 else {
                throw GraphError(.usage, at: "--page", "expects a page number from 1, not \"\(text)\"")
            }
            if args.flag("--all") { throw GraphError(.usage, at: "--page", "give --page or --all, not both") }
            page = value
        }
        return Paging(limit: limit, page: page, all: args.flag("--all"))
    }

    static func reject(_ options: [String], in args: Arguments) throws(GraphError) {
        for option in options where args.flag(option) || args.value(option) != nil {
            throw GraphError(.usage, at: option, "does not apply here; see --help")
        }
    }

    /// Where the store is: `--store` as given when it is a `postgres://` URL, else resolved against the working
    /// folder; or the default store path.
    static func path(_ args: Arguments) -> String {
        guard let store = args.value("--store") else { return TranscriptStoreLocation.defaultPath() }
        if TranscriptStores.isDatabaseURL(store) { return store }
        return NodeConfiguration.resolve(store, against: FileManager.default.currentDirectoryPath)
    }

    /// The store's location as messages name it: the path, or the URL with its password masked.
    static func describe(_ args: Arguments) -> String {
        TranscriptStores.describe(location: path(args))
    }

    /// The store at `--store` (a SQLite path or a `postgres://` URL) or the default path, opened for writing
    /// (migrated to the current schema); exit 66 naming it when there is none (no file; a database without
    /// audiograph's tables). With `create`, a missing store is made.
    static func openStore(_ args: Arguments, create: Bool = false) throws(GraphError) -> any FullTranscriptStore {
        try open(args, mustExist: !create) { location throws(TranscriptsError) in
            try TranscriptStores.open(location: location, create: create)
        } failed: { error, shown in
            if create, case .storeUnavailable = error { return GraphError(.cannotCreateOutput, at: shown, error.message) }
            return Self.error(error, store: shown)
        }
    }

    /// The store for a command that only reads it (`calls`, `transcripts`, `serve`): opened read-only, never
    /// created or migrated. Exit 66 naming it when there is no store there (nothing, an empty file, a database
    /// without audiograph's tables: left unchanged), 65 when it is malformed, 74 when it cannot be read.
    static func openStoreForReading(_ args: Arguments) throws(GraphError) -> any FullTranscriptStore {
        try open(args, mustExist: true) { location throws(TranscriptsError) in
            try TranscriptStores.openForReading(location: location)
        } failed: { error, shown in
            Self.error(error, store: shown)
        }
    }

    private static func open(_ args: Arguments, mustExist: Bool,
                             _ opener: (String) throws(TranscriptsError) -> any FullTranscriptStore,
                             failed: (TranscriptsError, String) -> GraphError) throws(GraphError) -> any FullTranscriptStore {
        let location = path(args)
        if mustExist, !TranscriptStores.isDatabaseURL(location) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw GraphError(.missingInput, at: location, "no transcript store here; run a pipeline with a transcript-store "
                    + "node, or pass --store PATH (or a postgres:// URL)")
            }
        }
        do {
            return try opener(location)
        } catch {
            throw failed(error, TranscriptStores.describe(location: location))
        }
    }

    /// Exit codes for store errors: 66 no store there, 65 malformed data, 74 anything else (the store cannot be
    /// read or written: permissions, I/O, a lost connection).
    static func error(_ error: TranscriptsError, store path: String) -> GraphError {
        switch error {
        case .malformedData: return GraphError(.invalidConfig, at: path, error.message)
        case .noStore: return GraphError(.missingInput, at: path, error.message)
        default: return GraphError(.io, at: path, error.message)
        }
    }

    /// Fetches pages 1…`page` (or every page) and returns the ones to print.
    static func walk<Record: Sendable>(_ paging: Paging, timings: Bool,
                                       fetchNext: @escaping @Sendable () async throws(TranscriptsError) -> [Record])
        throws(GraphError) -> [[Record]] {
        let result: Result<[[Record]], TranscriptsError> = blocking { () async throws(TranscriptsError) in
            var pages: [[Record]] = []
            var number = 0
            while paging.all || number < paging.page {
                let started = ContinuousClock.now
                let records = try await fetchNext()
                let elapsed = ContinuousClock.now - started
                if records.isEmpty { break }
                number += 1
                if timings {
                    let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
                    printError(String(format: "audiograph: page %d: %d records in %.3f ms", number, records.count, ms))
                }
                if paging.all || number == paging.page { pages.append(records) }
            }
            return pages
        }
        switch result {
        case .success(let pages): return pages
        case .failure(let error): throw Self.error(error, store: "store")
        }
    }

    /// Runs async work to completion from the synchronous command (the main thread waits; the work runs on the
    /// concurrency pool, and store queries on a dispatch queue).
    static func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws(TranscriptsError) -> T)
        -> Result<T, TranscriptsError> {
        let outcome = Mutex<Result<T, TranscriptsError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, TranscriptsError>
            do throws(TranscriptsError) {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// `2026-11-29 10:15:00` (UTC), or `-` for 0.
    static func date(_ seconds: Int64) -> String {
        guard seconds != 0 else { return "-".padding(toLength: 20, withPad: " ", startingAt: 0) }
        return StoreTime.iso8601(seconds).replacingOccurrences(of: "T", with: " ")
            .padding(toLength: 20, withPad: " ", startingAt: 0)
    }
}
