/// A store with everything the CLI, the HTTP API and batch workers use: transcripts, access tokens and the
/// work queue. Both backends are one.
public typealias FullTranscriptStore = TranscriptStore & AccessTokenStore & WorkQueue

extension TranscriptStores {
    /// Opens the store at `location`: a `postgres://` or `postgresql://` URL is a `PostgresTranscriptStore`
    /// (libpq connection URL: `postgres://user:password@host:port/database?sslmode=…&options=…`); anything else
    /// is the path of a `SQLiteTranscriptStore`.
    /// - Parameter create: create what is missing (the SQLite file and its folder; the PostgreSQL tables).
    ///   Otherwise a missing SQLite file, or a database without audiograph's tables, is `noStore`. Either way an
    ///   existing store's schema is migrated to the current version. Readers use `openForReading(location:)`.
    public static func open(location: String, create: Bool = true) throws(TranscriptsError) -> any FullTranscriptStore {
        if isDatabaseURL(location) {
            return try PostgresTranscriptStore(url: location, create: create)
        }
        return try SQLiteTranscriptStore(path: location, create: create)
    }

    /// Opens the store at `location` for reading only, as `open(location:create:)` picks the backend: nothing is
    /// created, migrated or written (`SQLiteTranscriptStore(readingFrom:)`, `PostgresTranscriptStore`'s
    /// `readOnly`). A location without a store — nothing there, an empty file, another program's SQLite
    /// database, a PostgreSQL database without audiograph's tables — is `noStore`, and is left unchanged.
    public static func openForReading(location: String) throws(TranscriptsError) -> any FullTranscriptStore {
        if isDatabaseURL(location) {
            return try PostgresTranscriptStore(url: location, create: false, readOnly: true)
        }
        return try SQLiteTranscriptStore(readingFrom: location)
    }

    /// Whether `location` names a database server (a `postgres://` or `postgresql://` URL) rather than a file.
    public static func isDatabaseURL(_ location: String) -> Bool {
        PostgresConnection.isURL(location)
    }

    /// `location` as messages and listings show it: a URL with its password masked (`***`), a path as is.
    public static func describe(location: String) -> String {
        isDatabaseURL(location) ? PostgresConnection.redact(location) : location
    }
}
