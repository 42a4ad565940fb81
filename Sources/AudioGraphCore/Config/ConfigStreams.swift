import Foundation

extension ConfigLoader {
    /// Loads a config from `source`: a file path as `load(path:)` does, or a stream read to its end: `-`
    /// (standard input), `/dev/stdin`, a FIFO, or a process substitution (`<(…)`, a `/dev/fd/N` pipe). A
    /// stream has no folder of its own, so its relative paths are from the working folder.
    public static func load(source: String, overrides: [String] = []) throws(GraphError) -> GraphSpec {
        let here = FileManager.default.currentDirectoryPath
        let name = source == "-" ? "stdin" : source
        let handle: FileHandle
        if source == "-" {
            handle = .standardInput
        } else {
            guard isStream(source), let opened = FileHandle(forReadingAtPath: source) else {
                return try load(path: source, overrides: overrides)
            }
            handle = opened
        }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw GraphError(.io, at: name, "cannot read the config: \(error.localizedDescription)")
        }
        if source != "-" { try? handle.close() }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GraphError(.invalidConfig, at: name, "the config is not UTF-8 text")
        }
        if text.allSatisfy(\.isWhitespace) {
            throw GraphError(.invalidConfig, at: name, "the config stream was empty")
        }
        return try parse(text, baseDirectory: here, fileName: name, overrides: overrides)
    }

    /// Whether `path` is something other than a regular file or a folder that can be read (a FIFO, a pipe, a
    /// character device such as /dev/stdin's terminal).
    static func isStream(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    }
}
