import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing

/// Every config mistake is a `GraphError` that names where it is and says how to fix it.
@Suite struct ConfigErrorTests {
    let tone = #""src": {"type": "test-tone"}"#
    let sink = #""out": {"type": "test-recorder"}"#

    func expectError(_ json: String, code: GraphError.Code = .invalidConfig, at location: String,
                     saying fragments: [String], overrides: [String] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = buildError(json, overrides: overrides) else {
            Issue.record("expected an error at \(location)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.location == location, "\(error)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(error.message.contains(fragment), "\(error.message) lacks \(fragment)", sourceLocation: sourceLocation)
        }
    }

    @Test func missingAndUnreadableFiles() throws {
        let missing = "/nonexistent/dir/pipeline.json"
        #expect(throws: GraphError(.missingInput, at: missing, "no such config file")) {
            try ConfigLoader.load(path: missing)
        }
        let folder = FileManager.default.temporaryDirectory.path
        #expect(throws: GraphError(.missingInput, at: folder, "cannot read the config file")) {
            try ConfigLoader.load(path: folder)
        }
        let scratch = try TemporaryFolder(prefix: "bad")
        let binary = scratch.url.appendingPathComponent("bad.json")
        try Data([0xFF, 0xFE, 0x00]).write(to: binary)
        #expect(throws: GraphError(.invalidConfig, at: binary.path, "the config file is not UTF-8 text")) {
            try ConfigLoader.load(path: binary.path)
        }
    }

    @Test func invalidJSONNamesLineAndColumn() {
        expectError("{\n  \"version\": 1,\n  \"nodes\": {,\n}", at: "test.json:3:13", saying: ["invalid JSON", "expected a key"])
    }

    @Test func versionIsRequiredAndChecked() {
        expectError(#"{"nodes": {}, "links": []}"#, at: "version", saying: ["missing", "\"version\": 1"])
        expectError(#"{"version": 2, "nodes": {}, "links": []}"#, at: "version", saying: ["unknown config version 2"])
        expectError(#"{"version": "1", "nodes": {}, "links": []}"#, at: "version", saying: ["expected an integer, got a string"])
    }

    @Test func topLevelShape() {
        expectError("[]", at: "(top level)", saying: ["must be a JSON object"])
        expectError(#"{"version": 1, "nodes": {}, "link": []}"#, at: "link", saying: ["unknown key", "did you mean \"links\""])
        expectError(#"{"version": 1, "links": []}"#, at: "nodes", saying: ["missing"])
        expectError(#"{"version": 1, "nodes": [], "links": []}"#, at: "nodes", saying: ["expected an object keyed by node id"])
        expectError(#"{"version": 1, "nodes": {}, "links": []}"#, at: "nodes", saying: ["no nodes"])
        expectError(#"{"version": 1, "nodes": {}, "links": "a -> b"}"#, at: "links", saying: ["expected an array of strings"])
        expectError(#"{"version": 1, "nodes": {}, "links": [3]}"#, at: "links[0]", saying: ["expected a string, got an integer"])
        expectError(#"{"version": 1, "strictFormats": "yes", "nodes": {}, "links": []}"#, at: "strictFormats",
                    saying: ["expected true or false"])
        expectError(#"{"version": 1, "plugins": "x.so", "nodes": {}, "links": []}"#, at: "plugins", saying: ["expected an array"])
    }

    @Test func sessionBlock() {
        expectError(config(tone + "," + sink, links: #""src -> out""#, extra: #""session": {"captionLanguage": "en-us"},"#),
                    at: "session.captionLanguage", saying: ["unsupported language \"en-us\"", "did you mean \"en-US\"", "zh-TW"])
        expectError(config(tone + "," + sink, links: #""src -> out""#, extra: #""session": {"caption": true},"#),
                    at: "session.caption", saying: ["unknown key", "did you mean \"captions\""])
        expectError(config(tone + "," + sink, links: #""src -> out""#, extra: #""session": {"captions": "on"},"#),
                    at: "session.captions", saying: ["expected true or false"])
    }

    @Test func participantsAndServeBlocks() throws {
        let pair = tone + "," + sink
        expectError(config(pair, links: #""src -> out""#, extra: #""session": {"participants": "alice"},"#),
                    at: "session.participants", saying: ["expected an array of strings"])
        expectError(config(pair, links: #""src -> out""#, extra: #""session": {"participants": ["alice", ""]},"#),
                    at: "session.participants[1]", saying: ["needs a user name"])
        expectError(config(pair, links: #""src -> out""#, extra: #""serve": true,"#),
                    at: "serve", saying: ["expected an object"])
        expectError(config(pair, links: #""src -> out""#, extra: #""serve": {"port": 80},"#),
                    at: "serve.port", saying: ["unknown key", "listen"])
        for bad in ["localhost:80", "127.0.0.1", "127.0.0.1:99999", "1.2.3:80", "256.0.0.1:80", ":80"] {
            expectError(config(pair, links: #""src -> out""#, extra: #""serve": {"listen": "\#(bad)"},"#),
                        at: "serve.listen", saying: ["HOST:PORT", bad])
        }
        let graph = try buildGraph(config(pair, links: #""src -> out""#, extra: """
            "session": {"participants": ["alice", "bob"]}, "serve": {"listen": "0.0.0.0:0", "store": "out/s.sqlite"},
            """))
        #expect(graph.session.participants == ["alice", "bob"])
        #expect(graph.session.effectiveParticipants == ["alice", "bob"])
        #expect(graph.serve?.listen == "0.0.0.0:0")
        #expect(graph.serve?.store?.hasSuffix("/out/s.sqlite") == true)
        let plain = try buildGraph(config(pair, links: #""src -> out""#))
        #expect(plain.serve == nil)
        #expect(plain.session.effectiveParticipants == [SessionSettings.currentUser])
    }

    @Test func sessionDefaultsFollowTheSDKs() throws {
        let graph = try buildGraph(config(tone + "," + sink, links: #""src -> out""#))
        #expect(graph.session == SessionSettings(autoStartTranscription: false, captions: false, captionLanguage: "en-US"))
        let custom = try buildGraph(config(tone + "," + sink, links: #""src -> out""#,
            extra: #""session": {"id": "s1", "room": "r", "autoStartTranscription": true, "captions": true, "captionLanguage": "de-DE"},"#))
        #expect(custom.session == SessionSettings(id: "s1", room: "r", autoStartTranscription: true, captions: true, captionLanguage: "de-DE"))
    }

    @Test func nodeEntries() {
        expectError(config(#""bad id!": {"type": "test-tone"}"#, links: ""), at: #"nodes["bad id!"]"#, saying: ["bad node id"])
        expectError(config(#""src": 3"#, links: ""), at: "nodes.src", saying: ["expected an object with a \"type\""])
        expectError(config(#""src": {"path": "x"}"#, links: ""), at: "nodes.src.type", saying: ["missing", "audiograph nodes"])
        expectError(config(#""src": {"type": 7}"#, links: ""), at: "nodes.src.type", saying: ["expected a string"])
    }

    @Test func unknownNodeTypeSuggestsTheClosest() {
        expectError(config(#""src": {"type": "test-tonne"}"#, links: ""), at: "nodes.src.type",
                    saying: ["unknown node type \"test-tonne\"", "did you mean \"test-tone\""])
    }

    @Test func parameters() {
        expectError(config(#""src": {"type": "test-tone", "sampelRate": 8000},"# + sink, links: #""src -> out""#),
                    at: "nodes.src.sampelRate", saying: ["unknown parameter for test-tone", "did you mean \"sampleRate\""])
        expectError(config(#""src": {"type": "test-tone", "sampleRate": "fast"},"# + sink, links: #""src -> out""#),
                    at: "nodes.src.sampleRate", saying: ["expected integer 1000…384000, got a string \"fast\""])
        expectError(config(#""src": {"type": "test-tone", "sampleRate": 44100.5},"# + sink, links: #""src -> out""#),
                    at: "nodes.src.sampleRate", saying: ["expected integer", "got a number"])
        expectError(config(#""src": {"type": "test-tone", "sampleRate": 999},"# + sink, links: #""src -> out""#),
                    at: "nodes.src.sampleRate", saying: ["999 is out of range; expected 1000…384000"])
        expectError(config(#""src": {"type": "test-tone", "seconds": -1},"# + sink, links: #""src -> out""#),
                    at: "nodes.src.seconds", saying: ["-1 is out of range"])
        expectError(config(#""src": {"type": "test-tone", "endless": 1},"# + sink, links: #""src -> out""#),
                    at: "nodes.src.endless", saying: ["expected boolean, got an integer"])
    }

    @Test func missingRequiredParameter() {
        var registry = testRegistry()
        try! registry.register(descriptor: NodeDescriptor(
            type: "needs-path", summary: "", category: .source,
            parameters: [ParameterSpec("path", .path(.input), required: true, doc: "The file.")],
            inputs: [], outputs: [.init(produces: [.audio], forwardsInput: false)]), origin: "test") { _ in
            PassNode.self as Any as! any AudioNode
        }
        do {
            _ = try buildGraph(config(#""src": {"type": "needs-path"},"# + sink, links: #""src -> out""#), registry: registry)
            Issue.record("expected an error")
        } catch {
            #expect(error.location == "nodes.src.path")
            #expect(error.message.contains("missing required parameter"))
        }
    }

    @Test func links() {
        let nodes = tone + "," + sink
        expectError(config(nodes, links: #""src""#), at: "links[0]", saying: ["at least two nodes"])
        expectError(config(nodes, links: #""src -> ""#), at: "links[0]", saying: ["is not a node id"])
        expectError(config(nodes, links: #""src -> a.b.c""#), at: "links[0]", saying: ["is not a node id or node.port"])
        expectError(config(nodes, links: #""src -> ouy""#), at: "links[0]", saying: ["no node \"ouy\"", "did you mean \"out\""])
        expectError(config(nodes, links: #""srx -> out""#), at: "links[0]", saying: ["no node \"srx\""])
        expectError(config(nodes, links: #""src.left -> out""#), at: "links[0]",
                    saying: ["\"src\" has no output port \"left\"", "its outputs: out"])
        expectError(config(nodes, links: #""src -> out.side""#), at: "links[0]", saying: ["has no input port \"side\""])
        expectError(config(nodes, links: #""out -> src""#), at: "links[0]", saying: ["\"out\" (test-recorder) has no outputs"])
        expectError(config(nodes + #", "p": {"type": "test-pass"}"#, links: #""src -> p", "p -> src""#), at: "links[1]",
                    saying: ["has no inputs"])
        expectError(config(nodes + #", "b": {"type": "test-tone"}"#, links: #""src -> out", "b -> out""#), at: "links[1]",
                    saying: ["already fed by the link at links[0]"])
        expectError(config(nodes + #", "p": {"type": "test-pass"}"#, links: #""src -> out", "p -> p""#), at: "links[1]",
                    saying: ["linked to itself"])
    }

    @Test func cyclesAreRejected() {
        let nodes = tone + #", "a": {"type": "test-pass"}, "b": {"type": "test-events"}, "c": {"type": "test-pass"}"#
        expectError(config(nodes, links: #""src -> a", "b -> c -> b""#), at: "links[1]",
                    saying: ["cycle through \"b\", \"c\""])
        let cycle = #""a": {"type": "test-pass"}, "b": {"type": "test-pass"}, "c": {"type": "test-pass"}"#
        expectError(config(cycle, links: #""a -> b -> c -> a""#), at: "links[0]", saying: ["cycle", "\"a\", \"b\", \"c\""])
    }

    @Test func unconnectedNodes() {
        expectError(config(tone + "," + sink + #", "lonely": {"type": "test-pass"}"#, links: #""src -> out""#),
                    at: "nodes.lonely", saying: ["is not linked to anything"])
        expectError(config(tone + "," + sink + #", "p": {"type": "test-pass"}"#, links: #""src -> out", "p -> out2""#),
                    at: "links[1]", saying: ["no node \"out2\""])
    }

    @Test func consumerNeedingFramesTheProducerCannotMake() {
        expectError(config(tone + #", "cc": {"type": "test-captions"}"#, links: #""src -> cc""#), at: "links[0]",
                    saying: ["test-captions \"cc\" needs transcript frames", "\"src\" (test-tone) makes only audio"])
        // Through a pass-through filter the kinds are carried, and still lack transcripts.
        expectError(config(tone + #", "lv": {"type": "test-events"}, "cc": {"type": "test-captions"}"#,
                           links: #""src -> lv -> cc""#), at: "links[0]", saying: ["makes only audio, level"])
    }

    @Test func formatMismatchInsertsAResampler() throws {
        let json = config(#""src": {"type": "test-tone", "sampleRate": 44100, "channels": 2},"#
            + #""out": {"type": "test-recorder", "sampleRates": "16000", "channels": 1}"#, links: #""src -> out""#)
        let graph = try buildGraph(json)
        #expect(graph.nodes.map(\.id) == ["src", "src-to-out", "out"])
        let inserted = try #require(graph.node("src-to-out"))
        #expect(inserted.autoInserted)
        #expect(inserted.descriptor.type == "resampler")
        #expect(inserted.outputFormat == AudioFormat(sampleRate: 16000, channels: 1))
        #expect(graph.node("out")?.inputFormat == AudioFormat(sampleRate: 16000, channels: 1))
        #expect(graph.notes == ["inserted resampler \"src-to-out\" between \"src\" and \"out\": 44100 Hz stereo -> 16000 Hz mono"])
        #expect(graph.summary.contains("(auto-inserted)"))
        #expect(graph.links.map(\.description) == ["src -> src-to-out", "src-to-out -> out"])
    }

    @Test func strictFormatsMakesAMismatchAnError() {
        let json = config(#""src": {"type": "test-tone", "sampleRate": 44100},"#
            + #""out": {"type": "test-recorder", "sampleRates": "16000,48000"}"#, links: #""src -> out""#,
            extra: #""strictFormats": true,"#)
        expectError(json, at: "links[0]", saying: ["\"src\" outputs 44100 Hz mono but test-recorder \"out\" accepts 16000|48000 Hz",
                                                  "strictFormats"])
    }

    @Test func overrides() throws {
        let json = config(tone + "," + sink, links: #""src -> out""#)
        let graph = try buildGraph(json, overrides: ["src.sampleRate=8000", "session.captions=true"])
        #expect(graph.node("src")?.outputFormat == AudioFormat(sampleRate: 8000, channels: 1))
        #expect(graph.session.captions)
        expectError(json, code: .usage, at: "--set src.sampleRate", saying: ["expected node.param=value"], overrides: ["src.sampleRate"])
        expectError(json, code: .usage, at: "--set srx.sampleRate=1", saying: ["no node \"srx\"", "did you mean \"src\""],
                    overrides: ["srx.sampleRate=1"])
        expectError(json, code: .usage, at: "--set src=1", saying: ["expected node.param=value"], overrides: ["src=1"])
        expectError(json, code: .usage, at: "--set src.type=x", saying: ["type cannot be overridden"], overrides: ["src.type=x"])
        // An override is validated like the file.
        expectError(json, at: "nodes.src.sampleRate", saying: ["expected integer"], overrides: ["src.sampleRate=fast"])
    }

    /// The loader reads `plugins`; loading them is `Plugins.prepare`'s job (AudioGraphPlugins), so the builder
    /// builds with whatever registry it was given.
    @Test func pluginsAreParsedAndLeftToThePluginLoader() throws {
        let json = config(tone + "," + sink, links: #""src -> out""#, extra: #""plugins": ["libgain.so", "/abs/libx.so"],"#)
        let spec = try ConfigLoader.parse(json, baseDirectory: "/srv", fileName: "test.json")
        #expect(spec.plugins == ["libgain.so", "/abs/libx.so"])
        _ = try buildGraph(json)
        expectError(config(tone + "," + sink, links: #""src -> out""#, extra: #""plugins": [3],"#),
                    at: "plugins[0]", saying: ["expected a string"])
    }

    @Test func relativePathsResolveAgainstTheConfigFolder() {
        let configuration = NodeConfiguration(id: "n", type: "t", values: JSONObject([("path", "audio/a.wav")]),
                                              baseDirectory: "/srv/pipelines")
        #expect(configuration.path("path") == "/srv/pipelines/audio/a.wav")
        #expect(NodeConfiguration.resolve("/abs/x.wav", against: "/srv") == "/abs/x.wav")
        #expect(NodeConfiguration.resolve("../x.wav", against: "/srv/pipelines") == "/srv/x.wav")
    }

    @Test func missingInputFileIsExit66NamingTheParameter() {
        var registry = testRegistry()
        try! registry.register(descriptor: NodeDescriptor(
            type: "reads-file", summary: "", category: .source,
            parameters: [ParameterSpec("path", .path(.input), required: true, doc: "The file.")],
            inputs: [], outputs: [.init(produces: [.audio], forwardsInput: false)]), origin: "test") { _ in
            throw GraphError(.invalidConfig, at: "", "should not be reached")
        }
        do {
            _ = try buildGraph(config(#""src": {"type": "reads-file", "path": "no/such.wav"},"# + sink,
                                      links: #""src -> out""#), registry: registry, base: "/tmp")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .missingInput)
            #expect(error.location == "nodes.src.path")
            #expect(error.message == "no such file: /tmp/no/such.wav")
        }
    }
}
