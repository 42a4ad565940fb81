import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a store makes, made private to their owner: transcripts and token hashes are nobody else's.
enum SQLiteStoreFiles {
    /// Folders the store creates: owner only (the XDG Base Directory rule for data folders).
    static let folderMode: mode_t = 0o700
    /// Files the store creates (the database, and through it SQLite's `-wal` / `-shm`; transcript files).
    static let fileMode: mode_t = 0o600

    /// Makes `folder` (and its missing parents) `0700` when it is missing; an existing folder is left as it is.
    static func createFolder(_ folder: String) throws(TranscriptsError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: Int(folderMode)])
        } catch {
            throw .storeUnavailable("cannot create the folder \(folder)")
        }
    }

    /// Creates the empty database file `0600` (and its folder) when there is none, so that SQLite, which
    /// creates files `0644`, opens a private file and gives its `-wal` and `-shm` the same mode. An existing
    /// file is left alone.
    static func createPrivately(storeAt path: String) throws(TranscriptsError) {
        try createFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        if descriptor >= 0 {
            _ = close(descriptor)
            return
        }
        if errno == EEXIST { return }
        throw .storeUnavailable("cannot create \(path): \(String(cString: strerror(errno)))")
    }
}
