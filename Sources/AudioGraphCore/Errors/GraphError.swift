/// Every failure audiograph reports: what went wrong, where (a JSON path, a node id or a file), and how to fix it.
///
/// Errors are data, like swift-service-lifecycle's `ServiceGroupError` and GStreamer's element errors: the
/// `code` is stable and maps to a process exit status; `location` says where; `message` is for people.
public struct GraphError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is. Each maps to one sysexits(3) status.
    public enum Code: String, Sendable, CaseIterable {
        /// The command line was wrong (exit 64).
        case usage
        /// The config or the data in it is wrong (exit 65).
        case invalidConfig
        /// An input file does not exist or cannot be read (exit 66).
        case missingInput
        /// A device, server, model or plugin the graph needs is not available (exit 69).
        case unavailable
        /// A node failed while the graph ran (exit 70).
        case nodeFailed
        /// An output file could not be created (exit 73).
        case cannotCreateOutput
        /// Reading or writing failed part way (exit 74).
        case io
        /// A server refused the credentials given (a token it does not take: exit 77, sysexits' EX_NOPERM).
        case permissionDenied
        /// The run was interrupted (SIGINT) after every output was finalized (exit 130).
        case interrupted

        /// The process exit status for this code (sysexits.h).
        public var exitCode: Int32 {
            switch self {
            case .usage: return 64
            case .invalidConfig: return 65
            case .missingInput: return 66
            case .unavailable: return 69
            case .nodeFailed: return 70
            case .cannotCreateOutput: return 73
            case .io: return 74
            case .permissionDenied: return 77
            case .interrupted: return 130
            }
        }
    }

    public var code: Code
    /// Where: a JSON path such as `nodes.rs.sampleRate`, a node id such as `node rec`, or a file path.
    public var location: String
    /// What went wrong, and when possible how to fix it.
    public var message: String
    /// The node the error belongs to, when there is one.
    public var nodeID: String?

    public init(_ code: Code, at location: String, _ message: String, node nodeID: String? = nil) {
        self.code = code
        self.location = location
        self.message = message
        self.nodeID = nodeID
    }

    /// `<where>: <what>`, the form the CLI prints after `audiograph: `.
    public var description: String {
        location.isEmpty ? message : "\(location): \(message)"
    }
}

extension GraphError {
    /// A config error at a JSON path.
    public static func config(_ path: JSONPath, _ message: String) -> GraphError {
        GraphError(.invalidConfig, at: path.description, message)
    }
}
