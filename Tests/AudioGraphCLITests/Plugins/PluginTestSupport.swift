import AudioGraphTestKit
import Foundation
import Testing

/// Where the plugin tests find things, and how they run `audiograph` with a chosen `AUDIOGRAPH_PLUGIN_PATH`.
enum PluginTests {
    /// The repository root (this file is Tests/AudioGraphCLITests/Plugins/PluginTestSupport.swift).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// audiograph_plugin.h's folder, for gcc's -I.
    static var includeFolder: String { root.appendingPathComponent("Sources/CAudioGraphPlugin/include").path }

    /// Runs `audiograph` in `directory` with `AUDIOGRAPH_PLUGIN_PATH` set to `pluginPath` (unset when nil, whatever
    /// the test process has), so no test sees another's plugins.
    static func audiograph(_ arguments: [String], in directory: TemporaryFolder, pluginPath: String? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_PLUGIN_PATH"] = pluginPath
        return try await run(try Harness.binary(), arguments, in: directory, environment: environment,
                             sourceLocation: sourceLocation)
    }

    /// Runs `executable` with `environment` (this process's by default).
    static func run(_ executable: URL, _ arguments: [String], in directory: TemporaryFolder,
                    environment: [String: String] = ProcessInfo.processInfo.environment,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        try await Harness.run(executable, arguments, in: directory, environment: environment, sourceLocation: sourceLocation)
    }

    /// sox's `stats` of a sound file: "Pk lev dB", "RMS lev dB", ... (the first, overall column).
    static func soxStats(_ path: String, in directory: TemporaryFolder) async throws -> [String: Double] {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/env"), ["sox", path, "-n", "stats"], in: directory)
        guard result.status == 0 else { throw HarnessError("sox \(path) stats failed: \(result.stderr)") }
        var stats: [String: Double] = [:]
        // sox writes its stats to stderr: "RMS lev dB    -24.41    -24.41    -24.41".
        for line in result.stderrLines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let index = fields.firstIndex(where: { Double($0) != nil }), index > 0,
                  let value = Double(fields[index]) else { continue }
            stats[fields[..<index].joined(separator: " ")] = value
        }
        return stats
    }

    /// The `--events jsonl` lines of a run, parsed.
    static func events(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        result.stdoutLines.compactMap { parseJSONObject($0, sourceLocation: sourceLocation) }
    }
}

/// The example plugins in examples/plugins/, as scripts/build-plugins.sh builds them (release, scratch folder
/// .build/plugins/NAME). When one is missing the tests that need it are skipped with a note, unless
/// `AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS=1` (CI), where they run and fail.
enum ExamplePlugins {
    static let required = ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS"] == "1"

    static var gain: String { library("gain", "libGainPlugin.so") }
    static var keywordSpotter: String { library("keyword-spotter", "libKeywordSpotterPlugin.so") }

    static func library(_ name: String, _ file: String) -> String {
        PluginTests.root.appendingPathComponent(".build/plugins/\(name)/release/\(file)").path
    }

    /// A library's path with symlinks resolved (.build/plugins/NAME/release is one): what audiograph reports
    /// as a plugin's origin.
    static func canonical(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }

    static var gainBuilt: Bool { FileManager.default.fileExists(atPath: gain) }
    static var keywordSpotterBuilt: Bool { FileManager.default.fileExists(atPath: keywordSpotter) }

    static let skipNote = Comment(rawValue: "the example plugins are not built: run scripts/build-plugins.sh "
        + "(set AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS=1 to fail instead of skipping)")

    /// Fails the test when a library the test needs is missing (only reached when the plugins are required).
    static func require(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw HarnessError("\(path) is missing: run scripts/build-plugins.sh")
        }
    }
}

/// Plugins written in C against audiograph_plugin.h alone and compiled with gcc at test time: each variant is
/// the same source with different -D flags.
enum CTestPlugin {
    enum Variant {
        /// A pass-through filter node type (`failAfter`: fail on that buffer; 13 is refused at create).
        case node(type: String, pluginName: String = "c-test")
        /// Built with `-DAG_PLUGIN_ABI_VERSION=99`.
        case abi(UInt32)
        /// Exports no `audiograph_plugin_entry`.
        case noEntryPoint
        /// The entry point returns NULL.
        case entryReturnsNull
        /// The node type's descriptor JSON is cut short.
        case malformedDescriptor
        /// Declares a source node type (refused in ABI 1).
        case sourceNode
        /// Declares `failAfter`'s integer range as this JSON text (default `[0,1000000]`).
        case failAfterRange(String)

        var flags: [String] {
            switch self {
            case .node(let type, let name): return ["-DNODE_TYPE=\"\(type)\"", "-DPLUGIN_NAME=\"\(name)\""]
            case .abi(let version): return ["-DAG_PLUGIN_ABI_VERSION=\(version)"]
            case .noEntryPoint: return ["-DNO_ENTRY"]
            case .entryReturnsNull: return ["-DENTRY_RETURNS_NULL"]
            case .malformedDescriptor: return ["-DMALFORMED_DESCRIPTOR"]
            case .sourceNode: return ["-DSOURCE_NODE"]
            case .failAfterRange(let range): return ["-DFAIL_AFTER_RANGE=\"\(range)\""]
            }
        }
    }

