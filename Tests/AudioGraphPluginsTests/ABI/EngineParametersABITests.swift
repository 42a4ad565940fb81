import AudioGraphCore
@testable import AudioGraphPluginKit
@testable import AudioGraphPlugins
import CAudioGraphPlugin
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 15, "plugin engines declare their parameters across the plugin ABI; a plugin built for the old version
/// is refused with a message saying so": ABI 2's `parameters_json` round trip (AudioGraphPluginKit and a C
/// plugin), a real ABI-1 binary refused naming both versions and how to rebuild, and a plugin engine named like a
/// built-in one refused naming the plugin.
@Suite struct EngineParametersABITests {
    static let parameters = [
        ParameterSpec("beam", .integer(range: 1...16), default: 4, doc: "Beam width."),
        ParameterSpec("model", .path(.input), required: true, doc: "Model file."),
        ParameterSpec("mode", .choice(["fast", "exact"]), default: "fast", doc: "Mode."),
    ]

    @Test("ABI 2: AudioGraphPluginKit exports an engine's parameters and the host reads them back intact")
    func kitRoundTrip() throws {
        #expect(PluginLibrary.abiVersion == 2)
        let engine = RecognizerEngine(
            name: "abi2-kit", summary: "declares parameters", parameters: Self.parameters,
            capabilities: { _ in RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: false,
                                                        languages: ["en-US"], sampleRate: 16000) },
            make: { _ in throw GraphError(.unavailable, at: "x", "not made here") })
        let table = PluginTable.make(name: "abi2", version: "1", nodes: [], engines: [engine])
        let library = try PluginLibrary.adopt(UnsafePointer(table), path: "/test/abi2.so")
        let read = try #require(library.engines.first)
        #expect(WireFormat.encode(parameters: read.parameters) == WireFormat.encode(parameters: Self.parameters))
        #expect(WireFormat.encode(parameters: read.engine.parameters) == WireFormat.encode(parameters: Self.parameters))
    }

    /// The repository's include folder (audiograph_plugin.h).
    static let includeFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/CAudioGraphPlugin/include").path

    /// Compiles `CEnginePlugin.source` with `flags` into `folder`; returns the library's path.
    static func build(_ name: String, _ flags: [String], in folder: TemporaryFolder) throws -> String {
        let source = try folder.write("engine_plugin.c", CEnginePlugin.source)
        let output = folder.path(name)
        let cc = ChildProcess()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-shared", "-fPIC", "-Wall", "-Werror", "-I", includeFolder] + flags + ["-o", output, source]
        try cc.run()
        cc.waitUntilExit()
        try #require(cc.terminationStatus == 0, "cc failed")
        return output
    }

    @Test("a C plugin's engine declares its parameters through parameters_json")
    func cPluginDeclaresParameters() throws {
        let folder = try TemporaryFolder(prefix: "abi-tests")
        let path = try Self.build("c-engine.so", ["-DENGINE_NAME=\"c-abi2-engine\""], in: folder)
        let library = try PluginLibrary.load(path)
        let engine = try #require(library.engines.first)
        #expect(engine.name == "c-abi2-engine")
        #expect(engine.parameters.map(\.name) == ["beam", "vocabulary"])
        #expect(engine.parameters.first?.kind == .integer(range: 1...8) && engine.parameters.first?.defaultValue == 3)
        #expect(engine.parameters.last?.kind == .path(.input))
    }

    @Test("a plugin built for ABI 1 (v1 tables, no parameters_json) is refused naming both versions and how to rebuild")
    func abi1IsRefused() throws {
        let folder = try TemporaryFolder(prefix: "abi-tests")
        let path = try Self.build("abi1.so", ["-DAG_PLUGIN_ABI_VERSION=1", "-DENGINE_NAME=\"c-abi1-engine\"", "-DABI1_LAYOUT"], in: folder)
        #expect(throws: PluginLoadError.abiMismatch(path, plugin: 1, host: 2)) { try PluginLibrary.load(path) }
        let message = PluginLoadError.abiMismatch(path, plugin: 1, host: 2).description
        #expect(message.contains("built for plugin ABI 1, but this audiograph loads ABI 2: rebuild the plugin"), "\(message)")
        #expect(message.contains("ABI 2 added the engine parameters; see docs/plugins.md"), "\(message)")
        #expect(PluginLoadError.abiMismatch(path, plugin: 1, host: 2).code == .unavailable)
    }

    @Test("a plugin engine named like a built-in one is refused, naming the plugin and the built-in")
    func builtInNameIsRefused() throws {
        let folder = try TemporaryFolder(prefix: "abi-tests")
        let path = try Self.build("shadow.so", ["-DENGINE_NAME=\"pocketsphinx\""], in: folder)
        var registry = NodeRegistry()
        #expect(throws: PluginLoadError.duplicate(path, "recognizer engine \"pocketsphinx\" is already registered (from built-in)")) {
            try Plugins.install(path, into: &registry)
        }
    }
}

/// A recognizer-engine plugin in C against audiograph_plugin.h alone. `-DABI1_LAYOUT` gives its engine table the
/// size ABI 1's had (everything before `parameters_json`), as a plugin compiled against the version-1 header has.
enum CEnginePlugin {
    static let source = #"""
        #include <stddef.h>
        #include <stdlib.h>
        #include <string.h>
        #include "audiograph_plugin.h"

        static char *dup(const char *s) { char *d = malloc(strlen(s) + 1); strcpy(d, s); return d; }
        static void free_string(char *s) { free(s); }
        static char *capabilities(void *c, const char *o) { (void)c; (void)o;
            return dup("{\"streaming\":true,\"partialResults\":false,\"wordTimings\":false,\"languages\":[\"en-US\"],\"sampleRate\":16000}"); }
        static int32_t validate(void *c, const char *o, ag_error *e) { (void)c; (void)o; (void)e; return AG_OK; }
        static void *create(void *c, const char *o, ag_error *e) { (void)c; (void)o; (void)e; return malloc(1); }
        static int32_t start_utterance(void *r, ag_error *e) { (void)r; (void)e; return AG_OK; }
        static int32_t process(void *r, const float *s, int64_t n, ag_error *e) { (void)r; (void)s; (void)n; (void)e; return AG_OK; }
        static char *partial(void *r) { (void)r; return dup(""); }
        static char *end_utterance(void *r, int64_t f, ag_error *e) { (void)r; (void)f; (void)e; return dup("{\"text\":\"\"}"); }
        static void destroy(void *r) { free(r); }

        static ag_engine_type engine = {
        #ifdef ABI1_LAYOUT
            offsetof(ag_engine_type, parameters_json),
        #else
            sizeof(ag_engine_type),
        #endif
            NULL, ENGINE_NAME, "a C engine", capabilities, validate, create, start_utterance, process, partial,
            end_utterance, destroy,
        #ifndef ABI1_LAYOUT
            "[{\"name\":\"beam\",\"kind\":\"integer\",\"range\":[1,8],\"default\":3,\"doc\":\"Beam.\",\"required\":false},"
            "{\"name\":\"vocabulary\",\"kind\":\"path\",\"role\":\"input\",\"doc\":\"Words.\",\"required\":false}]",
        #endif
        };
        static ag_plugin plugin = { AG_PLUGIN_ABI_VERSION, sizeof(ag_plugin), "c-engine-plugin", "1.0", 0, NULL, 1, &engine,
                                    free_string };
        const ag_plugin *audiograph_plugin_entry(const ag_host_api *host) { (void)host; return &plugin; }
        """#
}
