import AudioGraph
import Foundation
import AudioGraphTestKit
import Testing

/// Issue 18, item 3 (inline pipelines): `InlinePipeline` turns gst-launch's shape into a config: chains,
/// branches from a named node, values typed from the declarations, and every error at its column.
@Suite("InlinePipeline", .ownThreads)
struct InlinePipelineTests {
    static func config(_ expression: String) throws -> (nodes: JSONObject, links: [String]) {
        let root = try InlinePipeline.config(expression, registry: .builtins)
        let nodes = root.objectValue?["nodes"]?.objectValue ?? JSONObject()
        let links = root.objectValue?["links"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return (nodes, links)
    }

    @Test("a chain: nodes named after their types, typed values, one link chain")
    func chain() throws {
        let (nodes, links) = try Self.config("file-source path=in.wav ! resampler sampleRate=16000 channels=1 ! wav-sink path=out.wav")
        #expect(nodes.keys == ["file-source", "resampler", "wav-sink"])
        #expect(nodes["resampler"]?.objectValue?["sampleRate"] == .number(16000))
        #expect(nodes["file-source"]?.objectValue?["path"] == .string("in.wav"))
        #expect(links == ["file-source -> resampler -> wav-sink"])
    }

    @Test("a tee: name=ID, then ID. branches from it; a second node of a type gets TYPE-2")
    func tee() throws {
        let (nodes, links) = try Self.config("""
            file-source path=a.wav ! vad ! recognizer name=asr engine=pocketsphinx ! caption-sink format=srt path=a.srt \
            asr. ! caption-sink format=webvtt path=a.vtt
            """)
        #expect(nodes.keys == ["file-source", "vad", "asr", "caption-sink", "caption-sink-2"])
        #expect(links == ["file-source -> vad -> asr -> caption-sink", "asr -> caption-sink-2"])
        #expect(nodes["caption-sink-2"]?.objectValue?["format"] == .string("webvtt"))
    }

    @Test("booleans and numbers by declaration, quoted values keep their spaces, '!' may touch its neighbours")
    func typedValues() throws {
        let (nodes, links) = try Self.config(#"file-source path="my talk.wav" realtime=true!level-meter intervalMs=50!wav-sink path='o.wav'"#)
        #expect(nodes["file-source"]?.objectValue?["realtime"] == .bool(true))
        #expect(nodes["file-source"]?.objectValue?["path"] == .string("my talk.wav"))
        #expect(nodes["level-meter"]?.objectValue?["intervalMs"] == .number(50))
        #expect(links == ["file-source -> level-meter -> wav-sink"])
    }

    @Test("every error names its column", arguments: [
        ("file-source path=a.wav ! resampelr", 26, "did you mean"),
        ("file-source path=a.wav ! resampler sampleRate=fast", 36, "sampleRate"),
        ("file-source path=a.wav ! resampler sampleRat=8000", 36, "did you mean"),
        ("file-source path=a.wav ! resampler sampleRate=5", 36, "1000"),
        ("! wav-sink path=b.wav", 1, "needs a node before it"),
        ("file-source path=a.wav !", 24, "at the end"),
        ("file-source path=a.wav ! ! wav-sink path=b.wav", 26, "'!' after '!'"),
        ("file-source path=a.wav wav-sink path=b.wav", 24, "missing '!'"),
        ("file-source path=a.wav ! tt.", 26, "no node is named"),
        ("path=a.wav", 1, "belongs after a node type"),
        ("file-source path=\"a.wav", 18, "unterminated"),
        ("file-source name=x path=a.wav ! wav-sink name=x path=b.wav", 47, "duplicate node name"),
        ("file-source name=bad/id path=a.wav", 18, "bad node name"),
        ("file-source path=a.wav path=b.wav", 24, "given twice"),
        ("", 1, "no nodes"),
    ])
    func errors(expression: String, column: Int, message: String) {
        do {
            _ = try InlinePipeline.config(expression, registry: .builtins)
            Issue.record("\(expression) was accepted")
        } catch {
            #expect(error.code == .invalidConfig, "\(error)")
            #expect(error.location == "-e column \(column)", "\(expression): \(error)")
            #expect(error.message.contains(message), "\(expression): \(error)")
        }
    }
}
