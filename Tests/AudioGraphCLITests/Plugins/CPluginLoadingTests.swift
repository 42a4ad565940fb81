import AudioGraphTestKit
import Foundation
import Testing

/// Plugins that must be refused, each with a clear reason, by `audiograph run` (a config's "plugins"),
/// `audiograph plugins` and `AUDIOGRAPH_PLUGIN_PATH` — and the one that loads and fails mid-stream. The plugins
/// are C, compiled with gcc at test time against audiograph_plugin.h alone (CTestPlugin).
@Suite struct CPluginLoadingTests {
    /// A folder with a 1 s 16 kHz mono tone (in.wav) and `config.json`: in.wav -> out.wav, with `plugins`.
    static func folder(plugins: [String]) async throws -> TemporaryFolder {
        let directory = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: directory, sampleRate: 16000, channels: 1, seconds: 1)
        try directory.write("config.json", config(plugins: plugins))
        return directory
    }

    static func config(plugins: [String], nodes: String = #""out": { "type": "wav-sink", "path": "out.wav" }"#,
                       links: String = #""src -> out""#) -> String {
        let list = plugins.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            {
              "version": 1,
              "plugins": [\(list)],
              "nodes": {
                "src": { "type": "file-source", "path": "in.wav" },
                \(nodes)
              },
              "links": [\(links)]
            }
            """
    }

    /// `run` refuses the config's plugin with `exit` and a message holding `reason`; `plugins CONFIG` lists it as
    /// refused with the same reason and exits the same way; nothing crashes.
    static func expectRefused(_ library: String, in directory: TemporaryFolder, exit status: Int32, reason: String,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet"], in: directory)
        expectError(run, exit: status, at: "plugins[0]", sourceLocation: sourceLocation)
        #expect(run.stderr.contains(library) && run.stderr.contains(reason), "\(run)", sourceLocation: sourceLocation)
        #expect(!directory.exists("out.wav"), "nothing ran", sourceLocation: sourceLocation)

        let listed = try await PluginTests.audiograph(["plugins", "config.json"], in: directory)
        #expect(listed.status == status && !listed.signalled, "\(listed)", sourceLocation: sourceLocation)
        #expect(listed.stdoutLines.first == "refused  \(library)  (plugins[0])", "\(listed)", sourceLocation: sourceLocation)
        #expect(listed.stdout.contains(reason), "\(listed)", sourceLocation: sourceLocation)
    }

    @Test func wrongABIVersionIsRefusedClearly() async throws {
        let directory = try await Self.folder(plugins: ["abi99.so"])
        let library = try await CTestPlugin.build(.abi(99), named: "abi99.so", in: directory)
        try await Self.expectRefused(library, in: directory, exit: 69,
                                     reason: "built for plugin ABI 99, but this audiograph loads ABI 2: rebuild the plugin")
    }

    @Test func libraryWithoutEntryPointIsRefused() async throws {
        let directory = try await Self.folder(plugins: ["no-entry.so"])
        let library = try await CTestPlugin.build(.noEntryPoint, named: "no-entry.so", in: directory)
        try await Self.expectRefused(library, in: directory, exit: 69,
                                     reason: "no entry point audiograph_plugin_entry; is it an audiograph plugin?")
    }

    @Test func entryPointReturningNullIsRefused() async throws {
        let directory = try await Self.folder(plugins: ["null-entry.so"])
        let library = try await CTestPlugin.build(.entryReturnsNull, named: "null-entry.so", in: directory)
        try await Self.expectRefused(library, in: directory, exit: 69,
                                     reason: "the plugin's entry point refused to load (it returned no plugin table)")
    }

    @Test func textFileNamedSoIsNotALibrary() async throws {
        let directory = try await Self.folder(plugins: ["text.so"])
        let library = try directory.write("text.so", "this is not a shared library\n")
        try await Self.expectRefused(library, in: directory, exit: 69, reason: "not a loadable shared library: ")
    }

    @Test func missingPluginFileExits66() async throws {
        let directory = try await Self.folder(plugins: ["nowhere/missing.so"])
        try await Self.expectRefused(directory.path("nowhere/missing.so"), in: directory, exit: 66,
                                     reason: "no such file: \(directory.path("nowhere/missing.so"))")
    }

    @Test func malformedDescriptorIsRefused() async throws {
        let directory = try await Self.folder(plugins: ["malformed.so"])
        let library = try await CTestPlugin.build(.malformedDescriptor, named: "malformed.so", in: directory)
        try await Self.expectRefused(library, in: directory, exit: 69,
                                     reason: "malformed plugin: node type 0's declaration: not JSON")
    }

    @Test func sourceNodeTypeIsRefused() async throws {
        let directory = try await Self.folder(plugins: ["source.so"])
        let library = try await CTestPlugin.build(.sourceNode, named: "source.so", in: directory)
        try await Self.expectRefused(library, in: directory, exit: 69,
                                     reason: "node type \"c-passthrough\" is a source; plugins provide filters, sinks")
    }

    @Test func duplicateNodeTypeIsRefusedNamingBothPlugins() async throws {
        let directory = try await Self.folder(plugins: ["first.so", "second.so"])
        let first = try await CTestPlugin.build(.node(type: "c-dup", pluginName: "first"), named: "first.so", in: directory)
        let second = try await CTestPlugin.build(.node(type: "c-dup", pluginName: "second"), named: "second.so", in: directory)

        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet"], in: directory)
        expectError(run, exit: 69, at: "plugins[1]")
        #expect(run.stderr.contains("\(second): node type \"c-dup\" is already registered (from \(first))"), "\(run)")

        let listed = try await PluginTests.audiograph(["plugins", "config.json"], in: directory)
        #expect(listed.status == 69, "\(listed)")
        #expect(listed.stdoutLines == [
            "loaded   \(first)  (plugins[0])",
            "         first 0.1.0",
            "         node type  c-dup: Passes audio through; fails on buffer failAfter when set",
            "refused  \(second)  (plugins[1])",
            "         node type \"c-dup\" is already registered (from \(first))",
        ], "\(listed)")
    }

    @Test func nodeTypeTakenByABuiltInIsRefused() async throws {
        let directory = try await Self.folder(plugins: ["wav.so"])
        let library = try await CTestPlugin.build(.node(type: "wav-sink"), named: "wav.so", in: directory)
        try await Self.expectRefused(library, in: directory, exit: 69,
                                     reason: "node type \"wav-sink\" is already registered (from built-in)")
    }

    @Test func pluginNodeRunsInAGraph() async throws {
        let directory = try await Self.folder(plugins: ["pass.so"])
        let library = try await CTestPlugin.build(.node(type: "c-passthrough"), named: "pass.so", in: directory)
        try directory.write("config.json", Self.config(
            plugins: [library],
            nodes: #""f": { "type": "c-passthrough" }, "out": { "type": "wav-sink", "path": "out.wav" }"#,
            links: #""src -> f -> out""#))
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet"], in: directory)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        #expect(try await Harness.soxi("-s", "out.wav", in: directory) == 16000, "every sample went through")

        let listed = try await PluginTests.audiograph(["plugins", "config.json"], in: directory)
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdoutLines.first == "loaded   \(library)  (plugins[0])", "\(listed)")
        #expect(listed.stdout.contains("node type  c-passthrough: Passes audio through"), "\(listed)")
    }

    @Test func nodeThatFailsMidStreamStopsTheGraphWithItsID() async throws {
        let directory = try await Self.folder(plugins: ["fail.so"])
        try await Harness.makeWAV("in.wav", in: directory, sampleRate: 16000, channels: 1, seconds: 10)
        let library = try await CTestPlugin.build(.node(type: "c-passthrough"), named: "fail.so", in: directory)
        // `keep` hangs off the source before the plugin node, `out` after it: both must be finalized.
        try directory.write("config.json", Self.config(
            plugins: [library],
            nodes: #""keep": { "type": "wav-sink", "path": "keep.wav" }, "#
                + #""f": { "type": "c-passthrough", "failAfter": 3 }, "out": { "type": "wav-sink", "path": "out.wav" }"#,
            links: #""src -> keep", "src -> f -> out""#))

        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet"], in: directory)
        expectError(run, exit: 70, at: "node f")
        #expect(run.stderr.contains("audiograph: node f: synthetic failure on buffer 3"), "\(run)")

        let events = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl"], in: directory)
        #expect(events.status == 70, "\(events)")
        let error = PluginTests.events(events).last
        #expect(error?["type"] as? String == "error" && error?["node"] as? String == "f", "\(events)")

        // Valid headers: sox reads both, and the one before the plugin got the buffers it was sent.
        let kept = try await Harness.soxi("-s", "keep.wav", in: directory)
        let passed = try await Harness.soxi("-s", "out.wav", in: directory)
        #expect(kept > 0 && kept < 160_000, "the run stopped early; keep.wav holds \(kept) samples")
        #expect(passed >= 0 && passed < kept, "out.wav holds the two buffers before the failure: \(passed)")

        // The plugin itself loaded fine: what failed was its node, at run time.
        let listed = try await PluginTests.audiograph(["plugins", "config.json"], in: directory)
        #expect(listed.status == 0 && listed.stdoutLines.first == "loaded   \(library)  (plugins[0])", "\(listed)")
    }

    @Test func pluginErrorAtCreateNamesTheParameter() async throws {
        let directory = try await Self.folder(plugins: ["pass.so"])
        let library = try await CTestPlugin.build(.node(type: "c-passthrough"), named: "pass.so", in: directory)
        try directory.write("config.json", Self.config(
            plugins: [library],
            nodes: #""f": { "type": "c-passthrough", "failAfter": 13 }, "out": { "type": "wav-sink", "path": "out.wav" }"#,
            links: #""src -> f -> out""#))
        let run = try await PluginTests.audiograph(["validate", "config.json"], in: directory)
        expectError(run, exit: 65, at: "nodes.f.failAfter")
        #expect(run.stderr.contains("13 buffers is unlucky"), "\(run)")

        // The host validates the plugin's declared parameters before the plugin sees them.
        try directory.write("config.json", Self.config(
            plugins: [library],
            nodes: #""f": { "type": "c-passthrough", "failAfter": -1, "bogus": 1 }, "out": { "type": "wav-sink", "path": "out.wav" }"#,
            links: #""src -> f -> out""#))
        let invalid = try await PluginTests.audiograph(["validate", "config.json"], in: directory)
        #expect(invalid.status == 65, "\(invalid)")
        #expect(invalid.stderr.hasPrefix("audiograph: nodes.f."), "\(invalid)")
    }

    @Test func brokenPluginOnSearchPathIsAWarningAndListedAsRefused() async throws {
        let directory = try await Self.folder(plugins: [])
        let plugins = directory.path("plugins")
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        let bad = try await CTestPlugin.build(.abi(99), named: "plugins/bad.so", in: directory)
        let good = try await CTestPlugin.build(.node(type: "c-passthrough"), named: "plugins/good.so", in: directory)

        // The run does not need the plugin: it goes on, with one warning saying why the plugin was skipped.
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet"], in: directory, pluginPath: plugins)
        #expect(run.status == 0, "\(run)")
        #expect(directory.exists("out.wav"))
        let warnings = run.stderrLines.filter { $0.hasPrefix("audiograph: warning: plugin \(bad) skipped: built for plugin ABI 99") }
        #expect(warnings.count == 1, "one warning for the broken plugin\n\(run)")

        // `audiograph plugins` lists both (a folder's *.so, sorted) and exits 69 for the refused one.
        let listed = try await PluginTests.audiograph(["plugins"], in: directory, pluginPath: plugins)
        #expect(listed.status == 69, "\(listed)")
        #expect(listed.stdoutLines.first == "refused  \(bad)  (AUDIOGRAPH_PLUGIN_PATH)", "\(listed)")
        #expect(listed.stdout.contains("built for plugin ABI 99, but this audiograph loads ABI 2"), "\(listed)")
        #expect(listed.stdout.contains("loaded   \(good)  (AUDIOGRAPH_PLUGIN_PATH)"), "\(listed)")

        // Its node types are there for every command.
        let nodes = try await PluginTests.audiograph(["nodes"], in: directory, pluginPath: plugins)
        #expect(nodes.status == 0 && nodes.stdoutLines.contains { $0.hasPrefix("c-passthrough ") }, "\(nodes)")
        let inspect = try await PluginTests.audiograph(["inspect", "c-passthrough"], in: directory, pluginPath: plugins)
        #expect(inspect.status == 0 && inspect.stdout.contains("from: \(good)"), "\(inspect)")
    }

    @Test func noPluginsIsSaidPlainly() async throws {
        let directory = try TemporaryFolder()
        let listed = try await PluginTests.audiograph(["plugins"], in: directory)
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdoutLines == [#"no plugins (set AUDIOGRAPH_PLUGIN_PATH, or name them in a config's "plugins")"#])
    }
}
