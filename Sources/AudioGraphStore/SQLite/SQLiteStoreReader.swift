import CSQLite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening a SQLite store for reading only (`SQLiteTranscriptStore(readingFrom:)`): nothing is created,
/// migrated or written, and a file that is not a store is refused and left exactly as it was.
///
/// - A missing path, an empty file, or a SQLite database without audiograph's tables is `noStore`. A file that
///   is not SQLite at all (no `SQLite format 3` header) is `malformedData`, like a damaged store.
/// - The connection is `SQLITE_OPEN_READONLY` with `query_only`, so a store the reader may not write (another
///   user's, a read-only mount) reads as well as its own.
/// - WAL needs its `-shm` file. When a reader can neither open nor create it (a read-only folder with no
///   writer running, so no `-wal` / `-shm` exist), the store is opened `immutable`: a snapshot of the file,
///   which is all there is to read. Once a `-wal` file appears (a writer started), the next call reopens it
///   as a normal read-only connection that follows the writer. A `-wal` left without a `-shm` in a folder the
///   reader cannot write holds commits only a writer can recover: `storeUnavailable`, never a partial read.
enum SQLiteStoreReader {
    static func openStore(_ path: String) throws(TranscriptsError) -> SQLiteDatabase {
        try checkFile(path)
        let database = try connect(path)
        do {
            try checkSchema(database, path: path)
        } catch {
            database.close()
            throw error
        }
        return database
    }

    /// A normal read-only connection in place of an `immutable` one once a writer has started (a `-wal`
    /// exists); nil to keep the one there is.
    static func reopenIfWritten(_ database: SQLiteDatabase) -> SQLiteDatabase? {
        guard database.isImmutable, walSize(database.path) != nil else { return nil }
        guard let fresh = try? SQLiteDatabase(readOnlyPath: database.path) else { return nil }
        guard (try? fresh.userVersion) != nil else {
            fresh.close()
            return nil
        }
        database.close()
        return fresh
    }

    /// Throws `noStore` when `path` holds another program's SQLite database (tables, schema version 0), before a
    /// writer opens it (opening for writing switches it to WAL). Anything else is left to the writer's own
    /// open to judge.
    static func refuseOtherDatabase(_ path: String) throws(TranscriptsError) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0, (try? checkFile(path)) != nil,
              let database = try? SQLiteDatabase(readOnlyPath: path) else { return }
        defer { database.close() }
        // One statement, so one read transaction: read apart, a writer creating the store could commit between
        // them (version 0 read before its commit, its tables after) and its new store would look foreign.
        guard let row = try? database.query("""
                  SELECT (SELECT user_version FROM pragma_user_version), EXISTS (SELECT 1 FROM sqlite_master)
                  """).first, row.count == 2,
              case .integer(0) = row[0], case .integer(1) = row[1] else { return }
        throw .noStore("\(path) is a SQLite database but not an audiograph transcript store (it has tables of its own; "
            + "left unchanged)")
    }

    /// The path is a regular, non-empty file. Whether it is SQLite at all is SQLite's own first read to say
    /// (`SQLITE_NOTADB`, see `connect`).
    ///
    /// **Never `open()` the file here.** POSIX advisory locks belong to the process, and closing *any*
    /// descriptor of a file drops every lock the process holds on it, SQLite's included (sqlite.org, "How To
    /// Corrupt An SQLite Database File", 2.2). A raw open and close of the database while a connection of this
    /// process had it open (`serve --run`: the API's readers beside the pipeline's writer; a batch's queue
    /// beside its stores) left the process with no lock the kernel knew of; the next other process to close
    /// the database (`audiograph tokens create`, a `sqlite3` query) then took it for the last user, checkpointed
    /// and deleted the `-wal` and `-shm` under the running writer, whose later commits went to a deleted file.
    /// `stat` and `access` take no descriptor.
    private static func checkFile(_ path: String) throws(TranscriptsError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .noStore("nothing at \(path)") }
            throw .storeUnavailable("cannot reach \(path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .noStore("\(path) is not a file") }
        guard info.st_size > 0 else { throw .noStore("\(path) is an empty file, not a transcript store (left unchanged)") }
        guard access(path, R_OK) == 0 else {
            throw .storeUnavailable("cannot read \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// A read-only connection that can read: a normal one, else (no `-shm` can be had and no `-wal` to miss)
    /// an immutable one. A file that is not SQLite at all is `malformedData`, found by SQLite's first read of
    /// its header (nothing is written to it, and no `-wal` or `-shm` is made for it).
    private static func connect(_ path: String) throws(TranscriptsError) -> SQLiteDatabase {
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(readOnlyPath: path)
        } catch {
            throw SQLiteTranscriptStore.translate(error)
        }
        do throws(SQLiteError) {
            _ = try database.userVersion
            return database
        } catch {
            database.close()
            if error.primaryCode == SQLITE_NOTADB { throw notSQLite(path, error) }
            guard error.primaryCode == SQLITE_READONLY || error.primaryCode == SQLITE_CANTOPEN else {
                throw SQLiteTranscriptStore.translate(error)
            }
            if let size = walSize(path), size > 0 {
                throw .storeUnavailable("\(path) has a write-ahead log (\(path)-wal) that only a user who may write its "
                    + "folder can read (\(error.message)); open the store once with write access, or let its writer finish")
            }
        }
        do throws(SQLiteError) {
            let snapshot = try SQLiteDatabase(readOnlyPath: path, immutable: true)
            do throws(SQLiteError) {
                _ = try snapshot.userVersion
            } catch {
                snapshot.close()
                throw error
            }
            return snapshot
        } catch {
            if error.primaryCode == SQLITE_NOTADB { throw notSQLite(path, error) }
            throw SQLiteTranscriptStore.translate(error)
        }
    }

    private static func notSQLite(_ path: String, _ error: SQLiteError) -> TranscriptsError {
        .malformedData("\(path) is not a SQLite database (\(error.message))")
    }

    /// The file holds audiograph's schema at a version this code reads.
    private static func checkSchema(_ database: SQLiteDatabase, path: String) throws(TranscriptsError) {
        let version: Int
        let hasSessions: Bool
        do throws(SQLiteError) {
            // One statement, one read transaction (see `refuseOtherDatabase`).
            let row = try database.query("""
                SELECT (SELECT user_version FROM pragma_user_version),
                       EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions')
                """).first ?? []
            guard row.count == 2, case .integer(let stored) = row[0], case .integer(let exists) = row[1] else {
                throw SQLiteError(code: SQLITE_CORRUPT, message: "\(path): cannot read its schema version")
            }
            version = Int(stored)
            hasSessions = exists == 1
        } catch {
            throw SQLiteTranscriptStore.translate(error)
        }
        guard version > 0, hasSessions else {
            throw .noStore("\(path) is a SQLite database but not an audiograph transcript store (it has no audiograph "
                + "tables; left unchanged)")
        }
        if version > SQLiteTranscriptStore.schemaVersion {
            throw .malformedData("the store's schema version \(version) is newer than this audiograph reads "
                + "(\(SQLiteTranscriptStore.schemaVersion))")
        }
    }

    /// The size of the store's `-wal` file, nil when there is none.
    private static func walSize(_ path: String) -> Int? {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : nil
    }
}
