import AudioGraphTestKit
import Foundation
import Testing

/// FFmpeg's libraries are loaded on first use, not linked (Sources/CFFmpegLoader): a run that reads WAV and
/// writes WAV never loads them, one that writes AAC or reads M4A does, and when they cannot be loaded the node that
/// needs them fails before any audio flows, with exit 69 at its `path` and nothing created.
@Suite("audiograph: FFmpeg is loaded when first needed")
struct FFmpegLoadingTests {
    /// A file source into one sink.
    static func copy(_ input: String, into sink: String, _ output: String) -> String {
        """
        {
          "version": 1,
          "nodes": {
            "src": { "type": "file-source", "path": "\(input)" },
            "out": { "type": "\(sink)", "path": "\(output)" }
          },
          "links": ["src -> out"]
        }
        """
    }

    /// `audiograph run CONFIG --quiet` with `extra` added to this process's environment.
    static func run(_ config: String, in dir: TemporaryFolder, environment extra: [String: String]) async throws -> CLIResult {
        let environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        return try await Harness.run(Harness.binary(), ["run", config, "--quiet"], in: dir, environment: environment)
    }

    /// The soname of the system's `name` (`libavutil.so.57`): the file of that name with one version number.
    static func systemLibrary(_ name: String) throws -> String {
        let folder = "/usr/lib/x86_64-linux-gnu"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.hasPrefix(name + ".so.") && $0.dropFirst(name.count + 4).allSatisfy(\.isNumber)
        }
        guard names.count == 1 else { throw HarnessError("expected one \(name).so.N in \(folder), found \(names)") }
        return names[0]
    }

    /// The libraries glibc's loader reports loading (`LD_DEBUG=libs` writes "calling init: PATH" to stderr).
    static func initialized(_ result: CLIResult) -> [String] {
        result.stderrLines.filter { $0.contains("calling init:") }
    }

    @Test func onlyRunsThatNeedFFmpegLoadIt() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        try dir.write("wav.json", Self.copy("in.wav", into: "wav-sink", "copy.wav"))
        try dir.write("aac.json", Self.copy("in.wav", into: "aac-sink", "rec.m4a"))
        try dir.write("m4a.json", Self.copy("rec.m4a", into: "wav-sink", "back.wav"))

        let wav = try await Self.run("wav.json", in: dir, environment: ["LD_DEBUG": "libs"])
        #expect(wav.status == 0, "\(wav)")
        let wavLibraries = Self.initialized(wav)
        #expect(wavLibraries.contains { $0.contains("libsndfile") }, "the loader's report is there: \(wavLibraries)")
        #expect(!wavLibraries.contains { $0.contains("libav") || $0.contains("libswresample") }, "\(wavLibraries)")

        let aac = try await Self.run("aac.json", in: dir, environment: ["LD_DEBUG": "libs"])
        #expect(aac.status == 0, "\(aac)")
        #expect(Self.initialized(aac).contains { $0.contains("libavcodec") })
        let m4a = try await Self.run("m4a.json", in: dir, environment: ["LD_DEBUG": "libs"])
        #expect(m4a.status == 0, "\(m4a)")
        #expect(Self.initialized(m4a).contains { $0.contains("libavformat") })
        #expect(FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("back.wav").path))
    }

    /// A broken libavutil found first (an empty file of its name in `LD_LIBRARY_PATH`) stands for FFmpeg's
    /// libraries missing: the AAC sink and an M4A source fail at build time with exit 69, naming the library and
    /// what to install; the AAC sink creates neither its file nor its folder.
    @Test func withoutFFmpegItsNodesFailBeforeAnyAudio() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        try dir.write("aac.json", Self.copy("in.wav", into: "aac-sink", "out/rec.m4a"))
        let made = try await Self.run("aac.json", in: dir, environment: [:])
        #expect(made.status == 0, "\(made)")
        try FileManager.default.moveItem(at: dir.url.appendingPathComponent("out/rec.m4a"),
                                         to: dir.url.appendingPathComponent("in.m4a"))
        try FileManager.default.removeItem(at: dir.url.appendingPathComponent("out"))
        try dir.write("m4a.json", Self.copy("in.m4a", into: "wav-sink", "back.wav"))
        try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("lib"), withIntermediateDirectories: false)
        let avutil = try Self.systemLibrary("libavutil")
        try dir.write("lib/\(avutil)", "")
        let broken = ["LD_LIBRARY_PATH": dir.url.appendingPathComponent("lib").path]

        let aac = try await Self.run("aac.json", in: dir, environment: broken)
        expectError(aac, exit: 69, at: "nodes.out.path")
        #expect(aac.stderr.contains("cannot load FFmpeg's \(avutil)"), "\(aac)")
        #expect(aac.stderr.contains("install FFmpeg's libraries (Debian: libavutil"), "\(aac)")
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("out").path))

        let m4a = try await Self.run("m4a.json", in: dir, environment: broken)
        expectError(m4a, exit: 69, at: "nodes.src.path")
        #expect(m4a.stderr.contains("FFmpeg, which reads what libsndfile cannot, is not available"), "\(m4a)")
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("back.wav").path))
    }

    /// A libavformat that loads but lacks the functions audiograph calls (a shared library built here with none
    /// of them, under libavformat's name, first in `LD_LIBRARY_PATH`): the error names the library and the first
    /// function missing, exit 69, nothing created.
    @Test func aLibraryWithoutTheFunctionsIsRefused() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        try dir.write("aac.json", Self.copy("in.wav", into: "aac-sink", "out/rec.m4a"))
        try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("lib"), withIntermediateDirectories: false)
        let avformat = try Self.systemLibrary("libavformat")
        try dir.write("empty.c", "int audiograph_test_nothing_here = 0;\n")
        let compiled = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                             ["cc", "-shared", "-fPIC", "-o", "lib/\(avformat)", "empty.c"], in: dir)
        #expect(compiled.status == 0, "\(compiled)")

        let aac = try await Self.run("aac.json", in: dir,
                                     environment: ["LD_LIBRARY_PATH": dir.url.appendingPathComponent("lib").path])
        expectError(aac, exit: 69, at: "nodes.out.path")
        #expect(aac.stderr.contains("FFmpeg's \(avformat) has no av_find_best_stream"), "\(aac)")
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("out").path))
    }
}
