/// Issue 15, "Parameters": a whisper recognizer given a pocketsphinx parameter (`"hmm"`) is refused before any
/// audio flows, with exit 65 naming `nodes.asr.hmm` and saying whose parameter it is; an unknown one gets a
/// did-you-mean. Nothing is written.
import AudioGraphTestKit
import Foundation
import Testing

@Suite struct WhisperParameterErrorTests {
    @Test func anotherEnginesParameterIsRefusedByName() async throws {
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(["goforward"], in: dir)
        try dir.write("bad.json", WhisperCLI.sessionConfig(
            recognizer: #"{ "type": "recognizer", "engine": "whisper", "hmm": "x" }"#))
        let result = try await Harness.audiograph(["run", "bad.json"], in: dir)
        expectError(result, exit: 65, at: "nodes.asr.hmm")
        #expect(result.stderr.contains("pocketsphinx"), "should say hmm is a pocketsphinx parameter\n\(result)")
        #expect(!dir.exists("out/captions.json") && !dir.exists("out/store.sqlite"), "nothing may be written")
    }

    @Test func anUnknownWhisperParameterGetsADidYouMean() async throws {
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(["goforward"], in: dir)
        try dir.write("bad.json", WhisperCLI.sessionConfig(
            recognizer: #"{ "type": "recognizer", "engine": "whisper", "beamsize": 2 }"#))
        let result = try await Harness.audiograph(["run", "bad.json"], in: dir)
        expectError(result, exit: 65, at: "nodes.asr.beamsize")
        #expect(result.stderr.contains("beamSize"), "should suggest beamSize\n\(result)")
    }
}
