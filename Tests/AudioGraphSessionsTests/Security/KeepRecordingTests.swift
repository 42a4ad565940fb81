/// Issue 14, item 4: `capture --keep PATH` deleted whatever was at PATH (a folder, recursively; a device node).
/// `VoiceCaptureSession.Configuration.keepRecording` now refuses, before recording starts, a path that exists
/// and is not a regular file, and replaces an existing regular file only by an atomic rename of a file written
/// beside it (a link to a regular file stays a link; the file keeps its permissions).
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Security: keepRecording never replaces what is not a regular file (issue 14 item 4)", .serialized, .ownThreads)
struct KeepRecordingTests {
    static let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures/goforward.wav").path

    /// A capture whose "microphone" is the clip, read as fast as it goes, kept at `keep`.
    private func capture(keep: String, temporary: TemporaryFolder) -> VoiceCaptureSession {
        var configuration = VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "file-source",
                             parameters: JSONObject([("path", .string(Self.clip)), ("realtime", .bool(false))])),
            temporaryDirectory: temporary.url)
        configuration.keepRecording = URL(fileURLWithPath: keep)
        return VoiceCaptureSession(configuration: configuration)
    }

    private func recordAll(_ session: VoiceCaptureSession) async throws -> VoiceCaptureResult {
        try await session.startRecording()
        _ = await eventually(every: .milliseconds(5)) { session.level.recordingDuration >= 2.78 }
        return try await session.stopAndTranscribe()
    }

    /// Whether the file starts like an MP4 (`ftyp` box at offset 4) and holds a `moov` box.
    private func isMP4(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path), data.count > 8 else { return false }
        return data[4..<8].elementsEqual("ftyp".utf8) && data.range(of: Data("moov".utf8)) != nil
    }

    @Test("a folder with a file in it is refused before recording starts, and both survive")
    func folderIsRefused() async throws {
        let scratch = try TemporaryFolder(prefix: "keep")
        let temporary = try TemporaryFolder(prefix: "keep")
        try FileManager.default.createDirectory(atPath: scratch.path("kept.m4a"), withIntermediateDirectories: true)
        try "mine".write(toFile: scratch.path("kept.m4a/notes.txt"), atomically: true, encoding: .utf8)
        let session = capture(keep: scratch.path("kept.m4a"), temporary: temporary)
        do {
            try await session.startRecording()
            Issue.record("expected cannotKeepRecording")
            try await session.cancel()
        } catch {
            #expect(error.code == "cannot_keep_recording" && error.description.contains(scratch.path("kept.m4a"))
                        && error.description.contains("folder"), "\(error)")
        }
        #expect(await session.state == .idle)
        #expect(try String(contentsOfFile: scratch.path("kept.m4a/notes.txt"), encoding: .utf8) == "mine")
        #expect(temporary.contents.isEmpty, "nothing was recorded")
    }

    @Test("a FIFO, and a link to a FIFO, are refused and left as they are")
    func fifoIsRefused() async throws {
        let scratch = try TemporaryFolder(prefix: "keep")
        let temporary = try TemporaryFolder(prefix: "keep")
        #expect(mkfifo(scratch.path("pipe"), 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("link.m4a"), withDestinationPath: scratch.path("pipe"))
        for name in ["pipe", "link.m4a"] {
            let session = capture(keep: scratch.path(name), temporary: temporary)
            await #expect(throws: VoiceCaptureError.self) { try await session.startRecording() }
            var info = stat()
            #expect(stat(scratch.path("pipe"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
            #expect(lstat(scratch.path("link.m4a"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        }
        #expect(temporary.contents.isEmpty)
    }

    @Test("an existing regular file is replaced by the recording, keeping its mode, with nothing left beside it")
    func regularFileIsReplaced() async throws {
        let scratch = try TemporaryFolder(prefix: "keep")
        let temporary = try TemporaryFolder(prefix: "keep")
        try "old take".write(toFile: scratch.path("take.m4a"), atomically: true, encoding: .utf8)
        #expect(chmod(scratch.path("take.m4a"), 0o600) == 0)
        let result = try await recordAll(capture(keep: scratch.path("take.m4a"), temporary: temporary))
        #expect(WordErrorRate.normalize(result.transcript) == ["go", "forward", "ten", "meters"], "\(result.transcript)")
        #expect(isMP4(scratch.path("take.m4a")), "the kept file is the recording")
        var info = stat()
        #expect(stat(scratch.path("take.m4a"), &info) == 0 && info.st_mode & 0o777 == 0o600, "its mode is kept")
        #expect(scratch.contents == ["take.m4a"], "no partial file left beside it: \(scratch.contents)")
        #expect(temporary.contents.isEmpty)
    }

    @Test("a link to a regular file stays a link; the file it points to is replaced")
    func linkToRegularFileKeepsTheLink() async throws {
        let scratch = try TemporaryFolder(prefix: "keep")
        let temporary = try TemporaryFolder(prefix: "keep")
        try FileManager.default.createDirectory(atPath: scratch.path("takes"), withIntermediateDirectories: true)
        try "old take".write(toFile: scratch.path("takes/real.m4a"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("latest.m4a"), withDestinationPath: "takes/real.m4a")
        _ = try await recordAll(capture(keep: scratch.path("latest.m4a"), temporary: temporary))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path("latest.m4a")) == "takes/real.m4a")
        #expect(isMP4(scratch.path("takes/real.m4a")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("takes")) == ["real.m4a"])
    }
}
