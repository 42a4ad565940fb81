// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "audiograph",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AudioGraph", targets: ["AudioGraph"]),
        .library(name: "AudioGraphTestKit", targets: ["AudioGraphTestKit"]),
        .library(name: "AudioGraphPluginKit", targets: ["AudioGraphPluginKit"]),
        // Smaller pieces for programs that need less than the whole framework: the remote transcripts client
        // (none of the project's C libraries: FoundationNetworking brings libcurl) and the core with the DSP nodes (docs/architecture.md shows what each links).
        .library(name: "AudioGraphClient", targets: ["AudioGraphClient"]),
        .library(name: "AudioGraphCoreDSP", targets: ["AudioGraphCore", "AudioGraphDSP"]),
        .executable(name: "audiograph", targets: ["audiograph"]),
        // Command plugins (docs/node-authoring.md): `swift package validate-pipelines`, `swift package scaffold-node`.
        .plugin(name: "ValidatePipelines", targets: ["ValidatePipelines"]),
        .plugin(name: "ScaffoldNode", targets: ["ScaffoldNode"]),
    ],
    targets: [
        // C libraries, one systemLibrary target each (see docs/architecture.md).
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSampleRate", pkgConfig: "samplerate",
                       providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr",
                       providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f",
                       providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx",
                       providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),
        // FFmpeg's headers only (libavformat-dev, libavcodec-dev, libavutil-dev, libswresample-dev): no pkgConfig, so
        // nothing links the libraries; CFFmpegLoader defines the functions used and loads them when first needed.
        .systemLibrary(name: "CFFmpeg"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The PostgreSQL transcript store's client library (libpq).
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // No pkgConfig: libpulse's .pc adds -D_REENTRANT/-pthread, which SwiftPM prohibits (a warning); the
        // headers are in /usr/include and the modulemap links the libraries.
        .systemLibrary(name: "CPulseAudio", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // WebSocket framing (RFC 6455) over the upgraded sockets of the participant audio endpoint. No pkgConfig:
        // Debian's libwslay-dev installs a CMake config only; the modulemap links the library.
        .systemLibrary(name: "CWslay", providers: [.apt(["libwslay-dev"])]),
        // whisper.cpp 1.8.5, built from source and installed with a pkg-config file by scripts/install-whisper.sh
        // (Debian has no package).
        .systemLibrary(name: "CWhisper", pkgConfig: "whisper"),

        // The plugin ABI: a C header only (audiograph_plugin.h), shared by the host and plugins.
        .target(name: "CAudioGraphPlugin"),
        // FFmpeg loaded on first use (dlopen): the functions audiograph calls, forwarded to the real ones.
        .target(name: "CFFmpegLoader"),

        // Frames, formats, config, graph, runtime. No C.
        .target(name: "AudioGraphCore", swiftSettings: strict),
        .target(name: "AudioGraphIO", dependencies: ["AudioGraphCore", "CSndFile", "CFFmpeg", "CFFmpegLoader", "CPulseAudio"],
                swiftSettings: strict),
        .target(name: "AudioGraphDSP", dependencies: ["AudioGraphCore", "CSampleRate", "CSoxr", "CFFTW"],
                swiftSettings: strict),
        // The whisper recognizer engine (whisper.cpp's C API) and its models (install: SHA-256 from OpenSSL).
        .target(name: "AudioGraphWhisper", dependencies: ["AudioGraphCore", "CWhisper", "CCrypto"], swiftSettings: strict),
        .target(name: "AudioGraphSpeech", dependencies: ["AudioGraphCore", "AudioGraphDSP", "AudioGraphWhisper", "CPocketSphinx"],
                swiftSettings: strict),
        // The store's model: the TranscriptStore protocol, records, paging requests, errors, tokens and the work
        // queue's protocol. No C: the remote client links only this.
        .target(name: "AudioGraphStoreModel", dependencies: ["AudioGraphCore"], swiftSettings: strict),
        // The store's backends (SQLite, PostgreSQL) and its node; re-exports the model.
        .target(name: "AudioGraphStore", dependencies: ["AudioGraphCore", "AudioGraphStoreModel", "CSQLite", "CPostgres"],
                swiftSettings: strict),
        .target(name: "AudioGraphSessions",
                dependencies: ["AudioGraphCore", "AudioGraphIO", "AudioGraphDSP", "AudioGraphSpeech", "AudioGraphStore",
                               "AudioGraphWebSocket"],
                swiftSettings: strict),
        // WebSocket pieces both sides share (the handshake's Sec-WebSocket-Accept: SHA-1 from OpenSSL) and the
        // client: wslay's client mode over a TCP socket of its own (`audiograph join`).
        .target(name: "AudioGraphWebSocket", dependencies: ["CWslay", "CCrypto"], swiftSettings: strict),
        // The HTTP API (libmicrohttpd), access tokens (OpenSSL's SHA-256), live captions over SSE, the web page,
        // participants' audio over WebSockets (wslay; the handshake's SHA-1 from OpenSSL).
        .target(name: "AudioGraphServer",
                dependencies: ["AudioGraphCore", "AudioGraphStore", "AudioGraphWebSocket", "CMicroHTTPD", "CCrypto", "CWslay"],
                // The web page's files, embedded in the binary (PackageResources.index_html, …).
                resources: [.embedInCode("WebPage/Assets/index.html"), .embedInCode("WebPage/Assets/app.js"),
                            .embedInCode("WebPage/Assets/app.css"), .embedInCode("WebPage/Assets/capture-worklet.js")],
                swiftSettings: strict),
        // The remote transcripts client (URLSession): the store's model and no C (no SQLite, no libpq).
        .target(name: "AudioGraphClient", dependencies: ["AudioGraphStoreModel"], swiftSettings: strict),
        .target(name: "AudioGraph",
                dependencies: ["AudioGraphCore", "AudioGraphIO", "AudioGraphDSP", "AudioGraphSpeech", "AudioGraphStore",
                               "AudioGraphSessions", "AudioGraphServer", "AudioGraphWebSocket", "AudioGraphClient", "AudioGraphPlugins"],
                swiftSettings: strict),
        // What a plugin links: Swift node types and engines exported through the C ABI.
        .target(name: "AudioGraphPluginKit", dependencies: ["AudioGraphCore", "CAudioGraphPlugin"], swiftSettings: strict),
        // The host's side: loading plugins (dlopen), proxies for their nodes and engines.
        .target(name: "AudioGraphPlugins", dependencies: ["AudioGraphCore", "AudioGraphSpeech", "CAudioGraphPlugin"],
                swiftSettings: strict),
        .target(name: "AudioGraphTestKit", dependencies: ["AudioGraphCore"], swiftSettings: strict),
        .executableTarget(name: "audiograph", dependencies: ["AudioGraph"], swiftSettings: strict),
        // Command plugins (docs/node-authoring.md). validate-pipelines runs the `audiograph` tool built above.
        .plugin(name: "ValidatePipelines",
                capability: .command(intent: .custom(verb: "validate-pipelines",
                                                     description: "Validate the package's pipeline JSON files with `audiograph validate`")),
                dependencies: ["audiograph"]),
        .plugin(name: "ScaffoldNode",
                capability: .command(intent: .custom(verb: "scaffold-node",
                                                     description: "Write a new node type and its test from a template"),
                                     permissions: [.writeToPackageDirectory(reason: "writes the new node's source file and its test")])),

        .testTarget(name: "AudioGraphCoreTests", dependencies: ["AudioGraphCore", "AudioGraphTestKit"],
                    swiftSettings: strict),
        .testTarget(name: "AudioGraphIOTests", dependencies: ["AudioGraphIO", "AudioGraphTestKit"],
                    resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "AudioGraphDSPTests", dependencies: ["AudioGraphDSP", "AudioGraphTestKit"],
                    swiftSettings: strict),
        .testTarget(name: "AudioGraphSpeechTests", dependencies: ["AudioGraphSpeech", "AudioGraphIO", "AudioGraphTestKit"],
                    resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "AudioGraphWhisperTests",
                    dependencies: ["AudioGraphWhisper", "AudioGraphSpeech", "AudioGraphIO", "AudioGraphTestKit"],
                    resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "AudioGraphStoreTests", dependencies: ["AudioGraphStore", "AudioGraph", "AudioGraphTestKit"],
                    swiftSettings: strict),
        .testTarget(name: "AudioGraphSessionsTests",
                    dependencies: ["AudioGraphSessions", "AudioGraph", "AudioGraphTestKit"], swiftSettings: strict),
        .testTarget(name: "AudioGraphServerTests",
                    dependencies: ["AudioGraphServer", "AudioGraphClient", "AudioGraph", "AudioGraphTestKit"],
                    // The WebSocket tests' client, run by /usr/bin/python3 from its place in the source tree.
                    exclude: ["WebSocket/ws_client.py"], swiftSettings: strict),
        .testTarget(name: "AudioGraphPluginsTests",
                    dependencies: ["AudioGraphCore", "AudioGraphPlugins", "AudioGraphPluginKit", "CAudioGraphPlugin",
                                   "AudioGraphTestKit"],
                    swiftSettings: strict),
        .testTarget(name: "AudioGraphTests", dependencies: ["AudioGraph", "AudioGraphTestKit"],
                    swiftSettings: strict),
        .testTarget(name: "AudioGraphCLITests", dependencies: ["audiograph", "AudioGraph", "AudioGraphTestKit"],
                    // The browser tests' TCP relay that cuts connections, run by /usr/bin/python3 from the source tree.
                    exclude: ["Browser/cut_proxy.py"], swiftSettings: strict),
    ]
)

