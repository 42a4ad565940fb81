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
