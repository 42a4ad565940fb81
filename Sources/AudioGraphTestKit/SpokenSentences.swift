import Foundation

/// Speech for tests, made with espeak-ng and sox (both installed by scripts/install-deps.sh) as
/// benchmarks/languages_eval.py makes its set: 16 kHz mono 16-bit WAV, silence before, between and after the
/// sentences. espeak-ng is deterministic, so the same text gives the same samples.
public enum SpokenSentences {
    public struct ToolFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `sentences` (espeak-ng voice, text), each followed by `gapSeconds` of silence after `leadSeconds`,
    /// to `path`. Temporary files go next to it.
    public static func write(_ sentences: [(voice: String, text: String)], to path: String,
                             leadSeconds: Double = 0.5, gapSeconds: Double = 2.5) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let lead = "\(folder)/\(stem)-lead.wav", gap = "\(folder)/\(stem)-gap.wav"
        try run("/usr/bin/env", ["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", lead, "trim", "0", "\(leadSeconds)"])
        try run("/usr/bin/env", ["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", gap, "trim", "0", "\(gapSeconds)"])
        var parts = [lead]
        for (index, sentence) in sentences.enumerated() {
            let raw = "\(folder)/\(stem)-\(index)-raw.wav", wav = "\(folder)/\(stem)-\(index).wav"
            try run("/usr/bin/env", ["espeak-ng", "-v", sentence.voice, "-s", "150", "-w", raw, sentence.text])
            try run("/usr/bin/env", ["sox", raw, "-r", "16000", "-c", "1", "-b", "16", wav])
            parts += [wav, gap]
        }
        try run("/usr/bin/env", ["sox"] + parts + [path])
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailed(description: "\(arguments.first ?? executable) failed (exit \(process.terminationStatus)): "
                             + (String(data: message, encoding: .utf8) ?? ""))
        }
    }
}
