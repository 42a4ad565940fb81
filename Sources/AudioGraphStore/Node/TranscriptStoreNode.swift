import AudioGraphCore
import Foundation

/// `transcript-store`: keeps a recognizer's final results in a transcript store (SQLite in WAL mode by
/// default, or PostgreSQL), for `TranscriptsRequest`, `CallLogsRequest` and `audiograph transcripts` /
/// `audiograph calls`.
///
/// - **Where.** `path` (a SQLite file), or `store` (a `postgres://` URL, or a SQLite path) — one of them, not
///   both; by default `$XDG_DATA_HOME/audiograph/transcripts.sqlite` (when `XDG_DATA_HOME` is an absolute
///   path), else `~/.local/share/audiograph/transcripts.sqlite`. With SQLite, transcript JSON files go in
///   `transcripts/` beside it, one `<tid>.json` per transcript (that file's `file://` URL is the record's
///   `transcriptUrl`). With PostgreSQL there are no JSON files (the machines sharing the database share no
///   folder): `transcriptUrl` is empty, and the utterances are read from the database.
/// - **Session.** At start: a session row for this run — id `session.id` from the config, or
///   `run-<epoch>-<random>`; room `session.room` or ""; start time now (epoch seconds). At end of stream, on
///   SIGINT and after another node failed: its end time. A killed run leaves end time 0. The session's
///   participants (`session.participants`, by default the user who runs the pipeline) are stored with it: the
///   HTTP API shows the session to them only. A batch worker's run tags the row with its work item
///   (`session.workItem`), so that a retry of the item removes only what the item wrote.
/// - **Transcripts.** A transcription run opens a transcript (a new `tid`) at its first final result: the
///   first after start, or after a `startTranscription` command. `stopTranscription` closes it (its end time),
///   so the next final opens a new one. The transcript's start time is when its run started (the graph's start
///   when the session has `autoStartTranscription`, or the `startTranscription` command), else its first final.
/// - **Finals** are written as they arrive: each in one transaction (the utterance — segment, times, text,
///   confidence, words, language — and the transcript's end time), then appended to the JSON file, which is
///   valid after every write. A crash loses at most the utterance in progress. Partials are ignored; a second
///   final for a segment, and finals with no text and no words, too.
/// - **Language**: the result's own, else the last `setLanguage`, else the session's `captionLanguage`.
/// - **Errors**: a store that cannot be opened or created exits 73 (naming the path, or the URL with its
///   password masked); a failed write exits 74. Both `path` and `store`: a config error (exit 65).
public final class TranscriptStoreNode: AudioNode {
    static let url = Parameter.string("url", default: "",
        doc: "Recorded as the session's `url` (for example where its recording is kept).")

    public static let descriptor = NodeDescriptor(
        type: "transcript-store",
        summary: "Keeps final transcripts in a SQLite store (WAL) or a PostgreSQL database for `audiograph transcripts` "
            + "and `calls`: a session row per run, a transcript per transcription run, and (SQLite) a JSON file per "
            + "transcript. Each final is written as it arrives, so a crash loses at most the utterance in progress.",
        category: .sink,
        parameters: [
            ParameterSpec("path", .path(.sharedOutput),
                          doc: "The SQLite store; created with its folder when missing. Default: "
                            + "$XDG_DATA_HOME/audiograph/transcripts.sqlite, else ~/.local/share/audiograph/transcripts.sqlite. "
                            + "Transcript JSON files go in transcripts/ beside it. Give path or store, not both."),
            ParameterSpec("store", .string, default: "",
                          doc: "Where the store is, as `--store` takes it: a postgres:// (or postgresql://) URL, "
                            + "postgres://user:password@host:5432/database, for a PostgreSQL database shared by several "
                            + "machines (no transcript JSON files then), or a SQLite path. Give path or store, not both."),
            url.spec,
        ],
        inputs: [.init(requires: [.transcript])],
        outputs: [],
        execution: .queued(capacity: 256))

    /// Opens a store at a location: a path or a URL (`TranscriptStores.open` by default; embedders pass
    /// another backend).
    public typealias StoreFactory = @Sendable (String) throws(TranscriptsError) -> any TranscriptStore

