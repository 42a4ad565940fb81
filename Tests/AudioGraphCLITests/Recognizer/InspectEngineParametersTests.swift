import AudioGraphTestKit
import Foundation
import Testing

/// Issue 15, "`audiograph inspect recognizer` lists the common parameters and then each engine's own" and
/// "`audiograph schema` accepts engine parameters": the commands as a user runs them.
@Suite struct InspectEngineParametersTests {
    @Test("inspect recognizer: the common parameters, then pocketsphinx's under a heading with its summary")
    func inspectListsEngineParameters() async throws {
        let directory = try TemporaryFolder()
        let result = try await Harness.audiograph(["inspect", "recognizer"], in: directory)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdoutLines
        let common = try #require(lines.firstIndex { $0.hasPrefix("  maxUtteranceSeconds  ") }, "\(result)")
        let heading = try #require(lines.firstIndex { $0 == "PARAMETERS OF ENGINE pocketsphinx (engine: \"pocketsphinx\"):" },
                                   "\(result)")
        let hmm = try #require(lines.firstIndex { $0.hasPrefix("  hmm  path (input folder)") }, "\(result)")
        #expect(common < heading && heading < hmm)
        #expect(lines[heading + 1].hasPrefix("  CMU PocketSphinx"))
    }

    @Test("schema: engine parameters are properties of the recognizer, with an if/then per engine")
    func schemaHasEngineParameters() async throws {
        let directory = try TemporaryFolder()
        let result = try await Harness.audiograph(["schema"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\"maxActiveHMMs\""), "\(result)")
        #expect(result.stdout.contains("\"const\":\"pocketsphinx\"") || result.stdout.contains("\"const\": \"pocketsphinx\""),
                "\(result.stdout.prefix(400))")
    }
}
