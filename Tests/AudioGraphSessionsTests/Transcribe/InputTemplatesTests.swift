import AudioGraph
import Foundation
import AudioGraphTestKit
import Testing

/// Issue 18, item 4 (batch outputs): output paths may use `{stem}`, `{name}`, `{dir}` and `{session}` of the
/// input, and a template without a single file-source to take them from is a config error naming the parameter.
@Suite("InputTemplates", .ownThreads)
struct InputTemplatesTests {
    @Test("each placeholder is replaced from the input path and the session")
    func placeholders() {
        #expect(InputTemplates.expand("{dir}/{stem}.srt", input: "/calls/a.b.flac", session: nil) == "/calls/a.b.srt")
        #expect(InputTemplates.expand("out/{name}-{session}.vtt", input: "/calls/x.wav", session: "call-7")
            == "out/x.wav-call-7.vtt")
        #expect(InputTemplates.expand("out/{session}.json", input: "/calls/x.wav", session: nil) == "out/x.json")
        #expect(!InputTemplates.hasPlaceholder("out/{other}.srt"))
    }

    @Test("only output paths are expanded; the input path (relative to the config) names them")
    func outputsOnly() throws {
        let spec = try ConfigLoader.parse("""
            {"version": 1, "nodes": {"src": {"type": "file-source", "path": "in/{stem}.wav"},
             "out": {"type": "wav-sink", "path": "{dir}/{stem}-copy.wav"}}, "links": ["src -> out"]}
            """, baseDirectory: "/base")
        let expanded = try InputTemplates.expand(spec, registry: .builtins)
        #expect(expanded.nodes[0].parameters["path"] == .string("in/{stem}.wav"))
        #expect(expanded.nodes[1].parameters["path"] == .string("/base/in/{stem}-copy.wav"))
    }

    @Test("a template with no file source is an error at the parameter")
    func noSource() throws {
        let spec = try ConfigLoader.parse("""
            {"version": 1, "nodes": {"mic": {"type": "mic-source"}, "out": {"type": "wav-sink", "path": "{stem}.wav"}},
             "links": ["mic -> out"]}
            """, baseDirectory: "/base")
        do {
            _ = try InputTemplates.expand(spec, registry: .builtins)
            Issue.record("expanded without an input")
        } catch {
            #expect(error.code == .invalidConfig && error.location == "nodes.out.path", "\(error)")
            #expect(error.message.contains("no source that reads a file"), "\(error)")
        }
    }
}
