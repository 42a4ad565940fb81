import AudioGraph
import Foundation
import AudioGraphTestKit
import Testing

/// Issue 18, item 1 (`audiograph transcribe`): the built-in transcription pipeline is an ordinary config that
/// the graph builder accepts, with transcription on and one caption sink per output named after the input
/// (`InputTemplates`, item 4).
@Suite("TranscriptionPipeline", .ownThreads)
struct TranscriptionPipelineTests {
    @Test("-o srt,vtt,json,txt: each format once, in order; webvtt is vtt; an unknown one is a usage error")
    func outputs() throws {
        #expect(try TranscriptionPipeline.outputs(from: "srt,vtt,json,txt") == [.srt, .vtt, .json, .txt])
        #expect(try TranscriptionPipeline.outputs(from: "vtt, SRT,webvtt") == [.vtt, .srt])
        do {
            _ = try TranscriptionPipeline.outputs(from: "srt,stt")
            Issue.record("stt was accepted")
        } catch {
            #expect(error.code == .usage && error.location == "-o" && error.message.contains("did you mean"), "\(error)")
        }
    }

    @Test("the config chains src -> rs -> vad -> asr -> sinks with transcription on and the asked language")
    func config() throws {
        let pipeline = TranscriptionPipeline(outputs: [.srt, .vtt], language: "en-US", engine: "pocketsphinx")
        let spec = try pipeline.spec(input: "/calls/a.wav", baseDirectory: "/")
        #expect(spec.session.autoStartTranscription)
        #expect(spec.session.captionLanguage == "en-US")
        #expect(spec.nodes.map(\.type) == ["file-source", "resampler", "vad", "recognizer", "caption-sink", "caption-sink"])
        #expect(spec.nodes[3].parameters["engine"] == .string("pocketsphinx"))
        #expect(spec.nodes[3].parameters["language"] == .string("en-US"))
        #expect(spec.nodes[5].parameters["format"] == .string("webvtt"))
        #expect(spec.links.map { "\($0.from) -> \($0.to)" } == ["src -> rs", "rs -> vad", "vad -> asr", "asr -> srt", "asr -> vtt"])
    }

    @Test("outputs go next to the input, or into the output folder, named after the input")
    func outputPaths() {
        #expect(TranscriptionPipeline(outputs: [.srt, .txt]).outputPaths(for: "/calls/a.b.wav")
            == ["/calls/a.b.srt", "/calls/a.b.txt"])
        #expect(TranscriptionPipeline(outputs: [.json], outputDirectory: "/out").outputPaths(for: "/calls/a.wav")
            == ["/out/a.json"])
    }

    @Test("--set overrides apply to the printed config; a bad one names the node")
    func overrides() throws {
        let text = try TranscriptionPipeline().configText(input: "/a.wav", overrides: ["vad.aggressiveness=3"])
        #expect(text.contains("\"aggressiveness\": 3"), "\(text)")
        #expect(throws: GraphError.self) {
            _ = try TranscriptionPipeline().configText(input: "/a.wav", overrides: ["nosuch.x=1"])
        }
    }

    @Test("the graph builder expands the sink paths from the file source's path")
    func templatesExpand() throws {
        let spec = try TranscriptionPipeline(outputs: [.srt]).spec(input: "/calls/a.wav", baseDirectory: "/")
        let expanded = try InputTemplates.expand(spec, registry: .builtins)
        #expect(expanded.nodes.first { $0.id == "srt" }?.parameters["path"] == .string("/calls/a.srt"))
    }
}
