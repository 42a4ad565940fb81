/// One parameter of a node type, declared once as static data. Config validation, `audiograph inspect`, the
/// JSON Schema and the node reference in docs/ are all derived from it (like GStreamer's param specs).
public struct ParameterSpec: Sendable {
    public enum Kind: Sendable, Equatable {
        case integer(range: ClosedRange<Int>?)
        case number(range: ClosedRange<Double>?)
        case boolean
        case string
        /// One of a fixed list of strings.
        case choice([String])
        /// A file path, resolved against the config file's folder.
        case path(PathRole)
    }

    /// What a node does with a path parameter. The graph builder checks paths by role before any node opens a
    /// file: an input must be there (exit 66) and be a regular file (a folder for `inputFolder`; a `model` may be
    /// missing, which its node reports with exit 69), so a FIFO or a device is refused rather than blocking; an output may not resolve to the same file as any input, nor an
    /// exclusive output to another output (exit 65, naming both JSON paths).
    public enum PathRole: Sendable, Equatable, CaseIterable {
        /// Read: a regular file that must exist when the graph is built.
        case input
        /// Read: a folder that must exist when the graph is built (a model folder).
        case inputFolder
        /// Read: a model file the node checks itself, and loads, before audio flows. The builder refuses a
        /// FIFO, a device or a folder (exit 66) but leaves a missing or unreadable file to the node, whose error
        /// says how to install the model (exit 69, `unavailable`).
        case model
        /// Written by this node alone: created when the graph starts (failure: exit 73). No other path of the
        /// config, and in a batch no other file's run, may name the same file.
        case output
        /// Written in place by many writers at once, like a database: other nodes and other batch files may name
        /// it too, but no input may.
        case sharedOutput

        /// Whether the node writes the path.
        public var writes: Bool { self == .output || self == .sharedOutput }

        /// The role's name in the plugin wire format and in schemas.
        public var name: String {
            switch self {
            case .input: return "input"
            case .inputFolder: return "input-folder"
            case .model: return "model"
            case .output: return "output"
            case .sharedOutput: return "shared-output"
            }
        }

        /// How `typeDescription` shows it: "input file", "output file, shared".
        var label: String {
            switch self {
            case .input: return "input file"
            case .inputFolder: return "input folder"
            case .model: return "model file"
            case .output: return "output file"
            case .sharedOutput: return "output file, shared"
            }
        }
    }

    public var name: String
    public var kind: Kind
    /// The value used when the config leaves the parameter out. `nil` with `required` means it must be given.
    public var defaultValue: JSONValue?
    public var required: Bool
    public var doc: String

    public init(_ name: String, _ kind: Kind, default defaultValue: JSONValue? = nil, required: Bool = false,
                doc: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.required = required
        self.doc = doc
    }

    /// `integer 1…384000`, `one of best|high|medium|fastest`, for help and error text.
    public var typeDescription: String {
        switch kind {
        case .integer(let range):
            return range.map { "integer \($0.lowerBound)…\($0.upperBound)" } ?? "integer"
        case .number(let range):
            return range.map { "number \(JSONWriter.format(number: $0.lowerBound))…\(JSONWriter.format(number: $0.upperBound))" } ?? "number"
        case .boolean: return "boolean"
        case .string: return "string"
        case .choice(let options): return "one of " + options.joined(separator: "|")
        case .path(let role): return "path (\(role.label))"
        }
    }
}
