import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, item 5: `--dot FILE` wrote Graphviz text over whatever FILE was: `run c.json --dot in.wav`
/// replaced the recording, `--dot c.json` the config, both with exit 0. The dot file is now one more output in
/// the graph's conflict check: an input (or another output) is refused with 65 naming `--dot` and the node
/// path, before anything is written.
@Suite("security: --dot never writes over an input or an output")
struct DotOutputConflictTests {
    @Test("--dot naming the recording, the config or the wav-sink's output: validate and run exit 65, all kept",
          arguments: ["validate", "run"])
    func dotOverInputs(_ command: String) async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.3)
        try dir.write("c.json", Configs.direct(input: "in.wav", output: "out.wav"))
        let recording = try Data(contentsOf: dir.url.appendingPathComponent("in.wav"))
        let config = try dir.read("c.json")
        for (target, named) in [("in.wav", "nodes.src.path"), ("c.json", "the config file"), ("./out.wav", "nodes.out.path")] {
            let result = try await Harness.audiograph([command, "c.json", "--dot", target], in: dir)
            expectError(result, exit: 65, at: "--dot", mentioning: [named])
        }
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("in.wav")) == recording, "the recording is untouched")
        #expect(try dir.read("c.json") == config, "the config is untouched")
        #expect(!dir.exists("out.wav"), "nothing ran")
        // A file of its own is written as before.
        let fine = try await Harness.audiograph([command, "c.json", "--dot", "graph.dot"], in: dir)
        #expect(fine.status == 0, "\(fine)")
        #expect(try dir.read("graph.dot").hasPrefix("digraph audiograph {"))
    }
}
