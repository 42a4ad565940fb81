import CWhisper
import Foundation
import Synchronization

/// whisper.cpp's (and ggml's) log output. `whisper_log_set` is process-wide, so one callback is installed, once,
/// before the first model loads; it drops every message unless a recognizer that runs with `--verbose` asked for
/// them (then it writes them to stderr).
enum WhisperLog {
    private static let verboseRecognizers = Atomic<Int>(0)
    private static let installed = Mutex(false)

    /// Installs the gate (idempotent). Call before any other whisper.cpp function that may log.
    static func install() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            whisper_log_set({ _, text, _ in
                guard WhisperLog.isVerbose, let text else { return }
                _ = write(STDERR_FILENO, text, strlen(text))
            }, nil)
        }
    }

    /// Whether messages are written now.
    static var isVerbose: Bool { verboseRecognizers.load(ordering: .relaxed) > 0 }

    /// Held by a verbose recognizer from before it loads its model until it goes (also when its initializer
    /// throws): while one lives, messages are written.
    final class VerboseToken: Sendable {
        init() { WhisperLog.verboseRecognizers.add(1, ordering: .relaxed) }
        deinit { WhisperLog.verboseRecognizers.subtract(1, ordering: .relaxed) }
    }
}
