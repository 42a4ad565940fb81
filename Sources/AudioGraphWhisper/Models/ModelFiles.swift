import Foundation

/// File system steps of a model install: folders that must be folders, temporary names beside the target, and
/// renames of synced files (so a reader never sees half a model).
enum ModelFiles {
    /// Makes `path` (and its parents) as a folder, or checks that it is one.
    static func makeFolder(_ path: String) throws(ModelInstallError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw .badFolder(path: path, reason: "is not a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
        } catch {
            throw .badFolder(path: path, reason: "cannot be created (\(Self.reason(error)))")
        }
    }

    /// A new empty folder inside `parent`, named `.tmp-…`.
    static func makeTemporaryFolder(in parent: String) throws(ModelInstallError) -> String {
        var template = Array((parent + "/.tmp-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw .badFolder(path: parent, reason: "cannot make a temporary folder (\(String(cString: strerror(errno))))")
        }
        return String(cString: made)
    }

    /// A name for a temporary file beside `path` (not created).
    static func temporaryName(beside path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        return "\(folder)/.\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Writes `text` to `path` by rename of a synced temporary file.
    static func writeAtomically(_ text: String, to path: String) throws(ModelInstallError) {
        let temporary = temporaryName(beside: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .writeFailed(path: path, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: Data(text.utf8))
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary)
            throw .writeFailed(path: path, reason: reason(error))
        }
        try moveIntoPlace(temporary, path)
    }

    /// Renames `temporary` to `path` and syncs the folder; removes `temporary` if that fails.
    static func moveIntoPlace(_ temporary: String, _ path: String) throws(ModelInstallError) {
        guard rename(temporary, path) == 0 else {
            let message = String(cString: strerror(errno))
            unlink(temporary)
            throw .writeFailed(path: path, reason: message)
        }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Joins `parts` into a new file `output`, block by block.
    static func concatenate(_ parts: [String], into output: String) throws(ModelInstallError) {
        guard FileManager.default.createFile(atPath: output, contents: nil),
              let out = FileHandle(forWritingAtPath: output) else {
            throw .writeFailed(path: output, reason: "cannot be created")
        }
        defer { try? out.close() }
        for part in parts {
            guard let input = FileHandle(forReadingAtPath: part) else {
                throw .corruptModel(.unreadable(path: part, reason: "missing from the wheel"))
            }
            defer { try? input.close() }
            do {
                while let block = try input.read(upToCount: 1 << 22), !block.isEmpty {
                    try out.write(contentsOf: block)
                }
            } catch {
                throw .writeFailed(path: output, reason: reason(error))
            }
        }
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
