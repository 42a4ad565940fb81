import AudioGraphCore
import CSQLite
import Foundation
import Synchronization

/// The embedded transcript store: one SQLite file in WAL mode (see `SQLiteDatabase` for the pragmas).
///
/// **Schema** (`PRAGMA user_version` is the schema version; `migrations[i]` takes version i to i+1, each in a
/// transaction, when the store opens):
///
/// - `sessions(id INTEGER PRIMARY KEY, session_id, room_name, url, start_time, end_time, has_transcription)` —
///   one row per run; `id` is the call-log page key. Indexes `(session_id)` and `(has_transcription, id)`.
/// - `transcripts(id INTEGER PRIMARY KEY, tid UNIQUE, session_row → sessions.id, session_id, language,
///   start_time, end_time, transcript_date, transcript_url)` — one per transcription run; `id` is the page
///   key. Indexes `(session_id, id)` (a session's transcripts, keyset) and `(session_row, id)`.
/// - `utterances(id INTEGER PRIMARY KEY, transcript → transcripts.id, segment, start, end, text, confidence,
///   words (JSON), language, speaker)` — the final utterances (speaker: a call's participant, else NULL). Index `(transcript, id)`.
/// - (version 2) `session_participants(session_row → sessions.id, user)` — who took part in a run; index
///   `(user, session_row)`. `access_tokens(id PRIMARY KEY, user, secret_hash BLOB, created, revoked)` — the
///   HTTP API's tokens (`AccessTokenStore`): only a hash of each secret.
/// - (version 3) `work_items(id INTEGER PRIMARY KEY, key UNIQUE, path, session_id, room, state
///   queued|running|done|failed, attempts, lease_until (epoch seconds, REAL), token, worker, last_error,
///   created_at, updated_at)` — the batch `WorkQueue` (see `SQLiteWorkQueue.swift`).
/// - (version 4) `work_items.pipeline`, `work_items.pipeline_base` — the pipeline config text each item runs
///   through and the folder its relative paths are from (NULL for items enqueued before).
/// - (version 5) `work_items.item_tag` — a random id an item gets at its first claim — and
///   `sessions.work_item`: the `item_tag` of the work item whose run wrote the row (NULL for every other run),
///   indexed. A retry removes the rows its own item wrote by it (`removeSessions(workItem:)`), never rows of
///   other runs under the same session id.
///
/// Times are epoch seconds (integers); utterance times are seconds of stream time.
///
/// **Threading.** One connection, kept in a `Mutex`: every call is serialized, so a store may be shared
/// between threads and tasks. Other processes (the CLI reading while `audiograph run` writes) use connections
/// of their own; WAL lets them read while it writes.
public final class SQLiteTranscriptStore: TranscriptStore, StoreChangeStamping {
    /// The schema version this code writes.
    public static var schemaVersion: Int { migrations.count }

    /// Schema migrations: `migrations[i]` upgrades version i to i + 1.
    /// The schema version that added `utterances.speaker`.
    static let speakerVersion = 6

