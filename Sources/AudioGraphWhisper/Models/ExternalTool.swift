import Foundation

/// Runs a helper program (pip, python3) found on PATH, with its stdout discarded and stderr kept for errors.
enum ExternalTool {
    struct Outcome {
        let status: Int32
        let errorOutput: String
    }

    /// Runs `command` (its first element found on `PATH` unless it holds a `/`). Nil when it cannot be started.
    static func run(_ command: [String], environment: [String: String]) -> Outcome? {
        guard let executable = resolve(command[0], environment: environment) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let errorData = errorPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus,
                       errorOutput: String(decoding: errorData, as: UTF8.self))
    }

    /// The last few lines of a tool's stderr, for an error message.
    static func tail(_ text: String, lines: Int = 3) -> String {
        let kept = text.split(separator: "\n").suffix(lines).map { $0.trimmingCharacters(in: .whitespaces) }
        return kept.isEmpty ? "no message" : kept.joined(separator: " / ")
    }

    private static func resolve(_ name: String, environment: [String: String]) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for folder in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
