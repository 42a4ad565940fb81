/// Issue 15, engine `whisper`, item "Logs are silent unless --verbose": whisper.cpp's and ggml's log lines are
/// dropped unless a verbose recognizer is alive.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.serialized, .ownThreads) struct WhisperLogTests {
    /// What the process writes to stderr while `body` runs (fd 2 goes to a temporary file meanwhile).
    private func stderr(during body: () throws -> Void) throws -> String {
        let folder = try TemporaryFolder(prefix: "whisper-log")
        let file = open(folder.path("stderr.log"), O_CREAT | O_RDWR | O_TRUNC, 0o600)
        try #require(file >= 0)
        let saved = dup(2)
        dup2(file, 2)
        defer {
            dup2(saved, 2)
            close(saved)
            close(file)
        }
        try body()
        return (try? folder.read("stderr.log")) ?? ""
    }

    private func options(verbose: Bool) -> RecognizerOptions {
        var options = WhisperTestSupport.options(["model": .string(WhisperTestSupport.standInModel), "threads": 1])
        options.verbose = verbose
        return options
    }

    @Test func quietUnlessVerbose() throws {
        let quiet = try stderr {
            let recognizer = try WhisperRecognizer(options(verbose: false))
            _ = try WhisperTestSupport.decode(recognizer, [Float](repeating: 0, count: 1600))
        }
        #expect(!quiet.contains("whisper"), "\(quiet)")
        let verbose = try stderr {
            _ = try WhisperRecognizer(options(verbose: true))
        }
        #expect(verbose.contains("whisper_model_load"), "\(verbose)")
        #expect(!WhisperLog.isVerbose)
    }
}
