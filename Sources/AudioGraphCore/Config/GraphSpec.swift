import Foundation

/// A graph as the config file describes it, before validation: the `Codable`-like model of DESIGN.md
/// section 2. Build one from a file with `ConfigLoader`, or in code.
public struct GraphSpec: Sendable {
    /// The config format version. This build reads version 1.
    public var version: Int
    public var session: SessionSettings
    /// Shared libraries to load node types from (paths as written; resolved against `baseDirectory`).
    public var plugins: [String]
    /// Nodes in file order.
    public var nodes: [NodeSpec]
    public var links: [LinkSpec]
    /// When true, a link joining two different audio formats is an error instead of an inserted resampler.
    public var strictFormats: Bool
    /// Folder that relative paths resolve against.
    public var baseDirectory: String
    /// The `serve` block: serve the HTTP API while the graph runs (nil: no server).
    public var serve: ServeSettings?
    /// The config file the spec was read from (`ConfigLoader.load`), so no output may overwrite it; nil for a
    /// spec parsed from text or made in code.
    public var configFile: String?
    /// The `participant` block: the nodes each participant of a call gets (see `ParticipantTemplate`); nil for a
    /// graph with fixed sources only.
    public var participant: ParticipantTemplate?

    public static let currentVersion = 1

    public init(version: Int = GraphSpec.currentVersion, session: SessionSettings = SessionSettings(),
                plugins: [String] = [], nodes: [NodeSpec], links: [LinkSpec], strictFormats: Bool = false,
                baseDirectory: String, serve: ServeSettings? = nil, participant: ParticipantTemplate? = nil) {
        self.participant = participant
        self.serve = serve
        self.version = version
        self.session = session
        self.plugins = plugins
        self.nodes = nodes
        self.links = links
        self.strictFormats = strictFormats
        self.baseDirectory = baseDirectory
    }
}

/// One entry of `nodes`.
public struct NodeSpec: Sendable {
    public var id: String
    public var type: String
    /// Every key of the node's object except `type` and `queue`.
    public var parameters: JSONObject
    /// `queue`: run the node on a thread of its own behind a queue of this many frames (a queued node's own
    /// capacity otherwise; inline nodes run on the thread that feeds them).
    public var queue: Int?
    /// `speaker`, on a source: who speaks in its audio (a file or microphone as one participant of a call).
    /// Every transcript made from it carries the name.
    public var speaker: String?

    /// The largest `queue` a config may ask for.
    public static let queueRange = 1...65536

    public init(id: String, type: String, parameters: JSONObject = JSONObject(), queue: Int? = nil,
                speaker: String? = nil) {
        self.speaker = speaker
        self.id = id
        self.type = type
        self.parameters = parameters
        self.queue = queue
    }
}

/// A node and, optionally, one of its ports: `rs` or `asr.words`.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public var node: String
    public var port: String?

    public init(node: String, port: String? = nil) {
        self.node = node
        self.port = port
    }

    public var description: String { port.map { "\(node).\($0)" } ?? node }
}

/// One link `from -> to`, with the place in the config it came from (for errors).
public struct LinkSpec: Sendable, Hashable {
    public var from: Endpoint
    public var to: Endpoint
    public var path: JSONPath

    public init(from: Endpoint, to: Endpoint, path: JSONPath = .root / "links") {
        self.from = from
        self.to = to
        self.path = path
    }

    /// Parses a chain `a -> b.port -> c` into its links.
    public static func chain(_ text: String, path: JSONPath = .root / "links") throws(GraphError) -> [LinkSpec] {
        let parts = text.components(separatedBy: "->").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count >= 2 else {
            throw .config(path, "a link needs at least two nodes, like \"src -> sink\" (got \"\(text)\")")
        }
        var endpoints: [Endpoint] = []
        for part in parts {
            let pieces = part.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(pieces.count), pieces.allSatisfy(NodeIdentifier.isValid) else {
                throw .config(path, "\"\(part)\" in \"\(text)\" is not a node id or node.port "
                    + "(ids hold letters, digits, '-' and '_')")
            }
            endpoints.append(Endpoint(node: pieces[0], port: pieces.count == 2 ? pieces[1] : nil))
        }
        return zip(endpoints, endpoints.dropFirst()).map { LinkSpec(from: $0, to: $1, path: path) }
    }
}

