import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// The repository root (the folder holding Package.swift).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Every example config runs, with its outputs sent to a temporary folder.
@Suite(.ownThreads) struct ExamplesTests {
    static let examples: [String] = {
        let folder = packageRoot.appendingPathComponent("examples")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test func thereAreExamples() {
        #expect(!Self.examples.isEmpty)
    }

    @Test(arguments: examples)
    func exampleRuns(name: String) async throws {
        let path = packageRoot.appendingPathComponent("examples/\(name)").path
        var spec = try ConfigLoader.load(path: path)
        let registry = NodeRegistry.builtins
        let outputFolder = try TemporaryFolder(prefix: "example")
        var outputs: [String] = []
        for index in spec.nodes.indices {
            let descriptor = try #require(registry.entry(for: spec.nodes[index].type)).descriptor
            // A call's store is written only by its participants' branches: kept out of the repository too.
            let shared = spec.participant != nil
            for parameter in descriptor.parameters
            where parameter.kind == .path(.output) || (shared && parameter.kind == .path(.sharedOutput)) {
                guard let original = spec.nodes[index].parameters[parameter.name]?.stringValue else { continue }
                let redirected = outputFolder.url.appendingPathComponent(spec.nodes[index].id + "-" + URL(fileURLWithPath: original).lastPathComponent).path
                spec.nodes[index].parameters[parameter.name] = .string(redirected)
                outputs.append(redirected)
            }
        }
        // Realtime pacing would make the test as slow as the audio: run examples flat out.
        for index in spec.nodes.indices where spec.nodes[index].parameters["realtime"] != nil {
            spec.nodes[index].parameters["realtime"] = false
        }
        // A serve block: serve on a free port while it runs, and watch its captions as a viewer would.
        var viewer: EventStream?
        var server: TranscriptServer?
        if spec.serve != nil { spec.serve?.listen = "127.0.0.1:0" }
        let graph = try GraphBuilder(registry: registry).build(spec)
        let session = TranscriptionSession(graph: graph)
        if let serve = graph.serve, let store = graph.instances(of: (any TranscriptStoreRole).self).first {
            let started = try TranscriptServer(store: try SQLiteTranscriptStore(path: serve.store ?? store.storeLocation),
                                               listen: try #require(ListenAddress(serve.listen)))
            let live = started.attach(session, id: store.sessionID, room: graph.session.room ?? "",
                                      participants: graph.session.effectiveParticipants)
            let stream = EventStream()
            live.subscribe(stream)
            (server, viewer) = (started, stream)
        }
        let summary: RunSummary
        if session.takesParticipants {
            // A call: two participants join, speak and leave, then the call ends.
            summary = try await Self.runCall(session)
        } else {
            summary = try session.run()
        }
        server?.shutdown()
        if let viewer {
            let text = viewer.drain()
            // (Run flat out, the recognizer's "auto" partials are off: finals only.)
            #expect(text.contains("\"type\":\"final\""), "the viewer saw finals")
            #expect(text.hasSuffix("event: end\ndata: {}\n\n"), "the viewer was told the session ended")
        }
        #expect(!summary.interrupted)
        #expect(summary.sources.allSatisfy { $0.framesProduced > 0 })
        if session.takesParticipants {
            let vtt = try #require(outputs.first { $0.hasSuffix(".vtt") })
            let text = try String(contentsOfFile: vtt, encoding: .utf8)
            #expect(text.contains("<v alice>") && text.contains("<v bob>"), "both speakers captioned:\n\(text)")
        }
        for output in outputs {
            let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            #expect(size > 100, "\(output) was written")
        }
    }
}

extension ExamplesTests {
    /// Runs a call example: alice and bob each send 8 s of the bundled call (16 kHz mono Float32, 100 ms at a
    /// time) through a branch of the config's participant block, then leave; the call then ends.
    static func runCall(_ session: TranscriptionSession) async throws -> RunSummary {
        let folder = try TemporaryFolder(prefix: "example-call")
        let (_, result) = session.start()
        try await session.waitUntilStarted()
        for (participant, start) in [("alice", 0), ("bob", 16)] {
            let samples = try await CallPipelineTests.speech(from: start, seconds: 8, rate: 16000, channels: 1, in: folder)
            let feed = ParticipantAudioFeed(participant: participant, format: AudioFormat(sampleRate: 16000, channels: 1))
            let branch = try session.addParticipant(feed)
            for offset in stride(from: 0, to: samples.count, by: 1600) {
                _ = feed.write(Array(samples[offset..<min(offset + 1600, samples.count)]))
            }
            feed.close()
            #expect(await branch.waitUntilEnded() == nil)
        }
        session.endCall()
        return try await result.value
    }
}

/// docs/nodes.md is generated from the node declarations; this fails when it is stale.
@Suite(.ownThreads) struct GeneratedDocsTests {
    @Test func nodeReferenceIsCurrent() throws {
        let file = packageRoot.appendingPathComponent("docs/nodes.md")
        let current = try String(contentsOf: file, encoding: .utf8)
        #expect(current == NodeDocumentation.markdown(.builtins),
                "docs/nodes.md is stale: run `swift run audiograph docs nodes > docs/nodes.md`")
    }

    @Test func everyBuiltinIsDocumentedWithItsParameters() {
        let markdown = NodeDocumentation.markdown(.builtins)
        for descriptor in NodeRegistry.builtins.descriptors {
            #expect(markdown.contains("## `\(descriptor.type)`"))
            for parameter in descriptor.parameters {
                #expect(markdown.contains("| `\(parameter.name)` |"))
            }
        }
    }

    @Test func schemaDescribesEveryBuiltin() throws {
        let schema = JSONWriter.compact(ConfigSchema.make(.builtins))
        for type in NodeRegistry.builtins.typeNames {
            #expect(schema.contains("{\"const\":\"\(type)\"}"))
        }
        #expect(try JSONParser.parse(schema).objectValue?["$schema"] != nil)
    }
}
