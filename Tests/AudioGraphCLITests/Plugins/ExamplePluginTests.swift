import AudioGraphTestKit
import Foundation
import Testing

/// The two example plugins (examples/plugins/gain, examples/plugins/keyword-spotter), each built as a package of
/// its own by scripts/build-plugins.sh, loaded by the released `audiograph` binary.
@Suite(.enabled(if: ExamplePlugins.gainBuilt || ExamplePlugins.required, ExamplePlugins.skipNote))
struct GainPluginTests {
    /// A folder with `config.json`: the 44.1 kHz stereo reading through `g` (gain with `gain`) to out.wav, and
    /// straight to ref.wav, both as float WAV.
    static func folder(gain: String) throws -> TemporaryFolder {
        try ExamplePlugins.require(ExamplePlugins.gain)
        let directory = try TemporaryFolder()
        let input = PluginTests.root.appendingPathComponent("examples/audio/librivox_0870_44k_stereo.flac").path
        try directory.write("config.json", """
            {
              "version": 1,
              "plugins": ["\(ExamplePlugins.gain)"],
              "nodes": {
                "src": { "type": "file-source", "path": "\(input)" },
                "g":   { "type": "gain", \(gain) },
                "out": { "type": "wav-sink", "path": "out.wav", "sampleFormat": "float" },
                "ref": { "type": "wav-sink", "path": "ref.wav", "sampleFormat": "float" }
              },
              "links": ["src -> g -> out", "src -> ref"]
            }
            """)
        return directory
    }

