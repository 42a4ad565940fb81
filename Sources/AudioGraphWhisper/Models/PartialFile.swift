import Foundation
import Glibc

/// A file written under a temporary name beside its destination (`.NAME.partial-PID-RANDOM`, in the same folder
/// so the rename is atomic) and renamed into place only once complete and synced: a reader never sees half a
/// model, and a failed or killed write leaves nothing at the destination. The writer holds an exclusive `flock`
/// on it, so a later write beside the same destination knows a leftover of a killed run (unlocked, its process
/// gone) from one being written, and removes it. Dropped without `commit`, the file is removed.
///
/// Confinement: one thread at a time (whoever writes the model).
final class PartialFile {
    /// Where the file goes once complete.
    let destination: String
    /// The temporary file.
    let path: String
    private var descriptor: Int32
    private var committed = false

    /// The marker between a destination's name and a temporary file's suffix.
    static let marker = ".partial-"

    /// Creates the temporary file beside `destination` (mode 0644 less the umask), after removing leftovers of
    /// killed runs beside it.
    convenience init(beside destination: String) throws(ModelConversionError) {
        Self.removeLeftovers(beside: destination)
        let prefix = Self.prefix(beside: destination)
        var descriptor: Int32 = -1
        var path = ""
        repeat {
            path = prefix + "\(getpid())-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        } while descriptor < 0 && errno == EEXIST
        guard descriptor >= 0 else {
            throw .writeFailed(path: destination, reason: Self.reason(errno, writing: destination))
        }
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        self.init(descriptor: descriptor, path: path, destination: destination)
    }

    /// A file already open for writing as `descriptor` (tests: a link to `/dev/full` made in a temporary folder).
    init(descriptor: Int32, path: String, destination: String) {
        self.descriptor = descriptor
        self.path = path
        self.destination = destination
    }

    deinit {
        if !committed { discard() }
    }

    /// Writes all of `bytes`; a failure names the destination and why (a full disk as such).
    func write(_ bytes: UnsafeRawBufferPointer) throws(ModelConversionError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .writeFailed(path: destination, reason: Self.reason(errno, writing: destination))
            }
            offset += written
        }
    }

    /// Writes all of `data`.
    func write(_ data: Data) throws(ModelConversionError) {
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out.
        let outcome = data.withUnsafeBytes { bytes in Result { () throws(ModelConversionError) in try write(bytes) } }
        try outcome.get()
    }

    /// Appends the bytes of the file at `source`, block by block (`unreadable` naming it when it cannot be read).
    func append(contentsOf source: String) throws(ModelConversionError) {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw .unreadable(path: source, reason: FileManager.default.fileExists(atPath: source) ? "permission denied" : "no such file")
        }
        defer { try? input.close() }
        while true {
            let block: Data
            do {
                block = try input.read(upToCount: 1 << 22) ?? Data()
            } catch {
                throw .unreadable(path: source, reason: ModelFiles.reason(error))
            }
            if block.isEmpty { return }
            try write(block)
        }
    }

    /// Flushes the file to disk (a full disk may only show here).
    func sync() throws(ModelConversionError) {
        guard fsync(descriptor) == 0 else {
            throw .writeFailed(path: destination, reason: Self.reason(errno, writing: destination))
        }
    }

    /// Syncs, closes and renames the file to the destination, then syncs the folder. `replacing` false: a
    /// destination that appeared meanwhile is kept (`outputExists`). On failure the temporary file is removed.
    func commit(replacing: Bool) throws(ModelConversionError) {
        do throws(ModelConversionError) {
            try sync()
            close(descriptor)
            descriptor = -1
            try moveIntoPlace(replacing: replacing)
        } catch {
            discard()
            throw error
        }
        committed = true
        let folder = open((destination as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    private func moveIntoPlace(replacing: Bool) throws(ModelConversionError) {
        if replacing {
            guard rename(path, destination) == 0 else {
                throw .writeFailed(path: destination, reason: Self.reason(errno, writing: destination))
            }
            return
        }
        // link(2) never replaces; on a file system without hard links, rename after a last check.
        if link(path, destination) == 0 {
            unlink(path)
        } else if errno == EEXIST || access(destination, F_OK) == 0 {
            throw .outputExists(path: destination)
        } else if rename(path, destination) != 0 {
            throw .writeFailed(path: destination, reason: Self.reason(errno, writing: destination))
        }
    }

    /// Closes and removes the temporary file.
    func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }

    /// `.NAME.partial-` in the destination's folder.
    static func prefix(beside destination: String) -> String {
        let folder = (destination as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "" : folder + "/") + "." + (destination as NSString).lastPathComponent + marker
    }

    /// Removes the temporary files of killed writes beside `destination`: named as ours, not locked, and their
    /// process (the PID in the name) gone. One being written (locked, or its writer alive) is left alone.
    static func removeLeftovers(beside destination: String) {
        let prefix = Self.prefix(beside: destination)
        let folder = (prefix as NSString).deletingLastPathComponent
        let start = (prefix as NSString).lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        for name in names where name.hasPrefix(start) {
            guard let pid = Int32(name.dropFirst(start.count).prefix { $0 != "-" }), pid > 0,
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = (folder.isEmpty ? "" : folder + "/") + name
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var status = stat()
            guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                  flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            unlink(path)
        }
    }

    /// Why writing beside `destination` failed (`ModelFiles.reason(errno:folder:)`).
    static func reason(_ code: Int32, writing destination: String) -> String {
        ModelFiles.reason(errno: code, folder: (destination as NSString).deletingLastPathComponent)
    }
}