// libFuzzer targets (docs/fuzzing.md), only when AUDIOGRAPH_FUZZ=1: scripts/fuzz.sh sets it and builds them with
// `-sanitize=fuzzer,address` into .build/fuzz, so normal builds, `swift test` and the products above never see them.
// Each target is fuzz/<name>/: the harness (a function taking libFuzzer's input) and a main.swift handing it to
// libFuzzer's driver (fuzz/driver: SwiftPM names an executable's entry point itself, so libFuzzer's main is unused).
if Context.environment["AUDIOGRAPH_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("json", ["AudioGraphCore"]),
        ("config", ["AudioGraph"]),
        ("manifest", ["AudioGraphSessions"]),
        ("http", ["AudioGraphCore", "AudioGraphServer", "AudioGraphStore"]),
        ("plugin", ["AudioGraphCore"]),
        ("websocket", ["AudioGraphCore", "AudioGraphServer", "AudioGraphStore"]),
    ]
    package.targets.append(.target(name: "CFuzzDriver", path: "fuzz/driver"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], path: "fuzz/support",
                                   swiftSettings: strict))
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: "fuzz-\(target.name)", dependencies: target.dependencies + ["FuzzSupport"],
                                                 path: "fuzz/\(target.name)", swiftSettings: strict))
        package.products.append(.executable(name: "fuzz-\(target.name)", targets: ["fuzz-\(target.name)"]))
    }
}
