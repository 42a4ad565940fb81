import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 9 — "FIFOs hang": a `file-source` path, a config's plugin or an `AUDIOGRAPH_PLUGIN_PATH`
/// entry that is a FIFO with no writer used to block `validate`, `run` and `plugins` forever (the open waits
/// for a writer). An input that is not a regular file is refused, before it is opened, with exit 66 naming
/// where it was given (the JSON path, `plugins[i]`, or the search-path entry); so is a device.
@Suite("security: inputs that are not regular files are refused, never opened")
struct FIFOInputTests {
    /// A FIFO nobody writes to, at `name` in `dir`.
    static func fifo(_ name: String, in dir: TemporaryFolder) throws -> String {
        let path = dir.path(name)
        guard mkfifo(path, 0o600) == 0 else { throw HarnessError("mkfifo \(path): errno \(errno)") }
        return path
    }

    @Test("a file-source path that is a FIFO: validate and run exit 66 naming nodes.src.path")
    func fileSourceFIFO() async throws {
        let dir = try TemporaryFolder()
        _ = try Self.fifo("pipe.wav", in: dir)
        try dir.write("fifo.json", Configs.direct(input: "pipe.wav"))
        for command in ["validate", "run"] {
            let result = try await Harness.audiograph([command, "fifo.json"], in: dir)
            expectError(result, exit: 66, at: "nodes.src.path", mentioning: ["FIFO"])
        }
        #expect(!dir.exists("out.wav"))
    }

    @Test("a --set override to a FIFO, and a symlink to a device, are refused the same way")
    func overrideAndDevice() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        _ = try Self.fifo("pipe.wav", in: dir)
        try FileManager.default.createSymbolicLink(atPath: dir.path("zero.wav"), withDestinationPath: "/dev/zero")
        try dir.write("ok.json", Configs.direct(input: "in.wav"))
        let fifo = try await Harness.audiograph(["run", "ok.json", "--set", "src.path=pipe.wav"], in: dir)
        expectError(fifo, exit: 66, at: "nodes.src.path")
        let device = try await Harness.audiograph(["validate", "ok.json", "--set", "src.path=zero.wav"], in: dir)
        expectError(device, exit: 66, at: "nodes.src.path", mentioning: ["character device"])
    }

    @Test("a config plugin that is a FIFO: validate and plugins exit 66 naming plugins[0]")
    func configPluginFIFO() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        _ = try Self.fifo("libpipe.so", in: dir)
        try dir.write("plug.json", Configs.direct(input: "in.wav", extraTopLevel: "\n  \"plugins\": [\"libpipe.so\"],"))
        let validate = try await Harness.audiograph(["validate", "plug.json"], in: dir)
        expectError(validate, exit: 66, at: "plugins[0]", mentioning: ["FIFO"])
        let plugins = try await Harness.audiograph(["plugins", "plug.json"], in: dir)
        #expect(plugins.status == 66, "\(plugins)")
        #expect(plugins.stdout.contains("refused") && plugins.stdout.contains("FIFO"), "\(plugins)")
    }

    @Test("an AUDIOGRAPH_PLUGIN_PATH entry that is a FIFO: plugins exits 66 naming it, validate warns and goes on")
    func searchPathFIFO() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        let pipe = try Self.fifo("libpipe.so", in: dir)
        try dir.write("ok.json", Configs.direct(input: "in.wav"))
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_PLUGIN_PATH"] = pipe
        let binary = try Harness.binary()
        let plugins = try await Harness.run(binary, ["plugins"], in: dir, environment: environment)
        #expect(plugins.status == 66, "\(plugins)")
        #expect(plugins.stdout.contains("refused  \(pipe)  (AUDIOGRAPH_PLUGIN_PATH)") && plugins.stdout.contains("FIFO"),
                "\(plugins)")
        let validate = try await Harness.run(binary, ["validate", "ok.json"], in: dir, environment: environment)
        #expect(validate.status == 0, "\(validate)")
        #expect(validate.stderr.contains("warning: plugin \(pipe) skipped") && validate.stderr.contains("FIFO"),
                "\(validate)")
    }
}