    /// Where the store is, as `openStore` gets it: the SQLite path (the default one when the config gives
    /// none), or the database URL (with its password).
    public let location: String
    /// The store's path, or its URL with the password masked: what messages name.
    public let path: String
    /// The session id this run's rows carry.
    public let sessionID: String
    private let configuration: NodeConfiguration
    private let openStore: StoreFactory
    private let now: @Sendable () -> Int64
    /// Where transcript JSON files go; nil for a database server.
    private let transcriptFolder: String?

    private var store: (any TranscriptStore)?
    private var sessionKey: Int64?
    private var language: String
    /// When the current transcription run started (epoch seconds); nil after `stopTranscription`.
    private var runStartedAt: Int64?
    private var transcript: OpenTranscript?
    private var ended = false

    private struct OpenTranscript {
        var key: Int64
        var tid: String
        var file: TranscriptFile?
        var segments: Set<SpeakerSegment> = []
    }

    public convenience init(configuration: NodeConfiguration) throws {
        try self.init(configuration: configuration, openStore: { location throws(TranscriptsError) in
            try TranscriptStores.open(location: location)
        })
    }

    /// A node writing to the store `openStore` makes from the path (at start), with wall-clock times (epoch
    /// seconds) from `clock`.
    public init(configuration: NodeConfiguration, openStore: @escaping StoreFactory,
                clock: @escaping @Sendable () -> Int64 = StoreTime.now) throws {
        self.configuration = configuration
        self.openStore = openStore
        now = clock
        let store = configuration.string("store").flatMap { $0.isEmpty ? nil : $0 }
        if store != nil, configuration.string("path") != nil {
            throw configuration.error("give path (a SQLite file) or store (a postgres:// URL or a path), not both",
                                      parameter: "store")
        }
        if let store, TranscriptStores.isDatabaseURL(store) {
            location = store
            transcriptFolder = nil
        } else {
            location = store.map { NodeConfiguration.resolve($0, against: configuration.baseDirectory) }
                ?? configuration.path("path") ?? TranscriptStoreLocation.defaultPath()
            transcriptFolder = TranscriptStoreLocation.transcriptFolder(forStoreAt: location)
        }
        path = TranscriptStores.describe(location: location)
        sessionID = configuration.session.id.flatMap { $0.isEmpty ? nil : $0 } ?? Self.generatedSessionID()
        language = configuration.session.captionLanguage
    }

    /// `run-<epoch seconds>-<6 hex digits>`.
    static func generatedSessionID() -> String {
        "run-\(StoreTime.now())-" + String(UInt32.random(in: 0...0xFFFFFF), radix: 16).leftPadded(to: 6)
    }

