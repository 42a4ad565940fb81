import AudioGraphCore
import AudioGraphStore
import Foundation

/// A batch manifest: JSON Lines, one input file per line, `{"path": "calls/a.flac", "session": "call-17",
/// "room": "support"}`. Only `path` is required; relative paths resolve against the manifest's folder. Blank
/// lines are skipped. Errors are `invalidConfig` (exit 65) at `MANIFEST:LINE`, naming the bad key.
///
/// Each line becomes a `WorkItem`: its key is the line's `session`, else the file's absolute path (so enqueuing
/// a manifest twice adds nothing). A line without `session` gets the session id `defaultSessionID(for:)`
/// (the file name without its extension); two lines with the same session id are an error, since the store
/// keeps one session per id and a retry replaces it.
public enum BatchManifest {
    public static let keys = ["path", "session", "room"]

    /// Reads and parses the manifest at `path` (exit 66 when it is missing).
    public static func load(path: String) throws(GraphError) -> [WorkItem] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw GraphError(.missingInput, at: path, "no such manifest file")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw GraphError(.missingInput, at: path, "cannot read the manifest file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GraphError(.invalidConfig, at: path, "the manifest is not UTF-8 text")
        }
        let base = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
        return try parse(text, name: path, baseDirectory: base)
    }

    /// Parses manifest text; `name` is the manifest's name in error locations.
    public static func parse(_ text: String, name: String, baseDirectory: String) throws(GraphError) -> [WorkItem] {
        var items: [WorkItem] = []
        var lineOfSession: [String: Int] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            let at = "\(name):\(number)"
            let value: JSONValue
            do {
                value = try JSONParser.parse(line)
            } catch {
                throw GraphError(.invalidConfig, at: at, "invalid JSON at column \(error.column): \(error.message); "
                    + "each line is an object like {\"path\": \"call.wav\"}")
            }
            guard case .object(let object) = value else {
                throw GraphError(.invalidConfig, at: at,
                                 "expected an object like {\"path\": \"call.wav\"}, got \(value.typeDescription)")
            }
            for key in object.keys where !keys.contains(key) {
                throw GraphError(.invalidConfig, at: at, "unknown key \"\(key)\"\(Suggestions.hint(for: key, in: keys)); "
                    + "allowed: " + keys.joined(separator: ", "))
            }
            guard let pathValue = object["path"] else {
                throw GraphError(.invalidConfig, at: at, "missing \"path\": each line names one input file, like "
                    + "{\"path\": \"call.wav\"}")
            }
            let path = try string(pathValue, key: "path", at: at)
            let session = try object["session"].map { value throws(GraphError) in try string(value, key: "session", at: at) }
            if let session, let problem = ConfigLoader.sessionIDProblem(session) {
                throw GraphError(.invalidConfig, at: at, "\"session\": \"\(TerminalText.escape(session))\": \(problem)")
            }
            let room = try object["room"].map { value throws(GraphError) in try string(value, key: "room", at: at) }
            let resolved = NodeConfiguration.resolve(path, against: baseDirectory)
            let sessionID = session ?? defaultSessionID(for: resolved)
            if let first = lineOfSession[sessionID] {
                throw GraphError(.invalidConfig, at: at, "session \"\(sessionID)\" is line \(first)'s too"
                    + (session == nil ? " (derived from the file name); give each line its own \"session\"" : ""))
            }
            lineOfSession[sessionID] = number
            items.append(WorkItem(key: session ?? resolved, path: resolved, sessionID: session, room: room))
        }
        if items.isEmpty {
            throw GraphError(.invalidConfig, at: name, "the manifest lists no files; write one {\"path\": …} per line")
        }
        return items
    }

    /// The session id of a file whose line gives none: its name without the extension, with characters other
    /// than letters, digits, `.`, `-` and `_` replaced by `-`.
    public static func defaultSessionID(for path: String) -> String {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let mapped = String(name.unicodeScalars.map { scalar -> Character in
            let allowed = (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) || "._-".unicodeScalars.contains(scalar)
            return allowed ? Character(scalar) : "-"
        })
        return mapped.isEmpty ? "file" : mapped
    }

    private static func string(_ value: JSONValue, key: String, at: String) throws(GraphError) -> String {
        guard let string = value.stringValue, !string.isEmpty else {
            throw GraphError(.invalidConfig, at: at, "\"\(key)\": expected a non-empty string, got \(value.typeDescription)")
        }
        guard !TerminalText.containsControl(string) else {
            throw GraphError(.invalidConfig, at: at, "\"\(key)\": \"\(TerminalText.escape(string))\" holds a control "
                + "character; paths, sessions and rooms may not")
        }
        return string
    }
}
