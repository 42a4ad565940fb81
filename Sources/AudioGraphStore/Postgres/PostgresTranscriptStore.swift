import AudioGraphCore
import Foundation
import Synchronization

/// The transcript store in a PostgreSQL database (libpq), for transcription spread over several machines:
/// the same tables, rows and page keys as `SQLiteTranscriptStore`, plus the batch `WorkQueue`. Chosen with a
/// `postgres://` (or `postgresql://`) URL: `--store URL`, a `transcript-store` node's `store` parameter, or
/// `TranscriptStores.open(location:create:)`.
///
/// **Schema** (`audiograph_schema.version` is the schema version; `migrations[i]` takes version i to i+1; every
/// open migrates in one transaction holding an advisory lock, so processes opening an empty database at once
/// migrate it once). The tables live in the connection's current schema (the first in `search_path`; set it in
/// the URL with `?options=-csearch_path%3Dname`):
///
/// - `sessions(id BIGSERIAL PRIMARY KEY, session_id, room_name, url, start_time, end_time, has_transcription)`
/// - `transcripts(id BIGSERIAL PRIMARY KEY, tid UNIQUE, session_row → sessions.id, session_id, language,
///   start_time, end_time, transcript_date, transcript_url)`
/// - `utterances(id BIGSERIAL PRIMARY KEY, transcript → transcripts.id, segment, start, "end", text,
///   confidence, words (JSON text), language, speaker)`
/// - `session_participants(session_row → sessions.id, "user")`, `access_tokens(id PRIMARY KEY, "user",
///   secret_hash BYTEA, created, revoked, seq BIGSERIAL)`
/// - `work_items(id BIGSERIAL, key UNIQUE, path, session_id, room, state queued|running|done|failed, attempts,
///   lease_until TIMESTAMPTZ, token, worker, last_error, created_at, updated_at)` — the batch queue; (version 2)
///   `pipeline` and `pipeline_base`: the config text each item runs through and the folder its relative paths
///   are from (NULL for items enqueued before).
/// - (version 3) `work_items.item_tag` (a random id an item gets at its first claim) and `sessions.work_item`:
///   the `item_tag` of the work item whose run wrote the row (NULL for every other run), indexed; a retry
///   removes by it (`removeSessions(workItem:)`), never rows of other runs under the same session id.
///
/// Keys are BIGSERIAL, so they only grow and keyset paging works as with SQLite's rowids. Times are epoch
/// seconds (BIGINT), except the queue's leases, which are the database's own clock (`now()`), so workers on
/// machines with skewed clocks agree on when a lease expired.
///
/// **Threading.** One libpq connection per store, in a `Mutex`: every call is serialized (libpq is safe when
/// a connection is used by one thread at a time), so a store may be shared between threads and tasks. Open one
/// store per worker thread for parallelism; there is no pool. A connection the server dropped is reset before
/// the next call (the call in flight fails with `storeUnavailable`).
///
/// **Errors.** Cannot connect, connection lost, constraint violations, lock timeouts: `storeUnavailable`; data
/// the server cannot read, or a schema newer than this version: `malformedData`. Messages name the URL with
/// its password masked.
public final class PostgresTranscriptStore: TranscriptStore {
    /// The schema version this code writes.
    public static var schemaVersion: Int { migrations.count }

    /// The advisory lock key migrations hold (`pg_advisory_xact_lock`): any constant shared by every process.
    static let migrationLock: Int64 = 0x6175_6469_6F67_7270  // "audiogrp"

    /// Schema migrations: `migrations[i]` upgrades version i to i + 1.
    /// The schema version that added `utterances.speaker`.
    static let speakerVersion = 4

