import CFuzzDriver
import Foundation

/// What the libFuzzer targets in fuzz/ share (docs/fuzzing.md).
public enum Fuzz {
    /// Hands `target` (called once per input) to libFuzzer's driver with the command line's flags, and exits
    /// with its status: what each target's main.swift does.
    public static func run(_ target: audiograph_fuzz_target) -> Never {
        exit(audiograph_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, target))
    }

    /// libFuzzer's input as text: invalid UTF-8 becomes U+FFFD, as `String(decoding:)` reads it.
    public static func text(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String {
        guard let data, size > 0 else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    }

    /// A property every input must keep. A broken one stops the run like a crash, so libFuzzer saves the
    /// input (`crash-…`) and the smoke fails.
    public static func expect(_ condition: Bool, _ message: @autoclosure () -> String,
                              file: StaticString = #fileID, line: UInt = #line) {
        if !condition { fatalError("fuzz expectation failed: \(message())", file: file, line: line) }
    }

    /// The repository's root folder (this file is fuzz/support/Fuzz.swift), for fixtures such as examples/.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// A request head as libmicrohttpd hands it to the handler: `METHOD TARGET …` then `Name: value` lines up to
    /// an empty one (each line may end in CR). The target's path and query items are percent-decoded (`+` a
    /// space in the query; a decoded NUL ends a value, as in a C string); header names are lower-cased, and each
    /// key of `tokens` in a header value is replaced by its value (so inputs get past authentication). Nil
    /// without a method and a target.
    public static func requestHead(_ text: String, tokens: [String: String] = [:])
        -> (method: String, path: String, query: [(name: String, value: String)], headers: [String: String])? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        guard let requestLine = lines.first else { return nil }
        let words = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { continue }
            var value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            for (name, token) in tokens { value = value.replacingOccurrences(of: name, with: token) }
            headers[line[..<colon].lowercased()] = value
        }
        let target = words[1]
        let question = target.firstIndex(of: "?")
        let path = unescape(target[..<(question ?? target.endIndex)], plusIsSpace: false)
        var query: [(name: String, value: String)] = []
        if let question {
            for item in target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true) {
                let equals = item.firstIndex(of: "=")
                query.append((unescape(item[..<(equals ?? item.endIndex)], plusIsSpace: true),
                              equals.map { unescape(item[item.index(after: $0)...], plusIsSpace: true) } ?? ""))
            }
        }
        return (String(words[0]), path, query, headers)
    }

    /// libmicrohttpd's unescaping: `%XX` with two hex digits is that byte, anything else stays; the bytes are
    /// read as UTF-8 up to the first NUL.
    private static func unescape(_ text: Substring, plusIsSpace: Bool) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2, let high = hexValue(input[input.startIndex]),
               let low = hexValue(input[input.startIndex + 1]) {
                bytes.append(high << 4 | low)
                input = input.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// A new empty folder that is removed when the process exits (libFuzzer ends with `exit`).
    public static func temporaryFolder(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiograph-fuzz-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        TemporaryFolders.shared.add(path)
        return path
    }
}

/// The folders `Fuzz.temporaryFolder` made, removed at exit.
private final class TemporaryFolders: @unchecked Sendable {
    static let shared = TemporaryFolders()
    private let lock = NSLock()
    private var paths: [String] = []

    private init() {
        atexit { TemporaryFolders.shared.removeAll() }
    }

    func add(_ path: String) { lock.withLock { paths.append(path) } }

    func removeAll() {
        for path in lock.withLock({ paths }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
