import Foundation

/// A node's validated parameters (defaults filled in), as its initializer receives them.
public struct NodeConfiguration: Sendable {
    /// The node's id in the graph.
    public let id: String
    /// The node's type name.
    public let type: String
    /// Parameter values, validated against the type's declaration, with defaults applied.
    public let values: JSONObject
    /// Folder that relative paths resolve against (the config file's).
    public let baseDirectory: String
    /// The config's `session` block.
    public let session: SessionSettings

    public init(id: String, type: String, values: JSONObject, baseDirectory: String = FileManager.default.currentDirectoryPath,
                session: SessionSettings = SessionSettings()) {
        self.id = id
        self.type = type
        self.values = values
        self.baseDirectory = baseDirectory
        self.session = session
    }

    public func string(_ name: String) -> String? { values[name]?.stringValue }
    public func int(_ name: String) -> Int? { values[name]?.intValue }
    public func double(_ name: String) -> Double? { values[name]?.doubleValue }
    public func bool(_ name: String) -> Bool? { values[name]?.boolValue }

    /// A path parameter, resolved against `baseDirectory` when relative.
    public func path(_ name: String) -> String? {
        guard let raw = string(name) else { return nil }
        return Self.resolve(raw, against: baseDirectory)
    }

    public static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") {
            return NSString(string: path).expandingTildeInPath
        }
        return URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL.path
    }

    /// The JSON path of a parameter of this node, for errors.
    public func jsonPath(_ parameter: String? = nil) -> JSONPath {
        let node = JSONPath.root / "nodes" / id
        return parameter.map { node / $0 } ?? node
    }

    /// An error about this node (or one of its parameters), located by JSON path.
    public func error(_ message: String, parameter: String? = nil, code: GraphError.Code = .invalidConfig) -> GraphError {
        GraphError(code, at: jsonPath(parameter).description, message, node: id)
    }
}
