import Foundation

/// A path as the file system sees it, for telling whether two paths name one file: symlinks followed, `.` and
/// `..` applied, and for a path that does not exist yet, its nearest existing folder resolved and the rest
/// appended (a dangling symlink resolves to where it points, which a writer would create).
public struct ResolvedPath: Sendable, Hashable, CustomStringConvertible {
    /// The absolute, resolved path.
    public let path: String
    /// The file's device and inode when it exists, so that two hard links to one file are one file too.
    let identity: FileIdentity?

    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Resolves `path` (absolute, or relative to the working folder).
    public init(_ path: String) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        self.path = Self.resolve(absolute, depth: 0)
        var info = stat()
        identity = stat(self.path, &info) == 0
            ? FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
    }

    public var description: String { path }

    /// Equal when both name one existing file (same device and inode), or when neither exists and the resolved
    /// paths are the same.
    public static func == (a: ResolvedPath, b: ResolvedPath) -> Bool {
        if let x = a.identity, let y = b.identity { return x == y }
        return a.identity == nil && b.identity == nil && a.path == b.path
    }

    public func hash(into hasher: inout Hasher) {
        if let identity { hasher.combine(identity) } else { hasher.combine(path) }
    }

    private static func resolve(_ path: String, depth: Int) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        guard depth < 40 else { return path }  // a symlink loop: as good as it gets
        // Does not exist (yet): resolve the folder, then the last component on top of it.
        var components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = components.popLast() else { return "/" }
        let parent = resolve("/" + components.joined(separator: "/"), depth: depth + 1)
        switch last {
        case ".": return parent
        case "..": return parent == "/" ? "/" : String(parent[..<(parent.lastIndex(of: "/") ?? parent.startIndex)]).nonEmpty
        default:
            let joined = parent == "/" ? "/" + last : parent + "/" + last
            // A dangling symlink: a writer would create its target.
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: joined) {
                return resolve(target.hasPrefix("/") ? target : parent + "/" + target, depth: depth + 1)
            }
            return joined
        }
    }
}

private extension String {
    var nonEmpty: String { isEmpty ? "/" : self }
}
