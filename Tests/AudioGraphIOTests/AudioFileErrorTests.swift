import AudioGraphCore
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphIO

/// libsndfile's and FFmpeg's errors carry one kind (`AudioFileFailure`): a caller decides on `any AudioFileError`
/// once, whichever library failed.
@Suite(.ownThreads) struct AudioFileErrorTests {
    /// What opening `path` with each reader throws, as `any AudioFileError`.
    private func openErrors(_ path: String) -> [any AudioFileError] {
        var errors: [any AudioFileError] = []
        do { _ = try SoundFileReader(path: path) } catch { errors.append(error) }
        do { _ = try FFmpegAudioReader(path: path) } catch { errors.append(error) }
        return errors
    }

    @Test func aMissingFileIsNotFoundFromBothLibraries() throws {
        try withTemporaryFolder(prefix: "audio-file-error") { folder in
            let path = folder + "/missing.wav"
            let errors = openErrors(path)
            #expect(errors.count == 2)
            for error in errors {
                #expect(error.kind == .notFound, "\(error)")
                #expect(error.path == path)
                #expect(error.description == error.message && error.message.contains(path), "\(error)")
            }
        }
    }

    @Test func textThatIsNoAudioIsRefusedByBothLibrariesWithAKindThatSaysSo() throws {
        try withTemporaryFolder(prefix: "audio-file-error") { folder in
            let path = folder + "/notes.wav"
            try "these are notes, not audio\n".write(toFile: path, atomically: true, encoding: .utf8)
            let errors = openErrors(path)
            #expect(errors.count == 2)
            for error in errors {
                #expect([AudioFileFailure.unsupportedFormat, .unreadable, .corrupt].contains(error.kind), "\(error)")
                #expect(error.message.contains(path), "\(error)")
            }
        }
    }
}
