/// A store with everything the CLI, the HTTP API and batch workers use: transcripts, access tokens and the
/// work queue. Both backends are one.
public typealias FullTranscriptStore = TranscriptStore & AccessTokenStore & WorkQueue

extension TranscriptStores {
    /// Opens the store at `location`: a `postgres://` or `postgresql://` URL is a `PostgresTranscriptStore`
    /// (libpq connection URL: `postgres://user:password@host:port/database?sslmode=…&options=…`); anything else
    /// is the path of a `SQLiteTranscriptStore`.
    /// - Parameter create: create what is missing (the SQLite file and its folder; the PostgreSQL tables).
    ///   Otherwise a missing SQLite file, or a database without audiograph's tables, is `storeUnavailable`
    ///   ("no store at …"). Either way an existing store's schema is migrated to the current version.
    public static func open(location: String, create: Bool = true) throws(TranscriptsError) -> any FullTranscriptStore {
        if isDatabaseURL(location) {
            return try PostgresTranscriptStore(url: location, create: create)
        }
        return try SQLiteTranscriptStore(path: location, create: create)
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
