import AudioGraphTestKit
import Foundation
import Testing

/// Exit 64: the command line was wrong. Nothing on stdout; `audiograph: <where>: <what>` on stderr.
@Suite("audiograph: usage errors (exit 64)")
struct UsageErrorTests {
    @Test("no arguments prints the overview on stderr")
    func noArguments() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph([], in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderr.contains("USAGE: audiograph"), "\(result)")
    }

    @Test("an unknown command suggests the closest one")
    func unknownCommand() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["rn", "levels.json"], in: dir)
        expectError(result, exit: 64, at: "rn")
        #expect(result.stderr.contains("unknown command"), "\(result)")
        #expect(result.stderr.contains("did you mean \"run\""), "\(result)")
    }

    @Test("help for an unknown command suggests the closest one")
    func helpUnknownCommand() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["help", "rn"], in: dir)
        expectError(result, exit: 64, at: "rn")
        #expect(result.stderr.contains("did you mean \"run\""), "\(result)")
    }

    @Test("docs with an unknown topic")
    func docsUnknownTopic() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["docs", "params"], in: dir)
        expectError(result, exit: 64, at: "params")
    }

    @Test("an unknown option is named, with a suggestion when one is close")
    func unknownOption() async throws {
        let dir = try TemporaryFolder()
        try dir.write("levels.json", Configs.levels())
        let bogus = try await Harness.audiograph(["run", "levels.json", "--bogus"], in: dir)
        expectError(bogus, exit: 64, at: "--bogus")
        #expect(bogus.stderr.contains("unknown option"), "\(bogus)")

        let typo = try await Harness.audiograph(["run", "levels.json", "--evnts", "jsonl"], in: dir)
        expectError(typo, exit: 64, at: "--evnts")
        #expect(typo.stderr.contains("did you mean \"--events\""), "\(typo)")
        #expect(!dir.exists("out/levels.wav"), "nothing runs after a usage error")
    }

    @Test("run and validate without CONFIG", arguments: ["run", "validate"])
    func missingConfig(_ command: String) async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph([command], in: dir)
        expectError(result, exit: 64, at: nil)
        #expect(result.stderr.contains("missing CONFIG"), "\(result)")
    }

    @Test("an extra positional argument")
    func unexpectedArgument() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["validate", "a.json", "b.json"], in: dir)
        expectError(result, exit: 64, at: "b.json")
        #expect(result.stderr.contains("unexpected argument"), "\(result)")
    }

    @Test("--events with a format other than jsonl")
    func eventsXML() async throws {
        let dir = try TemporaryFolder()
        try dir.write("levels.json", Configs.levels())
        let result = try await Harness.audiograph(["run", "levels.json", "--events", "xml"], in: dir)
        expectError(result, exit: 64, at: "--events")
        #expect(result.stderr.contains("xml"), "\(result)")
    }

    @Test("--events without a value")
    func eventsWithoutValue() async throws {
        let dir = try TemporaryFolder()
        try dir.write("levels.json", Configs.levels())
        let result = try await Harness.audiograph(["run", "levels.json", "--events"], in: dir)
        expectError(result, exit: 64, at: "--events")
        #expect(result.stderr.contains("expects a value"), "\(result)")
    }

    @Test("--set without '='")
    func setWithoutEquals() async throws {
        let dir = try TemporaryFolder()
        try dir.write("levels.json", Configs.levels())
        let result = try await Harness.audiograph(["run", "levels.json", "--set", "rs.sampleRate"], in: dir)
        expectError(result, exit: 64, at: "--set rs.sampleRate")
        #expect(result.stderr.contains("node.param=value"), "\(result)")
    }

    @Test("--set naming a node the config does not have")
    func setUnknownNode() async throws {
        let dir = try TemporaryFolder()
        try dir.write("levels.json", Configs.levels())
        let result = try await Harness.audiograph(["validate", "levels.json", "--set", "rss.sampleRate=8000"], in: dir)
        expectError(result, exit: 64, at: "--set rss.sampleRate=8000")
        #expect(result.stderr.contains("did you mean \"rs\""), "\(result)")
    }

    @Test("inspect with an unknown node type")
    func inspectUnknownType() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["inspect", "resampeler"], in: dir)
        expectError(result, exit: 64, at: "resampeler")
        #expect(result.stderr.contains("unknown node type"), "\(result)")
        #expect(result.stderr.contains("did you mean \"resampler\""), "\(result)")
    }

    @Test("inspect without a type")
    func inspectWithoutType() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["inspect"], in: dir)
        expectError(result, exit: 64, at: nil)
        #expect(result.stderr.contains("missing TYPE"), "\(result)")
    }
}
