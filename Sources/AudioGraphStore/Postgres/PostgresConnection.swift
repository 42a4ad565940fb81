import CPostgres
import Foundation

/// A failed libpq call: the SQLSTATE when the server sent one, and libpq's text (with the password, if it
/// ever appeared, replaced by `***`; a URL whose password libpq would misread is refused before libpq sees it).
public struct PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` unique violation, `08006` connection failure, …); nil when libpq
    /// failed before the server answered (connection lost, cannot connect).
    public var sqlState: String?
    public var message: String

    public init(sqlState: String?, message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    /// The server says the data cannot be read: data exceptions (class 22) and corruption (XX001, XX002).
    public var isMalformed: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState == "XX001" || sqlState == "XX002"
    }

    public var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }
}

/// Rows of a query, every value in libpq's text format (nil for SQL NULL), with the columns' names and type
/// OIDs, and for INSERT / UPDATE / DELETE the count of rows they touched.
public struct PostgresRows: Sendable {
    public var columns: [String]
    public var types: [UInt32]
    public var rows: [[String?]]
    public var affected: Int

    /// Column `index` of row `row` as a `StoreValue`: integers (int2/4/8) and reals (float4/8, numeric) by
    /// their type, NULL as `.null`, everything else as text.
    func value(row: Int, column: Int) -> StoreValue {
        guard let text = rows[row][column] else { return .null }
        switch types[column] {
        case 20, 21, 23: return Int64(text).map(StoreValue.integer) ?? .text(text)
        case 700, 701, 1700: return Double(text).map(StoreValue.real) ?? .text(text)
        default: return .text(text)
        }
    }
}

/// One libpq connection.
///
/// **Confinement.** libpq is thread-safe as long as one connection is used by one thread at a time: this class
/// is not `Sendable`; `PostgresTranscriptStore` keeps its connection in a `Mutex`, so its calls are serialized.
///
/// Every query with values goes through `PQexecParams` with text-format parameters (`$1`, `$2`, …): values
/// are never put into SQL text. `executeScript` (`PQexec`, several statements) is for constant SQL only
/// (the schema migrations).
public final class PostgresConnection {
    private var handle: OpaquePointer?
    /// The URL with its password masked, for messages.
    public let redactedURL: String
    private let password: String?
    /// The password as the URL writes it (percent-encoded), also masked in messages.
    private let rawPassword: String?
    /// Session settings run again on every new connection (a reconnect starts a new server session).
    private var sessionSettings: [String] = []

    /// Connects to `url` (`postgres://user:password@host:port/database?options`, or a libpq `key=value`
    /// string). A URL password must percent-encode `@` (as `%40`) and `/` (as `%2F`): libpq ends the user
    /// info at the first of them and would print the rest as a host name, so such a URL is refused here,
    /// before libpq sees it, with a message holding no part of the password.
    public init(url: String) throws(PostgresError) {
        redactedURL = PostgresConnection.redact(url)
        rawPassword = PostgresConnection.rawPassword(in: url)
        password = PostgresConnection.password(in: url)
        if let range = PostgresConnection.passwordRange(in: url), url[range].contains(where: { $0 == "@" || $0 == "/" }) {
            throw PostgresError(sqlState: nil, message: "cannot connect to \(redactedURL): the password in the URL holds "
                + "a '@' or '/' that is not percent-encoded; write '@' as %40 and '/' as %2F")
        }
        guard let connection = PQconnectdb(url) else {
            throw PostgresError(sqlState: nil, message: "cannot connect to \(redactedURL): out of memory")
        }
        if PQstatus(connection) != CONNECTION_OK {
            let message = scrub(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw PostgresError(sqlState: nil, message: "cannot connect to \(redactedURL): \(message)")
        }
        audiograph_pg_silence_notices(connection)
        handle = connection
    }

    deinit { close() }

    /// Closes the connection. Idempotent.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    public var isOpen: Bool { handle != nil }

    private func connection() throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw PostgresError(sqlState: nil, message: "the connection is closed") }
        // A connection the server dropped (restart, network): try once to reconnect before the next call, and
        // set the session up again. A write in flight when it dropped has failed; only reads are run again
        // (`retryingRead`).
        if PQstatus(handle) != CONNECTION_OK {
            PQreset(handle)
            if PQstatus(handle) != CONNECTION_OK {
                throw PostgresError(sqlState: nil, message: "lost the connection to \(redactedURL): "
                    + scrub(String(cString: PQerrorMessage(handle))))
            }
            audiograph_pg_silence_notices(handle)
            for setting in sessionSettings { _ = try rows(of: PQexec(handle, setting)) }
        }
        return handle
    }

    /// Runs constant SQL that sets the session up (`SET SESSION …`), now and after every reconnect.
    public func setSession(_ sql: String) throws(PostgresError) {
        try executeScript(sql)
        sessionSettings.append(sql)
    }

    /// Runs `body`, a read (it runs again, so it must change nothing); when it failed because the server dropped
    /// the connection (a restart, our backend terminated), reconnects and runs it once more. Never inside a
    /// transaction: a dropped connection ended it.
    public func retryingRead<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        do {
            return try body()
        } catch {
            guard let handle, PQstatus(handle) != CONNECTION_OK else { throw error }
            return try body()  // `connection()` reconnects first
        }
    }

    /// Runs one statement with text-format parameters `$1…$n` (nil is SQL NULL) and returns its rows.
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        let connection = try connection()
        // strdup'd copies: their pointers stay valid for the whole call.
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        let result = pointers.withUnsafeBufferPointer { buffer in
            PQexecParams(connection, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        return try rows(of: result)
    }

    /// Runs constant SQL that may hold several statements (no parameters, rows ignored).
    public func executeScript(_ sql: String) throws(PostgresError) {
        let connection = try connection()
        _ = try rows(of: PQexec(connection, sql))
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try executeScript("BEGIN")
        do {
            let result = try body()
            try executeScript("COMMIT")
            return result
        } catch {
            try? executeScript("ROLLBACK")
            throw error
        }
    }

    private func rows(of result: OpaquePointer?) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw PostgresError(sqlState: nil, message: scrub(handle.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY else {
            let state = PQresultErrorField(result, audiograph_pg_diag_sqlstate()).map { String(cString: $0) }
            let message = String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
            throw PostgresError(sqlState: state, message: scrub(message.isEmpty ? "query failed" : message))
        }
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        var rows = PostgresRows(columns: [], types: [], rows: [], affected: 0)
        for column in 0..<columnCount {
            rows.columns.append(String(cString: PQfname(result, column)))
            rows.types.append(PQftype(result, column))
        }
        rows.rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column)))
            }
            rows.rows.append(values)
        }
        rows.affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return rows
    }

    /// Masks the password (as written in the URL and decoded), should libpq ever echo it.
    private func scrub(_ message: String) -> String {
        var text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        for secret in [rawPassword, password].compactMap({ $0 }) where secret.count >= 3 {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }

    // MARK: URLs

    /// Whether `location` is a PostgreSQL URL (`postgres://` or `postgresql://`).
    public static func isURL(_ location: String) -> Bool {
        let lower = location.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    /// The URL with the password of its user-info (`user:password@`) replaced by `***`, and a `password=`
    /// query parameter likewise. The user info ends at the last '@' before the query, so a password holding an
    /// unescaped '@' or '/' is masked whole.
    public static func redact(_ url: String) -> String {
        var text = url
        if let range = passwordRange(in: text) { text.replaceSubrange(range, with: "***") }
        if let range = text.range(of: "password=", options: .caseInsensitive) {
            let end = text[range.upperBound...].firstIndex(where: { $0 == "&" || $0 == " " }) ?? text.endIndex
            text.replaceSubrange(range.upperBound..<end, with: "***")
        }
        return text
    }

    /// The password of a URL's user info: from the first ':' to the last '@' before the query (`?`).
    private static func passwordRange(in url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let beforeQuery = rest[..<(rest.firstIndex(of: "?") ?? rest.endIndex)]
        guard let at = beforeQuery.lastIndex(of: "@"), let colon = beforeQuery[..<at].firstIndex(of: ":") else { return nil }
        return url.index(after: colon)..<at
    }

    /// The password a URL carries (decoded), for scrubbing messages.
    static func password(in url: String) -> String? {
        rawPassword(in: url).map { $0.removingPercentEncoding ?? $0 }
    }

    /// The password a URL carries, as written (percent-encoded), for scrubbing messages.
    static func rawPassword(in url: String) -> String? {
        if let range = passwordRange(in: url) { return String(url[range]) }
        if let range = url.range(of: "password=", options: .caseInsensitive) {
            let end = url[range.upperBound...].firstIndex(where: { $0 == "&" || $0 == " " }) ?? url.endIndex
            return String(url[range.upperBound..<end])
        }
        return nil
    }
}
