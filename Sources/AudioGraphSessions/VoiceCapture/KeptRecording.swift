import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a voice capture keeps its recording (`Configuration.keepRecording`, `capture --keep`): checked before
/// recording starts, and written by an atomic rename, so nothing but a regular file is ever replaced.
///
/// - A path that does not exist is created (its folder must exist).
/// - An existing regular file is replaced only by renaming a file written beside it over it: until the rename
///   the old file is whole, after it the new one is; a symbolic link to a regular file keeps the link and
///   replaces the file it points to.
/// - Anything else that exists — a folder, a device, a FIFO, a socket, a link to one of them or to nothing —
///   is refused (`VoiceCaptureError.cannotKeepRecording`) and left untouched.
enum KeptRecording {
    /// The file to write for `url`: itself, or the regular file a symbolic link at `url` resolves to.
    static func target(_ url: URL) throws(VoiceCaptureError) -> URL {
        let path = url.path
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw refusal(path, "cannot be examined (\(String(cString: strerror(errno))))") }
            let folder = url.deletingLastPathComponent().path
            var folderInfo = stat()
            guard stat(folder, &folderInfo) == 0, folderInfo.st_mode & S_IFMT == S_IFDIR else {
                throw refusal(path, "cannot be created: its folder \(folder) does not exist")
            }
            return url
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return url
        case S_IFLNK:
            guard let resolved = realpath(path, nil) else { throw refusal(path, "is a symbolic link to nothing") }
            defer { free(resolved) }
            let target = String(cString: resolved)
            var targetInfo = stat()
            guard stat(target, &targetInfo) == 0, targetInfo.st_mode & S_IFMT == S_IFREG else {
                throw refusal(path, "is a symbolic link to \(target), which " + describe(targetInfo.st_mode))
            }
            return URL(fileURLWithPath: target)
        default:
            throw refusal(path, describe(info.st_mode))
        }
    }

    /// Copies `recording` to a new file beside `target`, syncs it and renames it over `target` (checked again
    /// just before: still missing or a regular file). The new file is removed when any step fails
    /// (`recordingFailed`; `cannotKeepRecording` when `target` became something else than a regular file).
    static func place(_ recording: URL, at target: URL) throws(VoiceCaptureError) {
        let folder = target.deletingLastPathComponent().path
        let partial = URL(fileURLWithPath: folder)
            .appendingPathComponent(".\(target.lastPathComponent).\(UUID().uuidString.prefix(8)).part").path
        var existing = stat()
        let replacing = lstat(target.path, &existing) == 0
        let output = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                          replacing ? existing.st_mode & 0o7777 : 0o666)
        guard output >= 0 else { throw failure(target.path, "cannot create \(partial)") }
        var renamed = false
        defer {
            if !renamed { unlink(partial) }
        }
        do {
            defer { close(output) }
            try copy(recording.path, to: output, naming: partial)
            guard fsync(output) == 0 else { throw failure(target.path, "cannot sync \(partial)") }
        }
        var now = stat()
        if lstat(target.path, &now) == 0, now.st_mode & S_IFMT != S_IFREG {
            throw refusal(target.path, describe(now.st_mode) + " now (it changed while recording)")
        }
        guard rename(partial, target.path) == 0 else { throw failure(target.path, "cannot rename \(partial) to it") }
        renamed = true
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    private static func copy(_ source: String, to output: Int32, naming partial: String) throws(VoiceCaptureError) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw failure(partial, "cannot read the recording \(source)") }
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count == 0 { return }
            guard count > 0 else { throw failure(partial, "cannot read the recording \(source)") }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                guard step > 0 else { throw failure(partial, "cannot write") }
                written += step
            }
        }
    }

    /// "is a folder", "is a character device", … for a `stat` mode.
    static func describe(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "is a folder"
        case S_IFCHR: return "is a character device"
        case S_IFBLK: return "is a block device"
        case S_IFIFO: return "is a FIFO"
        case S_IFSOCK: return "is a socket"
        case S_IFLNK: return "is a symbolic link"
        case S_IFREG: return "is a regular file"
        default: return "is not a regular file"
        }
    }

    private static func refusal(_ path: String, _ what: String) -> VoiceCaptureError {
        .cannotKeepRecording("\(path) \(what); give the path of a regular file (or of one to create)")
    }

    private static func failure(_ path: String, _ what: String) -> VoiceCaptureError {
        .recordingFailed("cannot keep the recording at \(path): \(what): \(String(cString: strerror(errno)))")
    }
}
