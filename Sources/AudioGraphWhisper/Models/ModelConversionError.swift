import Foundation

/// Why a CTranslate2 Whisper model could not be converted to whisper.cpp's ggml format. Each case names the file.
public enum ModelConversionError: Error, Equatable, CustomStringConvertible {
    /// The input file or folder is missing or unreadable.
    case unreadable(path: String, reason: String)
    /// The input is not a CTranslate2 Whisper model, or is cut short or malformed.
    case corrupt(path: String, reason: String)
    /// A well-formed model this converter cannot handle (e.g. int8-quantized weights).
    case unsupported(path: String, reason: String)
    /// The output file could not be written (nothing is left at `path`); a full disk says so.
    case writeFailed(path: String, reason: String)
    /// The output file appeared while the model was converted; it was kept.
    case outputExists(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .corrupt(let path, let reason): return "\(path) is not a valid CTranslate2 Whisper model: \(reason)"
        case .unsupported(let path, let reason): return "\(path) cannot be converted: \(reason)"
        case .writeFailed(let path, let reason): return "cannot write \(path): \(reason)"
        case .outputExists(let path): return "\(path) exists already; convert writes a new file only"
        }
    }
}