    static let migrations: [String] = [
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            room_name TEXT,
            url TEXT,
            start_time INTEGER,
            end_time INTEGER,
            has_transcription INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX sessions_by_session_id ON sessions(session_id);
        CREATE INDEX sessions_transcribed ON sessions(has_transcription, id);
        CREATE TABLE transcripts (
            id INTEGER PRIMARY KEY,
            tid TEXT NOT NULL UNIQUE,
            session_row INTEGER REFERENCES sessions(id),
            session_id TEXT NOT NULL,
            language TEXT,
            start_time INTEGER,
            end_time INTEGER,
            transcript_date TEXT,
            transcript_url TEXT
        );
        CREATE INDEX transcripts_by_session ON transcripts(session_id, id);
        CREATE INDEX transcripts_by_session_row ON transcripts(session_row, id);
        CREATE TABLE utterances (
            id INTEGER PRIMARY KEY,
            transcript INTEGER NOT NULL REFERENCES transcripts(id),
            segment INTEGER NOT NULL,
            start REAL NOT NULL,
            "end" REAL NOT NULL,
            text TEXT NOT NULL,
            confidence REAL,
            words TEXT NOT NULL DEFAULT '[]',
            language TEXT
        );
        CREATE INDEX utterances_by_transcript ON utterances(transcript, id);
        """,
        """
        CREATE TABLE session_participants (
            session_row INTEGER NOT NULL REFERENCES sessions(id),
            user TEXT NOT NULL,
            PRIMARY KEY (session_row, user)
        );
        CREATE INDEX participants_by_user ON session_participants(user, session_row);
        CREATE TABLE access_tokens (
            id TEXT PRIMARY KEY,
            user TEXT NOT NULL,
            secret_hash BLOB NOT NULL,
            created INTEGER NOT NULL,
            revoked INTEGER
        );
        CREATE INDEX access_tokens_by_user ON access_tokens(user);
        """,
        """
        CREATE TABLE work_items (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL,
            session_id TEXT,
            room TEXT,
            state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            lease_until REAL,
            token TEXT,
            worker TEXT,
            last_error TEXT,
            created_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
            updated_at REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
        );
        CREATE INDEX work_items_by_state ON work_items(state, id);
        """,
        """
        ALTER TABLE work_items ADD COLUMN pipeline TEXT;
        ALTER TABLE work_items ADD COLUMN pipeline_base TEXT;
        """,
        """
        ALTER TABLE work_items ADD COLUMN item_tag TEXT;
        ALTER TABLE sessions ADD COLUMN work_item TEXT;
        CREATE INDEX sessions_by_work_item ON sessions(work_item) WHERE work_item IS NOT NULL;
        """,
        // A call's utterances name who said it (NULL for a single-speaker pipeline).
        """
        ALTER TABLE utterances ADD COLUMN speaker TEXT;
        """,
    ]

    /// The columns of a transcript row (`metaData`): the transcript's own and its session's room and url.
    static let transcriptColumns = """
        t.id AS id, t.tid AS tid, t.session_row AS session_row, t.session_id AS session_id, \
        s.room_name AS room_name, s.url AS url, t.language AS language, t.start_time AS start_time, \
        t.end_time AS end_time, t.transcript_date AS transcript_date, t.transcript_url AS transcript_url
        """
    /// `sessionColumns` of a query that names the sessions table `s`.
    static let sessionColumnsOfS = """
        s.id AS id, s.session_id AS session_id, s.room_name AS room_name, s.url AS url, s.start_time AS start_time, \
        s.end_time AS end_time, s.has_transcription AS has_transcription
        """
    static let sessionColumns = """
        id, session_id, room_name, url, start_time, end_time, has_transcription
        """

    public let path: String
    private let state: Mutex<SQLiteDatabase?>
    /// The connection `changeStamp` asks (opened on first use; `.some(nil)` when it could not be): apart from
    /// `state`, so a stamp never waits for a query.
    private let watch = Mutex<SQLiteDatabase??>(nil)

    /// Opens the store at `path` for writing, migrating its schema to the current version. Another program's
    /// SQLite database there (tables, but no audiograph schema) is `noStore` and is not touched: audiograph's
    /// tables are only ever added to an empty database.
    ///
    /// A store it creates is private: the folder (when missing) is made `0700`, the file `0600` before SQLite
    /// opens it, and SQLite gives its `-wal` and `-shm` files the database file's mode. An existing file keeps
    /// its mode.
    /// - Parameter create: create the file (and its folder) when missing; otherwise a missing file is `noStore`.
    public init(path: String, create: Bool = true) throws(TranscriptsError) {
        self.path = path
        if create {
            try SQLiteStoreFiles.createPrivately(storeAt: path)
        } else if !FileManager.default.fileExists(atPath: path) {
            throw .noStore("nothing at \(path)")
        }
        try SQLiteStoreReader.refuseOtherDatabase(path)
        state = Mutex(try Self.openAndMigrate(path: path, create: create))
    }

    /// Opens the store at `path` for reading only (what `calls`, `transcripts`, `serve` and `batch status` use):
    /// it never creates, migrates or writes anything, works on a store the process may not write (another
    /// user's, a read-only mount), and refuses a file that is not a store (`noStore`) without touching it. See
    /// `SQLiteStoreReader`. An older schema version is read as it is: what needs a later version's tables fails
    /// with `storeUnavailable` until a writer has opened the store once.
    public init(readingFrom path: String) throws(TranscriptsError) {
        self.path = path
        state = Mutex(try SQLiteStoreReader.openStore(path))
    }

    deinit { close() }

    /// Opens and migrates, retrying while another connection holds the lock. Several processes or threads
    /// opening a new store at once (a batch's parallel pipelines) race to switch it to WAL and to migrate it;
    /// SQLite answers some of those races with SQLITE_BUSY at once instead of waiting out the busy timeout
    /// (changing the journal mode is one), so the open is retried for up to 10 s.
    private static func openAndMigrate(path: String, create: Bool) throws(TranscriptsError) -> SQLiteDatabase {
        var delayMs: UInt32 = 5
        var waitedMs: UInt32 = 0
        while true {
            do throws(SQLiteError) {
                let database = try SQLiteDatabase(path: path, create: create)
                do throws(SQLiteError) {
                    try migrate(database)
                } catch {
                    database.close()
                    throw error
                }
                return database
            } catch {
                guard error.primaryCode == SQLITE_BUSY || error.primaryCode == SQLITE_LOCKED, waitedMs < 10_000 else {
                    throw translate(error)
                }
                usleep(delayMs * 1000)  // back off: another opener holds the lock for a moment
                waitedMs += delayMs
                delayMs = min(delayMs * 2, 200)
            }
        }
    }

    static func migrate(_ database: SQLiteDatabase) throws(SQLiteError) {
        // Check outside a transaction first: a store at the current version opens without taking the write lock.
        let version = try database.userVersion
        if version > migrations.count { throw newerSchema(version) }
        if version == migrations.count { return }
        try database.transaction { () throws(SQLiteError) in
            // Another process may have migrated between the check and the lock.
            let current = try database.userVersion
            if current > migrations.count { throw newerSchema(current) }
            for index in current..<migrations.count {
                try database.execute(migrations[index])
            }
            try database.setUserVersion(migrations.count)
        }
    }

    private static func newerSchema(_ version: Int) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: "the store's schema version \(version) is newer than this audiograph "
            + "reads (\(migrations.count))")
    }

    static func translate(_ error: SQLiteError) -> TranscriptsError {
        error.isMalformed ? .malformedData(error.message) : .storeUnavailable(error.message)
    }

    /// Runs `body` on the connection, serialized; SQLite errors become `TranscriptsError`s.
    private func withDatabase<T: Sendable>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(TranscriptsError) -> T {
        let result: Result<T, TranscriptsError> = state.withLock { database in
            if let current = database, let fresh = SQLiteStoreReader.reopenIfWritten(current) { database = fresh }
            guard let database else { return .failure(.storeNotOpened) }
            do throws(SQLiteError) {
                return .success(try body(database))
            } catch {
                return .failure(Self.translate(error))
            }
        }
        return try result.get()
    }

    public func close() {
        state.withLock { database in
            database?.close()
            database = nil
        }
        watch.withLock { watch in
            (watch ?? nil)?.close()
            watch = .some(nil)
        }
    }

    /// `PRAGMA data_version` of a read-only connection of its own, which changes with every commit of any other
    /// connection: this store's own and other processes'. Nil when that connection cannot be opened (a store on
    /// a read-only mount without its `-shm`) or asked, and after `close`.
    public func changeStamp() -> UInt64? {
        watch.withLock { watch -> UInt64? in
            if watch == nil { watch = .some(try? SQLiteDatabase(readOnlyPath: path)) }
            guard let database = watch ?? nil,
                  case .integer(let version)? = (try? database.query("PRAGMA data_version"))?.first?.first else { return nil }
            return UInt64(bitPattern: version)
        }
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file.
    public func integrityCheck() throws(TranscriptsError) -> [String] {
        try withDatabase { database throws(SQLiteError) in try database.integrityCheck() }
    }

    /// The schema version of the open file.
    public func storedSchemaVersion() throws(TranscriptsError) -> Int {
        try withDatabase { database throws(SQLiteError) in try database.userVersion }
    }

    /// Runs `body` with the raw connection (serialized with every other call). For tests and tools.
    public func withConnection<T: Sendable>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(TranscriptsError) -> T {
        try withDatabase(body)
    }

    // MARK: Writing

    public func createSession(_ session: NewSession) throws(TranscriptsError) -> Int64 {
        try withDatabase { database throws(SQLiteError) in
            try database.transaction { () throws(SQLiteError) in
                try database.run("""
                    INSERT INTO sessions (session_id, room_name, url, start_time, end_time, has_transcription, work_item)
                    VALUES (?, ?, ?, ?, 0, 0, ?)
                    """, [.text(session.sessionID), .text(session.roomName), .text(session.url), .integer(session.startTime),
                          session.workItem.map(SQLiteValue.text) ?? .null])
                let key = database.lastInsertRowID
                for user in Set(session.participants) {
                    try database.run("INSERT INTO session_participants (session_row, user) VALUES (?, ?)",
                                     [.integer(key), .text(user)])
                }
                return key
            }
        }
    }

    public func beginTranscript(_ transcript: NewTranscript) throws(TranscriptsError) -> Int64 {
        try withDatabase { database throws(SQLiteError) in
            try database.transaction { () throws(SQLiteError) in
                try database.run("""
                    INSERT INTO transcripts (tid, session_row, session_id, language, start_time, end_time, transcript_date,
                                             transcript_url)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.text(transcript.tid), .integer(transcript.sessionKey), .text(transcript.sessionID),
                          .text(transcript.language), .integer(transcript.startTime), .integer(transcript.startTime),
                          .text(transcript.transcriptDate), .text(transcript.transcriptURL)])
                let key = database.lastInsertRowID
                try database.run("UPDATE sessions SET has_transcription = 1 WHERE id = ?", [.integer(transcript.sessionKey)])
                return key
            }
        }
    }

    public func appendUtterance(_ utterance: StoredUtterance, transcript: Int64, time: Int64) throws(TranscriptsError) {
        try withDatabase { database throws(SQLiteError) in
            try database.transaction { () throws(SQLiteError) in
                try database.run("""
                    INSERT INTO utterances (transcript, segment, start, "end", text, confidence, words, language, speaker)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(transcript), .integer(Int64(utterance.segment)), .real(utterance.start),
                          .real(utterance.end), .text(utterance.text), utterance.confidence.map(SQLiteValue.real) ?? .null,
                          .text(JSONWriter.compact(utterance.wordsJSON)), .text(utterance.language),
                          utterance.speaker.map(SQLiteValue.text) ?? .null])
                try database.run("UPDATE transcripts SET end_time = ? WHERE id = ?", [.integer(time), .integer(transcript)])
            }
        }
    }

    public func finishTranscript(_ transcript: Int64, endTime: Int64) throws(TranscriptsError) {
        try withDatabase { database throws(SQLiteError) in
            try database.run("UPDATE transcripts SET end_time = ? WHERE id = ?", [.integer(endTime), .integer(transcript)])
        }
    }

    public func endSession(_ session: Int64, endTime: Int64) throws(TranscriptsError) {
        try withDatabase { database throws(SQLiteError) in
            try database.run("UPDATE sessions SET end_time = ? WHERE id = ?", [.integer(endTime), .integer(session)])
        }
    }

    @discardableResult
    public func removeSessions(workItem: String) throws(TranscriptsError) -> Int {
        try withDatabase { database throws(SQLiteError) in
            try database.transaction { () throws(SQLiteError) in
                let rows = "SELECT id FROM sessions WHERE work_item = ?1"
                try database.run("""
                    DELETE FROM utterances WHERE transcript IN (SELECT id FROM transcripts WHERE session_row IN (\(rows)))
                    """, [.text(workItem)])
                try database.run("DELETE FROM transcripts WHERE session_row IN (\(rows))", [.text(workItem)])
                try database.run("DELETE FROM session_participants WHERE session_row IN (\(rows))", [.text(workItem)])
                try database.run("DELETE FROM sessions WHERE work_item = ?1", [.text(workItem)])
                return database.changes
            }
        }
    }

    // MARK: Reading

    public func transcripts(sessionID: String, after: Int64?, limit: Int) throws(TranscriptsError) -> [StoreRow] {
        try withDatabase { database throws(SQLiteError) in
            try Self.rows(database, """
                SELECT \(Self.transcriptColumns)
                FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
                WHERE t.session_id = ? AND t.id > ?
                ORDER BY t.id LIMIT ?
                """, [.text(sessionID), .integer(after ?? Int64.min), .integer(Int64(limit))])
        }
    }

    public func sessions(after: Int64?, limit: Int, transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] {
        try withDatabase { database throws(SQLiteError) in
            if transcribedOnly {
                return try Self.rows(database, """
                    SELECT \(Self.sessionColumns) FROM sessions
                    WHERE has_transcription = 1 AND id > ? ORDER BY id LIMIT ?
                    """, [.integer(after ?? Int64.min), .integer(Int64(limit))])
            }
            return try Self.rows(database, """
                SELECT \(Self.sessionColumns) FROM sessions WHERE id > ? ORDER BY id LIMIT ?
                """, [.integer(after ?? Int64.min), .integer(Int64(limit))])
        }
    }

    public func transcripts(ofSessions sessionKeys: [Int64]) throws(TranscriptsError) -> [StoreRow] {
        if sessionKeys.isEmpty { return [] }
        let keys = JSONWriter.compact(.array(sessionKeys.map { .number(Double($0)) }))
        return try withDatabase { database throws(SQLiteError) in
            try Self.rows(database, """
                SELECT \(Self.transcriptColumns)
                FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
                WHERE t.session_row IN (SELECT value FROM json_each(?))
                ORDER BY t.id
                """, [.text(keys)])
        }
    }

    public func transcript(tid: String) throws(TranscriptsError) -> (row: StoreRow, utterances: [StoredUtterance])? {
        let found: Found? = try withDatabase { database throws(SQLiteError) in
            let rows = try Self.rows(database, """
                SELECT \(Self.transcriptColumns)
                FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
                WHERE t.tid = ?
                """, [.text(tid)])
            guard let row = rows.first else { return nil }
            // A store a writer has not migrated yet (read-only) has no speaker column: its utterances have none.
            let speaker = try database.userVersion >= Self.speakerVersion ? "speaker" : "NULL"
            let statement = try database.prepare("""
                SELECT segment, start, "end", text, confidence, words, language, \(speaker) FROM utterances
                WHERE transcript = ? ORDER BY id
                """)
            defer { statement.reset() }
            try statement.bind([.integer(row.key)])
            var utterances: [StoredUtterance] = []
            while try statement.step() {
                let confidence: Double? = if case .null = statement.value(at: 4) { nil } else { statement.double(at: 4) }
                utterances.append(StoredUtterance(
                    segment: Int(statement.int64(at: 0)), start: statement.double(at: 1), end: statement.double(at: 2),
                    text: statement.string(at: 3) ?? "", confidence: confidence,
                    words: StoredUtterance.words(fromJSON: statement.string(at: 5) ?? "[]"),
                    language: statement.string(at: 6) ?? "", speaker: statement.string(at: 7)))
            }
            return Found(row: row, utterances: utterances)
        }
        return found.map { ($0.row, $0.utterances) }
    }

    // MARK: Reading for one user

    public func isParticipant(_ user: String, sessionID: String) throws(TranscriptsError) -> Bool {
        try withDatabase { database throws(SQLiteError) in
            let statement = try database.prepare("""
                SELECT 1 FROM session_participants p JOIN sessions s ON s.id = p.session_row
                WHERE p.user = ? AND s.session_id = ? LIMIT 1
                """)
            defer { statement.reset() }
            try statement.bind([.text(user), .text(sessionID)])
            return try statement.step()
        }
    }

    public func isParticipant(_ user: String, sessionRow: Int64) throws(TranscriptsError) -> Bool {
        try withDatabase { database throws(SQLiteError) in
            let statement = try database.prepare("SELECT 1 FROM session_participants WHERE session_row = ? AND user = ?")
            defer { statement.reset() }
            try statement.bind([.integer(sessionRow), .text(user)])
            return try statement.step()
        }
    }

    public func transcripts(sessionID: String, participant: String, after: Int64?, offset: Int,
                            limit: Int) throws(TranscriptsError) -> [StoreRow] {
        try withDatabase { database throws(SQLiteError) in
            try Self.rows(database, """
                SELECT \(Self.transcriptColumns)
                FROM transcripts t
                JOIN session_participants p ON p.session_row = t.session_row AND p.user = ?
                LEFT JOIN sessions s ON s.id = t.session_row
                WHERE t.session_id = ? AND t.id > ?
                ORDER BY t.id LIMIT ? OFFSET ?
                """, [.text(participant), .text(sessionID), .integer(after ?? Int64.min), .integer(Int64(limit)),
                      .integer(Int64(max(offset, 0)))])
        }
    }

    public func sessions(participant: String, after: Int64?, offset: Int, limit: Int,
                         transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] {
        try withDatabase { database throws(SQLiteError) in
            try Self.rows(database, """
                SELECT \(Self.sessionColumnsOfS)
                FROM session_participants p JOIN sessions s ON s.id = p.session_row
                WHERE p.user = ? AND s.id > ? AND (? = 0 OR s.has_transcription = 1)
                ORDER BY s.id LIMIT ? OFFSET ?
                """, [.text(participant), .integer(after ?? Int64.min), .integer(transcribedOnly ? 1 : 0),
                      .integer(Int64(limit)), .integer(Int64(max(offset, 0)))])
        }
    }

    private struct Found: Sendable {
        var row: StoreRow
        var utterances: [StoredUtterance]
    }

    /// Runs a query whose first column is the page key and returns its rows by column name.
    private static func rows(_ database: SQLiteDatabase, _ sql: String, _ bindings: [SQLiteValue]) throws(SQLiteError) -> [StoreRow] {
        let statement = try database.prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        let names = (0..<statement.columnCount).map { statement.columnName(at: $0) }
        var rows: [StoreRow] = []
        while try statement.step() {
            var values: [String: StoreValue] = [:]
            for (index, name) in names.enumerated() {
                switch statement.value(at: index) {
                case .null: values[name] = .null
                case .integer(let value): values[name] = .integer(value)
                case .real(let value): values[name] = .real(value)
                case .text(let value): values[name] = .text(value)
                case .blob(let bytes): values[name] = .text(bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
                }
            }
            rows.append(StoreRow(key: statement.int64(at: 0), values: values))
        }
        return rows
    }
}