    @Test func gainChangesTheLevelByTheGivenDecibels() async throws {
        let directory = try Self.folder(gain: #""gainDb": -6.02, "limit": false"#)
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet"], in: directory)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let out = try await PluginTests.soxStats("out.wav", in: directory)
        let ref = try await PluginTests.soxStats("ref.wav", in: directory)
        let rms = try #require(out["RMS lev dB"]) - (try #require(ref["RMS lev dB"]))
        let peak = try #require(out["Pk lev dB"]) - (try #require(ref["Pk lev dB"]))
        #expect(abs(rms + 6.02) < 0.02, "RMS changed by \(rms) dB")
        #expect(abs(peak + 6.02) < 0.02, "peak changed by \(peak) dB")
        #expect(try await Harness.soxi("-s", "out.wav", in: directory) == (try await Harness.soxi("-s", "ref.wav", in: directory)))
    }

    @Test func loudGainIsLimitedAndReportedAsClippedEvents() async throws {
        // The reading peaks at -7.5 dBFS: +12 dB takes it over full scale.
        let directory = try Self.folder(gain: #""gainDb": 12"#)
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl"], in: directory)
        #expect(run.status == 0, "\(run)")
        let clipped = PluginTests.events(run).filter { $0["type"] as? String == "clipped" }
        #expect(!clipped.isEmpty, "clipped events\n\(run)")
        #expect(clipped.allSatisfy { $0["node"] as? String == "g" && ($0["samples"] as? Double ?? 0) > 0 }, "\(clipped)")
        let out = try await PluginTests.soxStats("out.wav", in: directory)
        #expect(try #require(out["Pk lev dB"]) <= 0.0001, "limited to full scale")
        #expect(try #require(out["Pk lev dB"]) > -0.01, "and reaching it")
    }

    @Test func nodesAndInspectShowThePluginNodeAndWhereItCameFrom() async throws {
        try ExamplePlugins.require(ExamplePlugins.gain)
        let directory = try TemporaryFolder()
        let nodes = try await PluginTests.audiograph(["nodes"], in: directory, pluginPath: ExamplePlugins.gain)
        #expect(nodes.status == 0 && nodes.stderr.isEmpty, "\(nodes)")
        #expect(nodes.stdoutLines.contains { $0.hasPrefix("gain ") && $0.contains("Changes the level by a gain in dB") }, "\(nodes)")
        let inspect = try await PluginTests.audiograph(["inspect", "gain"], in: directory, pluginPath: ExamplePlugins.gain)
        #expect(inspect.status == 0, "\(inspect)")
        #expect(inspect.stdout.contains("from: \(ExamplePlugins.canonical(ExamplePlugins.gain))"), "\(inspect)")
        #expect(inspect.stdout.contains("gainDb") && inspect.stdout.contains("limit"), "\(inspect)")
        let listed = try await PluginTests.audiograph(["plugins"], in: directory, pluginPath: ExamplePlugins.gain)
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdoutLines.prefix(3) == [
            "loaded   \(ExamplePlugins.gain)  (AUDIOGRAPH_PLUGIN_PATH)",
            "         gain 1.0.0",
            "         node type  gain: Changes the level by a gain in dB; with limit, clamps to full scale and reports clipped buffers.",
        ], "\(listed)")
        // Without the path (and no config naming it) there is no gain node.
        let without = try await PluginTests.audiograph(["inspect", "gain"], in: directory)
        expectError(without, exit: 64, at: "gain")
    }

    @Test func parameterErrorsNameTheJSONPath() async throws {
        let range = try Self.folder(gain: #""gainDb": 60"#)
        let outOfRange = try await PluginTests.audiograph(["validate", "config.json"], in: range)
        expectError(outOfRange, exit: 65, at: "nodes.g.gainDb")
        #expect(outOfRange.stderr.contains("out of range"), "\(outOfRange)")

        let unknown = try Self.folder(gain: #""gainDB": 6"#)
        let misspelt = try await PluginTests.audiograph(["validate", "config.json"], in: unknown)
        expectError(misspelt, exit: 65, at: "nodes.g.gainDB")
        #expect(misspelt.stderr.contains("unknown parameter for gain") && misspelt.stderr.contains("gainDb"), "\(misspelt)")
    }

    @Test func exampleConfigRuns() async throws {
        try ExamplePlugins.require(ExamplePlugins.gain)
        let directory = try TemporaryFolder()
        let config = PluginTests.root.appendingPathComponent("examples/plugins/gain.json").path
        let run = try await PluginTests.audiograph(["run", config, "--quiet", "--events", "jsonl",
                                                    "--set", "out.path=\(directory.path("louder.wav"))"], in: directory)
        #expect(run.status == 0, "\(run)")
        #expect(PluginTests.events(run).contains { $0["type"] as? String == "clipped" }, "\(run)")
        #expect(try await Harness.soxi("-D", "louder.wav", in: directory) > 7)
    }
}

@Suite(.enabled(if: ExamplePlugins.keywordSpotterBuilt || ExamplePlugins.required, ExamplePlugins.skipNote))
struct KeywordSpotterPluginTests {
    /// The bundled 23.7 s call ("… / go forward ten meters / feels like these days go on forever") through a VAD
    /// to a recognizer and a JSON caption file, in a session that transcribes and captions from the start. The
    /// recognizer's engine is whatever `asr` says (pocketsphinx unless overridden).
    static func folder(asr: String = #""engine": "keyword-spotter", "keyphrase": "go forward""#) throws -> TemporaryFolder {
        try ExamplePlugins.require(ExamplePlugins.keywordSpotter)
        let directory = try TemporaryFolder()
        let input = PluginTests.root.appendingPathComponent("examples/audio/call.flac").path
        try directory.write("config.json", """
            {
              "version": 1,
              "plugins": ["\(ExamplePlugins.keywordSpotter)"],
              "session": { "id": "kws", "autoStartTranscription": true, "captions": true, "captionLanguage": "en-US" },
              "nodes": {
                "src":  { "type": "file-source", "path": "\(input)" },
                "rs":   { "type": "resampler", "sampleRate": 16000, "channels": 1 },
                "vad":  { "type": "vad" },
                "asr":  { "type": "recognizer", \(asr) },
                "json": { "type": "caption-sink", "format": "json", "path": "captions.json" }
              },
              "links": ["src -> rs -> vad -> asr -> json"]
            }
            """)
        return directory
    }

    /// The final transcripts of a `--events jsonl` run: (text, start, end).
    static func finals(_ run: CLIResult) -> [(text: String, start: Double, end: Double)] {
        PluginTests.events(run).filter { $0["type"] as? String == "transcript" && $0["final"] as? Bool == true }
            .map { ($0["text"] as? String ?? "", $0["start"] as? Double ?? -1, $0["end"] as? Double ?? -1) }
    }

    @Test func spotsTheKeyphraseInRealSpeech() async throws {
        let directory = try Self.folder()
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl"], in: directory)
        #expect(run.status == 0, "\(run)")
        let finals = Self.finals(run)
        #expect(finals.map(\.text) == ["go forward"], "\(run)")
        // "go forward ten meters" is said from 17.1 s to 18.7 s into the call.
        if let detection = finals.first {
            #expect(detection.start > 16 && detection.end < 19.5, "\(detection)")
        }
        let words = PluginTests.events(run).first { $0["final"] as? Bool == true }?["words"] as? [[String: Any]]
        #expect(words?.first?["word"] as? String == "go forward", "the detection, with its times")
        #expect(try directory.read("captions.json").contains("go forward"))
    }

    @Test func severalKeyphrasesAreSpottedInOrder() async throws {
        let directory = try Self.folder(asr: #""engine": "keyword-spotter", "keyphrase": "John Dashwood, go forward, forever""#)
        let run = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl"], in: directory)
        #expect(run.status == 0, "\(run)")
        #expect(Self.finals(run).map(\.text) == ["john dashwood", "go forward", "forever"], "\(run)")
    }

    @Test func swappingTheEngineIsConfigOnly() async throws {
        // One config, one session block, one binary: only the recognizer's "engine" differs.
        let directory = try Self.folder(asr: #""engine": "pocketsphinx", "keyphrase": "go forward""#)
        let spotter = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl",
                                                        "--set", "asr.engine=keyword-spotter"], in: directory)
        #expect(spotter.status == 0, "\(spotter)")
        #expect(Self.finals(spotter).map(\.text) == ["go forward"], "\(spotter)")
        let spotterCaptions = try directory.read("captions.json")

        // The built-in pocketsphinx engine with the same keyphrase parameter also spots it (its own KWS mode)…
        let builtin = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl"], in: directory)
        #expect(builtin.status == 0, "\(builtin)")
        #expect(Self.finals(builtin).map(\.text).contains("go forward"), "\(builtin)")

        // …and without it, it transcribes everything, through the same session and caption sink.
        try directory.write("config.json", try directory.read("config.json")
            .replacingOccurrences(of: #", "keyphrase": "go forward""#, with: ""))
        let full = try await PluginTests.audiograph(["run", "config.json", "--quiet", "--events", "jsonl"], in: directory)
        #expect(full.status == 0, "\(full)")
        let text = Self.finals(full).map(\.text).joined(separator: " ")
        #expect(text.contains("forward ten meters") && text.contains("forever"), "\(full)")
        let fullCaptions = try directory.read("captions.json")
        #expect(fullCaptions.contains("forever") && !spotterCaptions.contains("forever"))

        // The session reads the engine's capabilities through the recognizer's role, whichever engine it is.
        let french = try await PluginTests.audiograph(["validate", "config.json", "--set", "asr.engine=keyword-spotter",
                                                       "--set", "asr.keyphrase=go forward", "--set", "session.captionLanguage=fr-FR"],
                                                      in: directory)
        expectError(french, exit: 65, at: "session.captionLanguage")
        #expect(french.stderr.contains("recognizer engine \"keyword-spotter\" cannot do fr-FR"), "\(french)")
    }

    @Test func engineParameterErrorsNameTheJSONPath() async throws {
        let directory = try Self.folder(asr: #""engine": "keyword-spotter""#)
        let missing = try await PluginTests.audiograph(["validate", "config.json"], in: directory)
        expectError(missing, exit: 65, at: "nodes.asr.keyphrase")
        // The plugin declares keyphrase as required across the ABI (version 2): the node checks it.
        #expect(missing.stderr.contains("missing required parameter of recognizer (keyword-spotter)"), "\(missing)")

        let unknownWord = try await PluginTests.audiograph(["validate", "config.json", "--set", "asr.keyphrase=go frobnicate"],
                                                           in: directory)
        expectError(unknownWord, exit: 65, at: "nodes.asr.keyphrase")
        #expect(unknownWord.stderr.contains("\"frobnicate\" is not in the pronunciation dictionary"), "\(unknownWord)")

        let withModel = try await PluginTests.audiograph(["validate", "config.json", "--set", "asr.keyphrase=go forward",
                                                          "--set", "asr.lm=/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"],
                                                         in: directory)
        expectError(withModel, exit: 65, at: "nodes.asr.lm")
        #expect(withModel.stderr.contains("lm is a pocketsphinx parameter; this recognizer's engine is keyword-spotter"),
                "\(withModel)")

        let threshold = try await PluginTests.audiograph(["validate", "config.json", "--set", "asr.keyphrase=go forward",
                                                          "--set", "asr.kwsThreshold=2"], in: directory)
        expectError(threshold, exit: 65, at: "nodes.asr.kwsThreshold")

        let valid = try await PluginTests.audiograph(["validate", "config.json", "--set", "asr.keyphrase=go forward"], in: directory)
        #expect(valid.status == 0 && valid.stdout.contains("ok: config.json is valid"), "\(valid)")
    }

    @Test func secondEngineOfTheSameNameIsRefusedNamingTheFirst() async throws {
        try ExamplePlugins.require(ExamplePlugins.keywordSpotter)
        let directory = try TemporaryFolder()
        let copy = directory.path("copy.so")
        try FileManager.default.copyItem(atPath: ExamplePlugins.keywordSpotter, toPath: copy)
        let first = ExamplePlugins.canonical(ExamplePlugins.keywordSpotter)
        let listed = try await PluginTests.audiograph(["plugins"], in: directory, pluginPath: "\(ExamplePlugins.keywordSpotter):\(copy)")
        #expect(listed.status == 69, "\(listed)")
        #expect(listed.stdoutLines.suffix(2) == [
            "refused  \(copy)  (AUDIOGRAPH_PLUGIN_PATH)",
            "         recognizer engine \"keyword-spotter\" is already registered (from \(first))",
        ], "\(listed)")
    }

    @Test func exampleConfigRuns() async throws {
        try ExamplePlugins.require(ExamplePlugins.keywordSpotter)
        let directory = try TemporaryFolder()
        let config = PluginTests.root.appendingPathComponent("examples/plugins/keyword-spotter.json").path
        let run = try await PluginTests.audiograph(["run", config, "--quiet", "--events", "jsonl",
                                                    "--set", "json.path=\(directory.path("keywords.json"))",
                                                    "--set", "live.stream=stderr"], in: directory)
        #expect(run.status == 0, "\(run)")
        #expect(!Self.finals(run).isEmpty && Self.finals(run).allSatisfy { !$0.text.isEmpty }, "\(run)")
        #expect(directory.exists("keywords.json"))

        let listed = try await PluginTests.audiograph(["plugins", config], in: directory)
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdoutLines.prefix(2) == ["loaded   \(ExamplePlugins.canonical(ExamplePlugins.keywordSpotter))  (plugins[0])",
                                                 "         keyword-spotter 1.0.0"], "\(listed)")
        #expect(listed.stdout.contains("engine     keyword-spotter: Keyword spotting"), "\(listed)")
    }
}
