import CSQLite
import Foundation

/// A failed SQLite call: the result code (extended) and `sqlite3_errmsg`'s text.
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CORRUPT`, `SQLITE_IOERR_WRITE`, …).
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { code & 0xFF }

    /// The file is not a database, or is damaged.
    public var isMalformed: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    public var description: String { "\(message) (SQLite error \(code))" }
}

/// A value in a SQLite row: one of SQLite's five storage classes.
public enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One SQLite connection.
///
/// **Confinement.** A database and its statements are not thread-safe and not `Sendable`: use them from one
/// thread at a time. `SQLiteTranscriptStore` keeps its connection inside a `Mutex`, so every call it makes is
/// serialized; give each other thread a connection of its own (SQLite in WAL mode lets readers run beside the
/// one writer, across connections and processes).
///
/// Opening sets `journal_mode=WAL` (readers never block the writer; a killed process leaves committed
/// transactions in the WAL, which the next open replays), `synchronous=NORMAL` (no fsync per commit: a power
/// loss may lose the last commits but never corrupts the file; a killed process loses nothing committed),
/// `foreign_keys=ON` and a busy timeout.
public final class SQLiteDatabase {
    public let path: String
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (and with `create`, creates) the database at `path`.
    /// - Parameter busyTimeoutMs: how long a call waits for another connection's lock before `SQLITE_BUSY`.
    public init(path: String, create: Bool = true, busyTimeoutMs: Int32 = 5000) throws(SQLiteError) {
        self.path = path
        isImmutable = false
        handle = try Self.connect(path, flags: SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0),
                                  busyTimeoutMs: busyTimeoutMs)
        try configure(["PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON"])
    }

    /// Opens the database at `path` for reading only: `SQLITE_OPEN_READONLY` (no file is created, and any write
    /// fails), no pragma that writes (the journal mode is left as the file has it), `query_only` on.
    /// - Parameter immutable: open with SQLite's `immutable=1`: no locks and no `-wal` / `-shm` files at all,
    ///   for a file nothing writes (a read-only mount, a folder the reader cannot write with no writer
    ///   running). It does not see a write-ahead log: use it only when there is no `-wal` file.
    public init(readOnlyPath path: String, immutable: Bool = false, busyTimeoutMs: Int32 = 5000) throws(SQLiteError) {
        self.path = path
        isImmutable = immutable
        let uri = "file:" + Self.uriPath(path) + "?mode=ro" + (immutable ? "&immutable=1" : "")
        handle = try Self.connect(uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, busyTimeoutMs: busyTimeoutMs)
        try configure(["PRAGMA query_only=ON"])
    }

    /// `sqlite3_open_v2` with extended result codes and a busy timeout.
    private static func connect(_ filename: String, flags: Int32, busyTimeoutMs: Int32) throws(SQLiteError) -> OpaquePointer {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(filename, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: status, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
        return db
    }

    /// Runs the opening pragmas; closes the connection when one fails.
    private func configure(_ pragmas: [String]) throws(SQLiteError) {
        do {
            for pragma in pragmas { try execute(pragma) }
        } catch {
            close()
            throw error
        }
    }

    /// `path` as the path of a `file:` URI: absolute, with `%`, `?`, `#` and bytes outside printable ASCII
    /// percent-encoded.
    static func uriPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var encoded = ""
        for byte in absolute.utf8 {
            if byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "%"), byte != UInt8(ascii: "?"), byte != UInt8(ascii: "#") {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    deinit { close() }

    public var isOpen: Bool { handle != nil }

    /// Whether this connection was opened `immutable` (see `init(readOnlyPath:immutable:busyTimeoutMs:)`).
    public let isImmutable: Bool

    /// Finalizes every statement and closes the connection. Idempotent.
    public func close() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    private func connection() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed") }
        return handle
    }

    /// The last error on this connection.
    func lastError(_ status: Int32? = nil) -> SQLiteError {
        guard let handle else { return SQLiteError(code: status ?? SQLITE_MISUSE, message: "the database is closed") }
        return SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that take no parameters (rows they return are ignored).
    public func execute(_ sql: String) throws(SQLiteError) {
        let db = try connection()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: sqlite3_extended_errcode(db), message: message)
        }
    }

    /// A prepared statement for `sql`, cached by its text: the same SQL is compiled once per connection.
    /// The statement comes back reset with its bindings cleared.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let db = try connection()
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw lastError(status) }
        let prepared = SQLiteStatement(statement, database: self)
        statements[sql] = prepared
        return prepared
    }

    /// Runs `sql` with `bindings` and returns every row.
    public func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        var rows: [[SQLiteValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return rows
    }

    /// Runs `sql` (an INSERT, UPDATE or DELETE) with `bindings`.
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        while try statement.step() {}
    }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int {
        handle.map { Int(sqlite3_changes($0)) } ?? 0
    }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`, so a writer takes the lock up front instead of failing
    /// with `SQLITE_BUSY` half way): committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `PRAGMA user_version`: the schema version the store keeps.
    public var userVersion: Int {
        get throws(SQLiteError) {
            guard case .integer(let value)? = try query("PRAGMA user_version").first?.first else { return 0 }
            return Int(value)
        }
    }

    public func setUserVersion(_ version: Int) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)")
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound database, else the problems found.
    public func integrityCheck() throws(SQLiteError) -> [String] {
        try query("PRAGMA integrity_check").map { row in
            if case .text(let text)? = row.first { return text }
            return "?"
        }
    }

    /// `PRAGMA journal_mode` (`wal` once opened).
    public func journalMode() throws(SQLiteError) -> String {
        guard case .text(let mode)? = try query("PRAGMA journal_mode").first?.first else { return "" }
        return mode
    }
}

/// A prepared statement of a `SQLiteDatabase`. Same confinement as its database; the database finalizes it.
public final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    /// Resets the statement and clears its bindings.
    public func reset() {
        guard let handle else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1…n.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        for (index, value) in values.enumerated() {
            try bind(value, at: Int32(index + 1))
        }
    }

    /// Binds one value to parameter `index` (1-based). Text and blobs are copied (`SQLITE_TRANSIENT`).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the statement is finalized") }
        let status: Int32
        switch value {
        case .null: status = sqlite3_bind_null(handle, index)
        case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
        case .real(let number): status = sqlite3_bind_double(handle, index, number)
        case .text(let text): status = sqlite3_bind_text(handle, index, text, -1, audiograph_sqlite_transient())
        case .blob(let bytes):
            status = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), audiograph_sqlite_transient())
            }
        }
        if status != SQLITE_OK { throw database.lastError(status) }
    }

    /// Steps once: true when a row is ready, false when done.
    public func step() throws(SQLiteError) -> Bool {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the statement is finalized") }
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        let error = database.lastError(status)
        sqlite3_reset(handle)
        throw error
    }

    public var columnCount: Int { handle.map { Int(sqlite3_column_count($0)) } ?? 0 }

    /// The name of column `index` as the query spells it (its alias when it has one).
    public func columnName(at index: Int) -> String {
        guard let handle, let name = sqlite3_column_name(handle, Int32(index)) else { return "" }
        return String(cString: name)
    }

    /// Column `index` of the current row, in its storage class.
    public func value(at index: Int) -> SQLiteValue {
        guard let handle else { return .null }
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    public func int64(at index: Int) -> Int64 {
        handle.map { sqlite3_column_int64($0, Int32(index)) } ?? 0
    }

    public func double(at index: Int) -> Double {
        handle.map { sqlite3_column_double($0, Int32(index)) } ?? 0
    }

    public func string(at index: Int) -> String? {
        if case .text(let text) = value(at: index) { return text }
        return nil
    }
}
