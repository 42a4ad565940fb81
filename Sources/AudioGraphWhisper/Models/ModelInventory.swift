import Foundation

/// What is in the models folder: each catalog model (installed or not) and any other `ggml-*.bin` a user put
/// there (the engine takes any whisper.cpp ggml file).
public enum ModelInventory {
    /// One row of `audiograph models list`.
    public struct Entry: Sendable, Equatable, Codable {
        /// The model's name (`ggml-NAME.bin`).
        public let name: String
        /// The catalog's one-line description; nil for a file not in the catalog.
        public let summary: String?
        /// Where its file is (or would be).
        public let path: String
        /// Whether the file exists.
        public let installed: Bool
        /// The file's size in bytes, when installed.
        public let bytes: Int64?
        /// The digest in `ggml-NAME.bin.sha256`, when there is one.
        public let sha256: String?
        /// Whether `models install NAME` knows the model.
        public let installable: Bool
    }

    /// The catalog's models in catalog order, then other ggml files by name.
    public static func list(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Entry] {
        var entries = WhisperModelCatalog.all.map { source in
            entry(name: source.name, summary: source.summary, installable: true, environment: environment)
        }
        let folder = WhisperModelLocations.folder(environment: environment)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let others = files.filter { $0.hasPrefix("ggml-") && $0.hasSuffix(".bin") }
            .map { String($0.dropFirst(5).dropLast(4)) }
            .filter { name in !WhisperModelCatalog.all.contains { $0.name == name } }
            .sorted()
        entries += others.map { entry(name: $0, summary: nil, installable: false, environment: environment) }
        return entries
    }

    /// A file's size, or nil when it is missing.
    public static func size(of path: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.size] as? NSNumber)?.int64Value
    }

    private static func entry(name: String, summary: String?, installable: Bool,
                              environment: [String: String]) -> Entry {
        let path = WhisperModelLocations.path(ofModel: name, environment: environment)
        let bytes = size(of: path)
        return Entry(name: name, summary: summary, path: path, installed: bytes != nil, bytes: bytes,
                     sha256: bytes == nil ? nil : WhisperModelInstaller.recordedChecksum(of: path), installable: installable)
    }
}
