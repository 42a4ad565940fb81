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
        descriptor.parameters.compactMap { spec in
            guard case .path(let role) = spec.kind, let raw = values[spec.name]?.stringValue else { return nil }
            return PathUse(role: role, path: NodeConfiguration.resolve(raw, against: baseDirectory),
                           location: (node / spec.name).description)
        }
    }

    /// The plugin libraries a config names: inputs too.
    public static func plugins(of spec: GraphSpec) -> [PathUse] {
        spec.plugins.enumerated().map { index, path in
            PathUse(role: .input, path: NodeConfiguration.resolve(path, against: spec.baseDirectory),
                    location: "plugins[\(index)]")
        }
    }

    /// Checks that each input is there and is what its role reads: a regular file (never a FIFO, a device or a
    /// folder, which would block or never end) or, for `inputFolder`, a folder. Exit 66, naming the JSON path.
    /// Nothing is opened.
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
            case .output, .sharedOutput:
                continue
            }
            guard access(use.path, R_OK) == 0 else {
                throw GraphError(.missingInput, at: use.location, "cannot read \(use.path)")
            }
        }
    }

    /// Refuses an output that resolves to the same file as an input, or an exclusive output (`.output`) that
    /// resolves to the same file as another output: writing it would destroy the input, or two writers would
    /// mix their bytes. An `invalidConfig` error (exit 65) at the later use, naming both.
    public static func checkConflicts(_ uses: [PathUse]) throws(GraphError) {
        var first: [ResolvedPath: PathUse] = [:]
        for use in uses {
            guard let earlier = first[use.resolved] else {
                first[use.resolved] = use
                continue
            }
            if let conflict = conflict(earlier, use) { throw conflict }
        }
    }

    private static func conflict(_ a: PathUse, _ b: PathUse) -> GraphError? {
        switch (a.role.writes, b.role.writes) {
        case (false, false): return nil  // two readers
        case (true, true) where a.role == .sharedOutput && b.role == .sharedOutput: return nil
        default: break
        }
        let what = !a.role.writes || !b.role.writes
            ? "an output would overwrite an input" : "two outputs would write one file"
        func verb(_ use: PathUse) -> String { use.role.writes ? "writes" : "reads" }
        let samePath = a.resolved.path == b.resolved.path ? "" : " (the same file as \(a.resolved.path))"
        return GraphError(.invalidConfig, at: b.location,
                          "\(verb(b)) \(b.resolved.path)\(samePath), which \(a.location) \(verb(a)) too: \(what); "
                            + "give each output a file of its own")
    }
}
