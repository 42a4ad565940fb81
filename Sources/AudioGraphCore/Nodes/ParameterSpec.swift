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

    public enum PathRole: Sendable, Equatable {
        /// Read: it must exist when the graph is built (else exit 66).
        case input
        /// Written: created when the graph starts (failure: exit 73).
        case output
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
        case .path(let role): return role == .input ? "path (input file)" : "path (output file)"
        }
    }
}
