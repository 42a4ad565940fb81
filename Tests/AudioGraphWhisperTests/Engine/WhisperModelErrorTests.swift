/// Issue 15, engine `whisper`, item "Model": the model is checked before any audio flows; a missing, unreadable
/// or non-whisper model is exit 69 at `nodes.ID.model`, naming the file and `audiograph models install tiny.en`.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperModelErrorTests {
    private func expectUnavailable(_ path: String, _ body: (RecognizerOptions) throws -> Void) {
        let options = WhisperTestSupport.options(["model": .string(path)])
        do {
            try body(options)
            Issue.record("no error for \(path)")
        } catch let error as GraphError {
            #expect(error.code == .unavailable)
            #expect(error.code.exitCode == 69)
            #expect(error.location == "nodes.asr.model")
            #expect(error.message.contains(path))
            #expect(error.message.contains("audiograph models install tiny.en"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func missingModelIsRefusedAtValidateAndMake() throws {
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let path = folder.path("ggml-none.bin")
        expectUnavailable(path) { try WhisperEngine.validate($0) }
        expectUnavailable(path) { _ = try WhisperRecognizer($0) }
    }

    @Test func folderIsRefused() throws {
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let path = folder.path
        expectUnavailable(path) { try WhisperEngine.validate($0) }
    }

    @Test func fileWithoutGgmlMagicIsRefused() throws {
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let url = folder.url.appendingPathComponent("not-a-model.bin")
        try Data(repeating: 0x41, count: 4096).write(to: url)
        expectUnavailable(url.path) { try WhisperEngine.validate($0) }
    }

    @Test func shortFileIsRefused() throws {
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let url = folder.url.appendingPathComponent("short.bin")
        try Data([0x6c, 0x6d, 0x67, 0x67]).write(to: url)
        expectUnavailable(url.path) { try WhisperEngine.validate($0) }
    }

    /// A file cut inside its vocabulary is refused by the header check (whisper.cpp itself would load it).
    @Test func modelCutInItsVocabularyIsRefused() throws {
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let url = folder.url.appendingPathComponent("truncated.bin")
        let model = try Data(contentsOf: URL(fileURLWithPath: WhisperTestSupport.standInModel))
        try model.prefix(200_000).write(to: url)
        expectUnavailable(url.path) { try WhisperEngine.validate($0) }
    }

    /// A real model cut inside its tensors passes the header check and is refused when it loads (at `make`).
    @Test func modelCutInItsTensorsIsRefusedWhenLoaded() throws {
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let url = folder.url.appendingPathComponent("truncated.bin")
        let handle = try #require(FileHandle(forReadingAtPath: try WhisperTestSupport.realModel()))
        try handle.read(upToCount: 20_000_000)?.write(to: url)
        try handle.close()
        let options = WhisperTestSupport.options(["model": .string(url.path)])
        try WhisperEngine.validate(options)
        expectUnavailable(url.path) { _ = try WhisperRecognizer($0) }
    }

    @Test func pathThroughAFileIsRefused() throws {
        // (Root reads any file whatever its mode, so an unreadable file cannot be made here: a path through a
        // file, which nobody can open, stands in.)
        let folder = try TemporaryFolder(prefix: "whisper-model-errors")
        let file = folder.url.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        let path = file.path + "/ggml-tiny.en.bin"
        expectUnavailable(path) { try WhisperEngine.validate($0) }
    }

    @Test func standInModelLoadsAndDecodes() throws {
        let options = WhisperTestSupport.options(["model": .string(WhisperTestSupport.standInModel), "threads": 1])
        try WhisperEngine.validate(options)
        let recognizer = try WhisperRecognizer(options)
        #expect(recognizer.capabilities.languages == ["en-US", "en-GB"])
        #expect(recognizer.capabilities.sampleRate == 16000)
        _ = try WhisperTestSupport.decode(recognizer, [Float](repeating: 0, count: 16000))
        #expect(recognizer.finalDecodes == 1)
    }

    @Test func defaultModelIsTheModelsFoldersTinyEn() {
        let settings = WhisperSettings(JSONObject())
        #expect(settings.model == WhisperModelLocations.defaultModelPath())
        #expect(settings.threads == ProcessInfo.processInfo.activeProcessorCount)
        #expect(settings.beamSize == nil)
        #expect(settings.packing == .auto)
    }
}
