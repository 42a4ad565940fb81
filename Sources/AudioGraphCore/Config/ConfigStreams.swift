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
        defer { if source != "-" { try? handle.close() } }
        let data = try readCapped(handle, name: name)
        guard let text = String(data: data, encoding: .utf8) else {
            throw GraphError(.invalidConfig, at: name, "the config is not UTF-8 text")
        }
        if text.allSatisfy(\.isWhitespace) {
            throw GraphError(.invalidConfig, at: name, "the config stream was empty")
        }
        return try parse(text, baseDirectory: here, fileName: name, overrides: overrides)
    }

    /// The most a config may hold, from a file or a stream: 16 MiB. The largest real config is a few KiB; a
    /// stream with no end (`validate /dev/zero`, a runaway generator) is refused at the cap instead of filling
    /// memory.
    public static let maxConfigBytes = 16 << 20

    /// Reads `handle` to its end in pieces, refusing (65, naming the limit) a stream that goes past
    /// `maxConfigBytes`: memory never holds more than the cap and one piece.
    static func readCapped(_ handle: FileHandle, name: String) throws(GraphError) -> Data {
        var data = Data()
        while true {
            let piece: Data?
            do {
                piece = try handle.read(upToCount: 1 << 16)
            } catch {
                throw GraphError(.io, at: name, "cannot read the config: \(error.localizedDescription)")
            }
            guard let piece, !piece.isEmpty else { return data }
            data.append(piece)
            if data.count > maxConfigBytes { throw tooLarge(name) }
        }
    }

    static func tooLarge(_ name: String) -> GraphError {
        GraphError(.invalidConfig, at: name, "the config is larger than the limit of \(maxConfigBytes >> 20) MiB "
            + "(\(maxConfigBytes) bytes); a config is a few KiB of JSON")
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
