import Foundation

/// A fresh folder for one test under the system's temporary directory (`<prefix>-<UUID>`), removed with
/// everything in it when the value goes away. Tests write only here (and through links made here), so they leave
/// the machine as they found it and can run in parallel.
///
/// ```swift
/// let folder = try TemporaryFolder()
/// let config = try folder.write("p.json", #"{"version": 1, ...}"#)
/// ```
public final class TemporaryFolder: Sendable {
    public let url: URL

    public init(prefix: String = "audiograph-tests") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The folder's path.
    public var path: String { url.path }

    /// The path of `name` (a relative path) in the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The names of what is in the folder (not in its subfolders), sorted.
    public var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    /// Whether `name` exists in the folder.
    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// Writes `text` to `name` (its folders made first) and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The text of `name`.
    public func read(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }

    /// Copies `source` to `name` in the folder with the little-endian int32 at each byte offset of `int32s`
    /// replaced (a damaged header made from a good file) and returns the copy's path.
    @discardableResult
    public func patchedCopy(of source: URL, as name: String, int32s: [Int: Int32]) throws -> String {
        var data = try Data(contentsOf: source)
        for (offset, value) in int32s {
            withUnsafeBytes(of: value.littleEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) }
        }
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file.path
    }
}