    /// Compiles `variant` into `directory/name` and returns its path.
    static func build(_ variant: Variant, named name: String, in directory: TemporaryFolder) async throws -> String {
        let source = directory.path("test_plugin.c")
        if !FileManager.default.fileExists(atPath: source) { try directory.write("test_plugin.c", Self.source) }
        let output = directory.path(name)
        let result = try await PluginTests.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["gcc", "-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-I", PluginTests.includeFolder]
                + variant.flags + ["-o", output, source],
            in: directory)
        guard result.status == 0 else { throw HarnessError("gcc failed for \(variant): \(result)") }
        return output
    }

    /// The plugin's C source.
    static let source = #"""
        /* A test plugin for audiograph, against audiograph_plugin.h alone. */
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include "audiograph_plugin.h"

        #ifndef PLUGIN_NAME
        #define PLUGIN_NAME "c-test"
        #endif
        #ifndef NODE_TYPE
        #define NODE_TYPE "c-passthrough"
        #endif
        #ifdef SOURCE_NODE
        #define CATEGORY "source"
        #else
        #define CATEGORY "filter"
        #endif
        #ifndef FAIL_AFTER_RANGE
        #define FAIL_AFTER_RANGE "[0,1000000]"
        #endif

        #ifdef MALFORMED_DESCRIPTOR
        static const char descriptor[] = "{\"type\":\"" NODE_TYPE "\",\"summary\":";
        #else
        static const char descriptor[] =
            "{\"type\":\"" NODE_TYPE "\",\"summary\":\"Passes audio through; fails on buffer failAfter when set\","
            "\"category\":\"" CATEGORY "\","
            "\"parameters\":[{\"name\":\"failAfter\",\"kind\":\"integer\",\"range\":" FAIL_AFTER_RANGE ",\"default\":0,"
            "\"required\":false,\"doc\":\"Fail on this buffer (0: never; 13 is refused when the node is made).\"}],"
            "\"inputs\":[{\"name\":\"in\",\"requires\":[\"audio\"]}],"
            "\"outputs\":[{\"name\":\"out\",\"produces\":[\"audio\"],\"forwardsInput\":true}],"
            "\"acceptedFormats\":{},\"execution\":{\"mode\":\"inline\"}}";
        #endif

        typedef struct {
            long fail_after;
            long buffers;
            const ag_host_api *api;
        } test_node;

        static void fail(ag_error *error, int code, const char *location, const char *message) {
            if (!error) return;
            error->code = code;
            snprintf(error->location, sizeof error->location, "%s", location);
            snprintf(error->message, sizeof error->message, "%s", message);
        }

        static void *create(void *context, const char *configuration, ag_error *error) {
            (void)context;
            test_node *node = calloc(1, sizeof *node);
            const char *value = strstr(configuration, "\"failAfter\":");
            if (value) node->fail_after = strtol(value + strlen("\"failAfter\":"), NULL, 10);
            if (node->fail_after == 13) {
                free(node);
                fail(error, 65, "failAfter", "13 buffers is unlucky; pick another number");
                return NULL;
            }
            return node;
        }

        static int32_t output_format(void *node, int32_t has_input, int32_t input_rate, int32_t input_channels,
                                     int32_t *has_output, int32_t *output_rate, int32_t *output_channels, ag_error *error) {
            (void)node; (void)error;
            *has_output = has_input;
            *output_rate = input_rate;
            *output_channels = input_channels;
            return AG_OK;
        }

        static int32_t start(void *node, const ag_host_api *api, ag_host_node *host, const char *start_json,
                             ag_error *error) {
            (void)host; (void)start_json; (void)error;
            ((test_node *)node)->api = api;
            return AG_OK;
        }

        static int32_t process(void *opaque, ag_host_node *host, const float *samples, int64_t frames, int32_t channels,
                               int32_t sample_rate, int64_t position, ag_error *error) {
            test_node *node = opaque;
            node->buffers += 1;
            if (node->fail_after > 0 && node->buffers >= node->fail_after) {
                char message[128];
                snprintf(message, sizeof message, "synthetic failure on buffer %ld", node->buffers);
                fail(error, 70, "", message);
                return AG_FAILED;
            }
            node->api->emit_audio(host, samples, frames, channels, sample_rate, position, 0);
            return AG_OK;
        }

        static int32_t handle_event(void *node, ag_host_node *host, const char *event_json, ag_error *error) {
            (void)error;
            ((test_node *)node)->api->emit_event(host, event_json, 1, 0);
            return AG_OK;
        }

        static int32_t handle_command(void *node, ag_host_node *host, const char *command_json, ag_error *error) {
            (void)error;
            ((test_node *)node)->api->send_command(host, command_json, 0);
            return AG_OK;
        }

        static int32_t finish(void *node, ag_host_node *host, ag_error *error) {
            (void)node; (void)host; (void)error;
            return AG_OK;
        }

        static void stop(void *node) { (void)node; }
        static void destroy(void *node) { free(node); }
        static void free_string(char *string) { free(string); }

        static const ag_node_type node_types[] = {{
            sizeof(ag_node_type), NULL, descriptor, create, output_format, start, process, handle_event,
            handle_command, finish, stop, destroy,
        }};

        __attribute__((unused)) static const ag_plugin plugin = {
            AG_PLUGIN_ABI_VERSION, sizeof(ag_plugin), PLUGIN_NAME, "0.1.0", 1, node_types, 0, NULL, free_string,
        };

        #ifdef NO_ENTRY
        const ag_plugin *not_the_entry_point(const ag_host_api *host) {
            (void)host;
            return &plugin;
        }
        #else
        const ag_plugin *audiograph_plugin_entry(const ag_host_api *host) {
            (void)host;
        #ifdef ENTRY_RETURNS_NULL
            return NULL;
        #else
            return &plugin;
        #endif
        }
        #endif
        """#
}
