import Foundation

/// One file a config reads or writes: where it is named (a JSON path such as `nodes.rec.path`), the file, and
/// what the node does with it (its parameter's `PathRole`). Nodes declare their path parameters with a role,
/// built-in and plugin nodes alike, so the builder finds every file a graph touches without knowing node types.
public struct PathUse: Sendable {
    public var role: ParameterSpec.PathRole
    /// The path as the config gives it, resolved against the config's folder.
    public var path: String
    /// The same file as the file system sees it (symlinks and `..` followed).
    public var resolved: ResolvedPath
    /// Where the config names it, for errors: `nodes.rec.path`, `plugins[0]`.
    public var location: String

    public init(role: ParameterSpec.PathRole, path: String, location: String) {
        self.role = role
        self.path = path
        self.resolved = ResolvedPath(path)
        self.location = location
    }

    /// The path parameters among a node's validated `values`.
    public static func uses(of values: JSONObject, _ descriptor: NodeDescriptor, baseDirectory: String,
                            at node: JSONPath) -> [PathUse] {
        descriptor.parameters(for: values).compactMap { spec in
            guard case .path(let role) = spec.kind, let raw = values[spec.name]?.stringValue else { return nil }
            return PathUse(role: role, path: NodeConfiguration.resolve(raw, against: baseDirectory),
                           location: (node / spec.name).description)
        }
    }

    /// What a config reads besides its nodes' paths: the config file itself, and the plugin libraries it names.
    public static func configInputs(of spec: GraphSpec) -> [PathUse] {
        let file = spec.configFile.map { [PathUse(role: .input, path: $0, location: "the config file")] } ?? []
        return file + spec.plugins.enumerated().map { index, path in
            PathUse(role: .input, path: NodeConfiguration.resolve(path, against: spec.baseDirectory),
                    location: "plugins[\(index)]")
        }
    }

    /// Checks that each input is there and is what its role reads: a regular file (never a FIFO, a device or a
    /// folder, which would block or never end) or, for `inputFolder`, a folder. Exit 66, naming the JSON path.
    /// A `model` that is missing or unreadable is left to its node (exit 69 with the install command); one that
    /// is a FIFO, a device or a folder is refused here. Nothing is opened.
    public static func checkInputs(_ uses: [PathUse]) throws(GraphError) {
        for use in uses {
            switch use.role {
            case .input:
                try FileKind.requireRegularFile(use.path, at: use.location)
            case .inputFolder:
                let kind = FileKind(path: use.path)
                guard kind != .missing else { throw GraphError(.missingInput, at: use.location, "no such folder: \(use.path)") }
                guard kind == .directory else {
                    throw GraphError(.missingInput, at: use.location, "\(use.path) is \(kind.description), not a folder")
                }
            case .model:
                // Missing or unreadable: the node's own check says which model and how to install it.
                let kind = FileKind(path: use.path)
                if kind != .missing, kind != .unknown { try FileKind.requireRegularFile(use.path, at: use.location) }
                continue
            case .output, .sharedOutput:
                continue
            }
            guard access(use.path, R_OK) == 0 else {
                throw GraphError(.missingInput, at: use.location, "cannot read \(use.path)")
            }
        }
    }

    /// Two uses of one file that may not share it.
    public struct Conflict: Sendable {
        /// The use named first, and the later one the error is reported at.
        public var earlier: PathUse
        public var later: PathUse
        /// Whether both write the file (else one reads it).
        public var bothWrite: Bool { earlier.role.writes && later.role.writes }

        /// An `invalidConfig` error (exit 65) at the later use, naming both.
        public var error: GraphError {
            let what = bothWrite ? "two outputs would write one file" : "an output would overwrite an input"
            func verb(_ use: PathUse) -> String { use.role.writes ? "writes" : "reads" }
            return GraphError(.invalidConfig, at: later.location,
                              "\(verb(later)) \(later.resolved.path), which \(earlier.location) \(verb(earlier)) too: "
                                + "\(what); give each output a file of its own")
        }
    }

    /// The first output that resolves to the same file as an input, or exclusive output (`.output`) that
    /// resolves to the same file as another output: writing it would destroy the input, or two writers would
    /// mix their bytes. Two readers, or two shared outputs, may share a file.
    public static func firstConflict(_ uses: [PathUse]) -> Conflict? {
        var first: [ResolvedPath: PathUse] = [:]
        for use in uses {
            guard let earlier = first[use.resolved] else {
                first[use.resolved] = use
                continue
            }
            switch (earlier.role.writes, use.role.writes) {
            case (false, false): continue
            case (true, true) where earlier.role == .sharedOutput && use.role == .sharedOutput: continue
            default: return Conflict(earlier: earlier, later: use)
            }
        }
        return nil
    }

    /// Throws `firstConflict(uses)`'s error, if there is one.
    public static func checkConflicts(_ uses: [PathUse]) throws(GraphError) {
        if let conflict = firstConflict(uses) { throw conflict.error }
    }
}
