import Foundation

/// What is at a path, from `stat(2)` (symlinks followed). Finding out never opens the path, so a FIFO with no
/// writer cannot block the caller.
public enum FileKind: Sendable, Equatable {
    case missing
    case regular
    case directory
    case fifo
    case socket
    case characterDevice
    case blockDevice
    /// stat failed for another reason than a missing path (a permission denied on a folder on the way).
    case unknown

    /// The kind of `path`.
    public init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = errno == ENOENT || errno == ENOTDIR ? .missing : .unknown
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .unknown
        }
    }

    /// "a FIFO (named pipe)", "a folder": for "… is <description>, not a regular file".
    public var description: String {
        switch self {
        case .missing: return "missing"
        case .regular: return "a regular file"
        case .directory: return "a folder"
        case .fifo: return "a FIFO (named pipe)"
        case .socket: return "a socket"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .unknown: return "something stat cannot examine"
        }
    }

    /// Throws unless `path` is a regular file: the check an input makes before it is opened, so that a FIFO,
    /// a device or a folder is refused instead of blocking or being read forever. `.missingInput` (exit 66).
    public static func requireRegularFile(_ path: String, at location: String, node: String? = nil) throws(GraphError) {
        let kind = FileKind(path: path)
        switch kind {
        case .regular: return
        case .missing: throw GraphError(.missingInput, at: location, "no such file: \(path)", node: node)
        case .unknown: throw GraphError(.missingInput, at: location, "cannot read \(path)", node: node)
        default:
            throw GraphError(.missingInput, at: location, "\(path) is \(kind.description), not a regular file; "
                + "inputs are read from regular files", node: node)
        }
    }
}