    static let migrations: [String] = [
        """
        CREATE TABLE sessions (
            id BIGSERIAL PRIMARY KEY,
            session_id TEXT NOT NULL,
            room_name TEXT,
            url TEXT,
            start_time BIGINT,
            end_time BIGINT,
            has_transcription INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX sessions_by_session_id ON sessions(session_id);
        CREATE INDEX sessions_transcribed ON sessions(has_transcription, id);
        CREATE TABLE transcripts (
            id BIGSERIAL PRIMARY KEY,
            tid TEXT NOT NULL UNIQUE,
            session_row BIGINT REFERENCES sessions(id),
            session_id TEXT NOT NULL,
            language TEXT,
            start_time BIGINT,
            end_time BIGINT,
            transcript_date TEXT,
            transcript_url TEXT
        );
        CREATE INDEX transcripts_by_session ON transcripts(session_id, id);
        CREATE INDEX transcripts_by_session_row ON transcripts(session_row, id);
        CREATE TABLE utterances (
            id BIGSERIAL PRIMARY KEY,
            transcript BIGINT NOT NULL REFERENCES transcripts(id),
            segment INTEGER NOT NULL,
            start DOUBLE PRECISION NOT NULL,
            "end" DOUBLE PRECISION NOT NULL,
            text TEXT NOT NULL,
            confidence DOUBLE PRECISION,
            words TEXT NOT NULL DEFAULT '[]',
            language TEXT
        );
        CREATE INDEX utterances_by_transcript ON utterances(transcript, id);
        CREATE TABLE session_participants (
            session_row BIGINT NOT NULL REFERENCES sessions(id),
            "user" TEXT NOT NULL,
            PRIMARY KEY (session_row, "user")
        );
        CREATE INDEX participants_by_user ON session_participants("user", session_row);
        CREATE TABLE access_tokens (
            id TEXT PRIMARY KEY,
            "user" TEXT NOT NULL,
            secret_hash BYTEA NOT NULL,
            created BIGINT NOT NULL,
            revoked BIGINT,
            seq BIGSERIAL
        );
        CREATE INDEX access_tokens_by_user ON access_tokens("user");
        CREATE TABLE work_items (
            id BIGSERIAL PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL,
            session_id TEXT,
            room TEXT,
            state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            lease_until TIMESTAMPTZ,
            token TEXT,
            worker TEXT,
            last_error TEXT,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
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

    static let transcriptColumns = """
        t.id AS id, t.tid AS tid, t.session_row AS session_row, t.session_id AS session_id, \
        s.room_name AS room_name, s.url AS url, t.language AS language, t.start_time AS start_time, \
        t.end_time AS end_time, t.transcript_date AS transcript_date, t.transcript_url AS transcript_url
        """
    static let sessionColumnsOfS = """
        s.id AS id, s.session_id AS session_id, s.room_name AS room_name, s.url AS url, s.start_time AS start_time, \
        s.end_time AS end_time, s.has_transcription AS has_transcription
        """

    /// The URL with its password masked (for messages and listings).
    public let location: String
    private let state: Mutex<PostgresConnection?>

    /// Connects to `url` and migrates the schema to the current version.
    /// - Parameters:
    ///   - create: create the tables when the database has none; otherwise an empty database (no
    ///     `audiograph_schema` table) is `noStore`, like a missing SQLite file.
    ///   - readOnly: read only (what `calls`, `transcripts`, `serve` and `batch status` use): the session's
    ///     transactions are `READ ONLY`, nothing is created or migrated (`create` is ignored), and a database
    ///     without audiograph's tables is `noStore`. An older schema is read as it is.
    public init(url: String, create: Bool = true, readOnly: Bool = false) throws(TranscriptsError) {
        location = PostgresConnection.redact(url)
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(url: url)
        } catch {
            throw Self.translate(error)
        }
        do {
            if readOnly {
                try Self.checkReadable(connection, location: location)
            } else {
                try Self.migrate(connection, create: create, location: location)
            }
        } catch {
            connection.close()
            throw error
        }
        state = Mutex(connection)
    }

    deinit { close() }

    /// Makes the session read-only and checks that the database holds a store this code reads.
    static func checkReadable(_ connection: PostgresConnection, location: String) throws(TranscriptsError) {
        do throws(PostgresError) {
            try connection.setSession("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        } catch {
            throw translate(error)
        }
        let version = try schemaVersion(connection, location: location)
        if version > migrations.count {
            throw .malformedData("the store's schema version \(version) is newer than this audiograph reads (\(migrations.count))")
        }
    }

    /// The version in `audiograph_schema`; `noStore` when the database has no such table.
    private static func schemaVersion(_ connection: PostgresConnection, location: String) throws(TranscriptsError) -> Int {
        let exists: Bool
        do throws(PostgresError) {
            exists = try connection.query("SELECT to_regclass('audiograph_schema') IS NOT NULL").rows.first?.first == "t"
        } catch {
            throw translate(error)
        }
        guard exists else { throw .noStore("\(location) has no audiograph tables (left unchanged)") }
        do throws(PostgresError) {
            return Int(try connection.query("SELECT version FROM audiograph_schema").rows.first?.first.flatMap { $0 } ?? "0") ?? 0
        } catch {
            throw translate(error)
        }
    }

    static func migrate(_ connection: PostgresConnection, create: Bool, location: String) throws(TranscriptsError) {
        // Without `create`, a database without the tables is `noStore` (checked before any lock is taken).
        if !create { _ = try schemaVersion(connection, location: location) }
        do {
            try connection.transaction { () throws(PostgresError) in
                // Serializes every migrating process; released at COMMIT / ROLLBACK.
                try connection.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(migrationLock)])
                let exists = try connection.query("SELECT to_regclass('audiograph_schema') IS NOT NULL")
                var version = 0
                if exists.rows.first?.first == "t" {
                    let text = try connection.query("SELECT version FROM audiograph_schema").rows.first?.first ?? nil
                    version = Int(text ?? "0") ?? 0
                } else if !create {
                    throw PostgresError(sqlState: nil, message: "no store at \(location)")
                } else {
                    try connection.executeScript("CREATE TABLE audiograph_schema (version INTEGER NOT NULL)")
                    try connection.query("INSERT INTO audiograph_schema (version) VALUES (0)")
                }
                if version > migrations.count {
                    throw PostgresError(sqlState: "XX001", message: "the store's schema version \(version) is newer than "
                        + "this audiograph reads (\(migrations.count))")
                }
                for index in version..<migrations.count {
                    try connection.executeScript(migrations[index])
                }
                if version < migrations.count {
                    try connection.query("UPDATE audiograph_schema SET version = $1::int", [String(migrations.count)])
                }
            }
        } catch {
            throw translate(error)
        }
    }

    static func translate(_ error: PostgresError) -> TranscriptsError {
        error.isMalformed ? .malformedData(error.message) : .storeUnavailable(error.message)
    }

    /// Runs `body` on the connection, serialized; libpq errors become `TranscriptsError`s.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(TranscriptsError) -> T {
        let result: Result<T, TranscriptsError> = state.withLock { connection in
            guard let connection else { return .failure(.storeNotOpened) }
            do throws(PostgresError) {
                return .success(try body(connection))
            } catch {
                return .failure(Self.translate(error))
            }
        }
        return try result.get()
    }

    /// Runs `body`, reads only, on the connection; when the server dropped the connection (a restart), it
    /// reconnects and runs `body` once more (`PostgresConnection.retryingRead`), so the first read after a
    /// restart is answered.
    func reading<T: Sendable>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(TranscriptsError) -> T {
        try withConnection { connection throws(PostgresError) in
            try connection.retryingRead { () throws(PostgresError) in try body(connection) }
        }
    }

    /// Runs `body` in a transaction on the connection.
    func inTransaction<T: Sendable>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(TranscriptsError) -> T {
        try withConnection { connection throws(PostgresError) in
            try connection.transaction { () throws(PostgresError) in try body(connection) }
        }
    }

    public func close() {
        state.withLock { connection in
            connection?.close()
            connection = nil
        }
    }

    /// The schema version the database holds.
    public func storedSchemaVersion() throws(TranscriptsError) -> Int {
        try reading { connection throws(PostgresError) in
            Int(try connection.query("SELECT version FROM audiograph_schema").rows.first?.first.flatMap { $0 } ?? "0") ?? 0
        }
    }

    /// Runs one statement with text parameters on the store's connection (serialized). For tests and tools.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws(TranscriptsError) -> PostgresRows {
        try withConnection { connection throws(PostgresError) in try connection.query(sql, parameters) }
    }

    // MARK: Parameters

    static func text(_ value: Int64) -> String { String(value) }
    static func text(_ value: Int) -> String { String(value) }
    /// float8 input text (`Infinity` / `NaN` spelled as PostgreSQL reads them).
    static func text(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "Infinity" : "-Infinity" }
        return "\(value)"
    }

    // MARK: Writing

    public func createSession(_ session: NewSession) throws(TranscriptsError) -> Int64 {
        try inTransaction { connection throws(PostgresError) in
            let rows = try connection.query("""
                INSERT INTO sessions (session_id, room_name, url, start_time, end_time, has_transcription, work_item)
                VALUES ($1, $2, $3, $4::bigint, 0, 0, $5) RETURNING id
                """, [session.sessionID, session.roomName, session.url, Self.text(session.startTime), session.workItem])
            guard let key = rows.rows.first?.first.flatMap({ $0 }).flatMap({ Int64($0) }) else {
                throw PostgresError(sqlState: nil, message: "INSERT returned no key")
            }
            for user in Set(session.participants).sorted() {
                try connection.query("INSERT INTO session_participants (session_row, \"user\") VALUES ($1::bigint, $2)",
                                     [Self.text(key), user])
            }
            return key
        }
    }

    public func beginTranscript(_ transcript: NewTranscript) throws(TranscriptsError) -> Int64 {
        try inTransaction { connection throws(PostgresError) in
            let rows = try connection.query("""
                INSERT INTO transcripts (tid, session_row, session_id, language, start_time, end_time, transcript_date,
                                         transcript_url)
                VALUES ($1, $2::bigint, $3, $4, $5::bigint, $5::bigint, $6, $7) RETURNING id
                """, [transcript.tid, Self.text(transcript.sessionKey), transcript.sessionID, transcript.language,
                      Self.text(transcript.startTime), transcript.transcriptDate, transcript.transcriptURL])
            guard let key = rows.rows.first?.first.flatMap({ $0 }).flatMap({ Int64($0) }) else {
                throw PostgresError(sqlState: nil, message: "INSERT returned no key")
            }
            try connection.query("UPDATE sessions SET has_transcription = 1 WHERE id = $1::bigint",
                                 [Self.text(transcript.sessionKey)])
            return key
        }
    }

    public func appendUtterance(_ utterance: StoredUtterance, transcript: Int64, time: Int64) throws(TranscriptsError) {
        try inTransaction { connection throws(PostgresError) in
            try connection.query("""
                INSERT INTO utterances (transcript, segment, start, "end", text, confidence, words, language, speaker)
                VALUES ($1::bigint, $2::int, $3::float8, $4::float8, $5, $6::float8, $7, $8, $9)
                """, [Self.text(transcript), Self.text(utterance.segment), Self.text(utterance.start),
                      Self.text(utterance.end), utterance.text, utterance.confidence.map { Self.text($0) },
                      JSONWriter.compact(utterance.wordsJSON), utterance.language, utterance.speaker])
            try connection.query("UPDATE transcripts SET end_time = $1::bigint WHERE id = $2::bigint",
                                 [Self.text(time), Self.text(transcript)])
        }
    }

    public func finishTranscript(_ transcript: Int64, endTime: Int64) throws(TranscriptsError) {
        try withConnection { connection throws(PostgresError) in
            _ = try connection.query("UPDATE transcripts SET end_time = $1::bigint WHERE id = $2::bigint",
                                 [Self.text(endTime), Self.text(transcript)])
        }
    }

    public func endSession(_ session: Int64, endTime: Int64) throws(TranscriptsError) {
        try withConnection { connection throws(PostgresError) in
            _ = try connection.query("UPDATE sessions SET end_time = $1::bigint WHERE id = $2::bigint",
                                 [Self.text(endTime), Self.text(session)])
        }
    }

    @discardableResult
    public func removeSessions(workItem: String) throws(TranscriptsError) -> Int {
        try inTransaction { connection throws(PostgresError) in
            let rows = "SELECT id FROM sessions WHERE work_item = $1"
            try connection.query("""
                DELETE FROM utterances WHERE transcript IN (SELECT id FROM transcripts WHERE session_row IN (\(rows)))
                """, [workItem])
            try connection.query("DELETE FROM transcripts WHERE session_row IN (\(rows))", [workItem])
            try connection.query("DELETE FROM session_participants WHERE session_row IN (\(rows))", [workItem])
            return try connection.query("DELETE FROM sessions WHERE work_item = $1", [workItem]).affected
        }
    }

    // MARK: Reading

    public func transcripts(sessionID: String, after: Int64?, limit: Int) throws(TranscriptsError) -> [StoreRow] {
        try rows("""
            SELECT \(Self.transcriptColumns)
            FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
            WHERE t.session_id = $1 AND t.id > $2::bigint
            ORDER BY t.id LIMIT $3::bigint
            """, [sessionID, Self.text(after ?? Int64.min), Self.text(limit)])
    }

    public func sessions(after: Int64?, limit: Int, transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] {
        try rows("""
            SELECT \(Self.sessionColumnsOfS) FROM sessions s
            WHERE s.id > $1::bigint AND ($2::int = 0 OR s.has_transcription = 1)
            ORDER BY s.id LIMIT $3::bigint
            """, [Self.text(after ?? Int64.min), transcribedOnly ? "1" : "0", Self.text(limit)])
    }

    public func transcripts(ofSessions sessionKeys: [Int64]) throws(TranscriptsError) -> [StoreRow] {
        if sessionKeys.isEmpty { return [] }
        return try rows("""
            SELECT \(Self.transcriptColumns)
            FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
            WHERE t.session_row = ANY($1::bigint[])
            ORDER BY t.id
            """, ["{" + sessionKeys.map(String.init).joined(separator: ",") + "}"])
    }

    public func transcript(tid: String) throws(TranscriptsError) -> (row: StoreRow, utterances: [StoredUtterance])? {
        let found: Found? = try reading { connection throws(PostgresError) in
            let rows = try Self.storeRows(try connection.query("""
                SELECT \(Self.transcriptColumns)
                FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
                WHERE t.tid = $1
                """, [tid]))
            guard let row = rows.first else { return nil }
            // A database a writer has not migrated yet (read-only) has no speaker column: its utterances have none.
            let version = Int(try connection.query("SELECT version FROM audiograph_schema").rows.first?.first.flatMap { $0 } ?? "0") ?? 0
            let speaker = version >= Self.speakerVersion ? "speaker" : "NULL"
            let result = try connection.query("""
                SELECT segment, start, "end", text, confidence, words, language, \(speaker) FROM utterances
                WHERE transcript = $1::bigint ORDER BY id
                """, [Self.text(row.key)])
            let utterances = result.rows.map { values in
                StoredUtterance(
                    segment: Int(values[0] ?? "") ?? 0, start: Double(values[1] ?? "") ?? 0, end: Double(values[2] ?? "") ?? 0,
                    text: values[3] ?? "", confidence: values[4].flatMap { Double($0) },
                    words: StoredUtterance.words(fromJSON: values[5] ?? "[]"), language: values[6] ?? "",
                    speaker: values.count > 7 ? values[7] : nil)
            }
            return Found(row: row, utterances: utterances)
        }
        return found.map { ($0.row, $0.utterances) }
    }

    // MARK: Reading for one user

    public func isParticipant(_ user: String, sessionID: String) throws(TranscriptsError) -> Bool {
        try reading { connection throws(PostgresError) in
            try !connection.query("""
                SELECT 1 FROM session_participants p JOIN sessions s ON s.id = p.session_row
                WHERE p."user" = $1 AND s.session_id = $2 LIMIT 1
                """, [user, sessionID]).rows.isEmpty
        }
    }

    public func isParticipant(_ user: String, sessionRow: Int64) throws(TranscriptsError) -> Bool {
        try reading { connection throws(PostgresError) in
            try !connection.query("""
                SELECT 1 FROM session_participants WHERE session_row = $1::bigint AND "user" = $2
                """, [Self.text(sessionRow), user]).rows.isEmpty
        }
    }

    public func transcripts(sessionID: String, participant: String, after: Int64?, offset: Int,
                            limit: Int) throws(TranscriptsError) -> [StoreRow] {
        try rows("""
            SELECT \(Self.transcriptColumns)
            FROM transcripts t
            JOIN session_participants p ON p.session_row = t.session_row AND p."user" = $1
            LEFT JOIN sessions s ON s.id = t.session_row
            WHERE t.session_id = $2 AND t.id > $3::bigint
            ORDER BY t.id LIMIT $4::bigint OFFSET $5::bigint
            """, [participant, sessionID, Self.text(after ?? Int64.min), Self.text(limit), Self.text(max(offset, 0))])
    }

    public func sessions(participant: String, after: Int64?, offset: Int, limit: Int,
                         transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] {
        try rows("""
            SELECT \(Self.sessionColumnsOfS)
            FROM session_participants p JOIN sessions s ON s.id = p.session_row
            WHERE p."user" = $1 AND s.id > $2::bigint AND ($3::int = 0 OR s.has_transcription = 1)
            ORDER BY s.id LIMIT $4::bigint OFFSET $5::bigint
            """, [participant, Self.text(after ?? Int64.min), transcribedOnly ? "1" : "0", Self.text(limit),
                  Self.text(max(offset, 0))])
    }

    private struct Found: Sendable {
        var row: StoreRow
        var utterances: [StoredUtterance]
    }

    private func rows(_ sql: String, _ parameters: [String?]) throws(TranscriptsError) -> [StoreRow] {
        try reading { connection throws(PostgresError) in try Self.storeRows(try connection.query(sql, parameters)) }
    }

    /// Rows whose first column is the page key, by column name.
    private static func storeRows(_ result: PostgresRows) throws(PostgresError) -> [StoreRow] {
        var rows: [StoreRow] = []
        rows.reserveCapacity(result.rows.count)
        for index in result.rows.indices {
            var values: [String: StoreValue] = [:]
            for (column, name) in result.columns.enumerated() {
                values[name] = result.value(row: index, column: column)
            }
            guard case .integer(let key)? = values[result.columns.first ?? ""] else {
                throw PostgresError(sqlState: "22000", message: "a row without an integer key")
            }
            rows.append(StoreRow(key: key, values: values))
        }
        return rows
    }
}
