/// Issue 16, VAD item 1 (errors): a file given as `model` that is not a Silero model is exit 69 at `nodes.ID.model`,
/// naming the file and `audiograph models install silero`, when the graph is built (before any audio flows); a
/// given path that does not exist is a missing input like any other (exit 66; the default model missing is exit
/// 69, tested through the CLI in SileroVADCLITests); an unknown engine is a
/// config error at `nodes.ID.engine` with a did-you-mean; spectral-only and silero-only parameters stay with
/// their engine.
import AudioGraph
import AudioGraphTestKit
import AudioGraphWhisper
import Foundation
import Testing

@Suite(.ownThreads) struct SileroVADErrorTests {
    /// Builds `src -> vad` with these vad parameters (JSON text) over a real clip.
    private func build(_ vad: String, in folder: URL) throws -> Graph {
        let config = folder.appendingPathComponent("vad.json").path
        let clip = SileroVADTestSupport.speechFixtures.appendingPathComponent("librivox_0880.wav").path
        try """
        { "version": 1, "nodes": { "src": { "type": "file-source", "path": "\(clip)" },
                                   "vad": { "type": "vad", \(vad) } },
          "links": ["src -> vad"] }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        return try loadGraph(configPath: config)
    }

    private func expectUnavailable(_ vad: String, naming path: String, in folder: URL) {
        do {
            _ = try build(vad, in: folder)
            Issue.record("no error for \(vad)")
        } catch let error as GraphError {
            #expect(error.code == .unavailable)
            #expect(error.code.exitCode == 69)
            #expect(error.location == "nodes.vad.model")
            #expect(error.message.contains(path), "\(error.message)")
            #expect(error.message.contains("audiograph models install silero"), "\(error.message)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func missingGivenModelIsAMissingInput() throws {
        let folder = try TemporaryFolder(prefix: "silero-errors")
        let path = folder.url.appendingPathComponent("ggml-none.bin").path
        do {
            _ = try build(#""engine": "silero", "model": "\#(path)""#, in: folder.url)
            Issue.record("no error")
        } catch let error as GraphError {
            #expect(error.code.exitCode == 66)
            #expect(error.location == "nodes.vad.model")
            #expect(error.message.contains(path))
        }
    }

    @Test func nonSileroFilesAreRefused() throws {
        let folder = try TemporaryFolder(prefix: "silero-errors")
        let junk = folder.url.appendingPathComponent("junk.bin")
        try Data(repeating: 0x41, count: 4096).write(to: junk)
        expectUnavailable(#""engine": "silero", "model": "\#(junk.path)""#, naming: junk.path, in: folder.url)
        // A whisper model is a ggml file, but not a Silero one.
        let whisper = SileroVADTestSupport.whisperFixtures.appendingPathComponent("for-tests-ggml-tiny.en.bin").path
        expectUnavailable(#""engine": "silero", "model": "\#(whisper)""#, naming: whisper, in: folder.url)
    }

    /// A Silero file cut in its tensors passes the header check; whisper.cpp refuses it when the run starts,
    /// still before any audio flows, with the same error.
    @Test func modelCutInItsTensorsFailsAtStart() throws {
        let folder = try TemporaryFolder(prefix: "silero-errors")
        let cut = folder.url.appendingPathComponent("cut.bin")
        try Data(contentsOf: URL(fileURLWithPath: try SileroVADTestSupport.installedModel())).prefix(300_000).write(to: cut)
        let graph = try build(#""engine": "silero", "model": "\#(cut.path)""#, in: folder.url)
        do {
            _ = try GraphRuntime(graph: graph).run()
            Issue.record("a cut model ran")
        } catch {
            #expect(error.code.exitCode == 69, "\(error)")
            #expect(error.location == "nodes.vad.model", "\(error)")
            #expect(error.message.contains("audiograph models install silero"), "\(error.message)")
        }
    }

    @Test func unknownEngineIsAConfigErrorWithASuggestion() throws {
        let folder = try TemporaryFolder(prefix: "silero-errors")
        do {
            _ = try build(#""engine": "silerro""#, in: folder.url)
            Issue.record("no error")
        } catch let error as GraphError {
            #expect(error.code.exitCode == 65)
            #expect(error.location == "nodes.vad.engine")
            #expect(error.message.contains("did you mean \"silero\""), "\(error.message)")
        }
    }

    @Test func engineParametersBelongToTheirEngine() throws {
        let folder = try TemporaryFolder(prefix: "silero-errors")
        do {
            _ = try build(#""engine": "spectral", "threshold": 0.4"#, in: folder.url)
            Issue.record("threshold accepted on the spectral engine")
        } catch let error as GraphError {
            #expect(error.location == "nodes.vad.threshold", "\(error)")
        }
        _ = try SileroVADTestSupport.installedModel()
        _ = try build(#""engine": "silero", "threshold": 0.4"#, in: folder.url)
    }
}