    /// `t-<epoch seconds>-<12 hex digits>`: unique, and safe as a file name.
    static func generatedTID() -> String {
        "t-\(StoreTime.now())-" + String(UInt64.random(in: 0...0xFFFF_FFFF_FFFF), radix: 16).leftPadded(to: 12)
    }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }

    public func start(_ context: NodeContext) throws {
        let store: any TranscriptStore
        do {
            store = try openStore(location)
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, "cannot open the transcript store: \(error.message)",
                             node: configuration.id)
        }
        if let transcriptFolder {
            do throws(TranscriptsError) {
                try SQLiteStoreFiles.createFolder(transcriptFolder)  // 0700 when new: transcripts are private
            } catch {
                store.close()
                throw GraphError(.cannotCreateOutput, at: transcriptFolder, "cannot create the transcripts folder",
                                 node: configuration.id)
            }
        }
        self.store = store
    }

    /// Every node started: the session row is written now, so a run that cannot start (a model that does not
    /// load) leaves no row behind.
    public func openOutputs(_ context: NodeContext) throws {
        guard let store else { return }
        let startTime = now()
        do {
            sessionKey = try store.createSession(NewSession(sessionID: sessionID, roomName: configuration.session.room ?? "",
                                                            url: configuration[Self.url], startTime: startTime,
                                                            participants: configuration.session.effectiveParticipants,
                                                            workItem: configuration.session.workItem))
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, "cannot write the session: \(error.message)", node: configuration.id)
        }
        // With autoStartTranscription off, the run starts at the session's startTranscription command.
        runStartedAt = configuration.session.autoStartTranscription ? startTime : nil
    }

    /// Audio is not stored.
    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {}

    public func handle(_ event: Event, _ context: NodeContext) throws {
        guard case .transcript(let update) = event.payload, update.isFinal, let store, let sessionKey, !ended else { return }
        guard !update.text.allSatisfy(\.isWhitespace) || !update.words.isEmpty else { return }
        let utterance = StoredUtterance(update, language: language)
        if transcript == nil {
            transcript = try openTranscript(store, sessionKey: sessionKey, language: utterance.language)
        }
        guard var open = transcript, open.segments.insert(SpeakerSegment(update)).inserted else { return }
        transcript = open
        do {
            try store.appendUtterance(utterance, transcript: open.key, time: now())
        } catch {
            throw GraphError(.io, at: path, "cannot write the utterance: \(error.message)", node: configuration.id)
        }
        do {
            try open.file?.append(utterance)
        } catch {
            open.file?.close()
            throw GraphError(error.code, at: error.location, error.message, node: configuration.id)
        }
    }

    private func openTranscript(_ store: any TranscriptStore, sessionKey: Int64, language: String) throws(GraphError) -> OpenTranscript {
        let tid = Self.generatedTID()
        var file: TranscriptFile?
        var transcriptURL = ""
        if let transcriptFolder {
            let filePath = URL(fileURLWithPath: transcriptFolder).appendingPathComponent("\(tid).json").path
            do {
                file = try TranscriptFile(path: filePath, tid: tid, sessionID: sessionID, language: language)
            } catch {
                throw GraphError(error.code, at: error.location, error.message, node: configuration.id)
            }
            transcriptURL = URL(fileURLWithPath: filePath).absoluteString
        }
        let key: Int64
        do {
            key = try store.beginTranscript(NewTranscript(
                tid: tid, sessionKey: sessionKey, sessionID: sessionID, language: language,
                startTime: runStartedAt ?? now(), transcriptURL: transcriptURL))
        } catch {
            file?.close()
            throw GraphError(.io, at: path, "cannot write the transcript: \(error.message)", node: configuration.id)
        }
        return OpenTranscript(key: key, tid: tid, file: file)
    }

    public func handle(_ command: ControlCommand, _ context: NodeContext) throws {
        switch command {
        case .startTranscription:
            if transcript == nil { runStartedAt = now() }
        case .stopTranscription:
            runStartedAt = nil
            try closeTranscript()
        case .setLanguage(let code):
            language = code
        case .showCaptions, .hideCaptions, .flush, .custom:
            break
        }
    }

    /// Ends the open transcript run: its end time, and the JSON file synced and closed.
    private func closeTranscript() throws(GraphError) {
        guard let open = transcript else { return }
        transcript = nil
        var failure: GraphError?
        do {
            try open.file?.finalize()
        } catch {
            failure = GraphError(error.code, at: error.location, error.message, node: configuration.id)
        }
        do {
            try store?.finishTranscript(open.key, endTime: now())
        } catch {
            failure = failure ?? GraphError(.io, at: path, "cannot write the transcript: \(error.message)", node: configuration.id)
        }
        if let failure { throw failure }
    }

    /// Closes the transcript run and the session (its end time) and the store. Idempotent.
    private func end() throws(GraphError) {
        guard !ended else { return }
        ended = true
        defer {
            store?.close()
            store = nil
        }
        var failure: GraphError?
        do {
            try closeTranscript()
        } catch {
            failure = error
        }
        if let store, let sessionKey {
            do {
                try store.endSession(sessionKey, endTime: now())
            } catch {
                failure = failure ?? GraphError(.io, at: path, "cannot write the session: \(error.message)", node: configuration.id)
            }
        }
        if let failure { throw failure }
    }

    public func finish(_ context: NodeContext) throws {
        try end()
    }

    public func stop() {
        try? end()
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension TranscriptStoreNode: TranscriptStoreRole {
    public var storeLocation: String { location }
}
