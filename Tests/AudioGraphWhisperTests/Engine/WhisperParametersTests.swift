/// Issue 15, engine `whisper`, item "Engine parameters": exactly the contract's names, each documented with its
/// default, read into the settings the decoder uses; beam search decodes real speech too.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperParametersTests {
    @Test func namesAreTheContracts() {
        #expect(WhisperEngine.parameters.map(\.name) == ["model", "threads", "beamSize", "packing", "audioContext",
                                                         "noSpeechThreshold",
                                                         "logProbThreshold", "compressionRatioThreshold", "initialPrompt",
                                                         "contextWords"])
        #expect(WhisperEngine.parameters.allSatisfy { $0.doc.contains("efault") })
        #expect(WhisperEngine.parameters.first?.kind == .path(.model))
    }

    @Test func settingsReadEveryParameter() {
        let settings = WhisperSettings(["model": "/m/ggml-base.bin", "threads": 3, "beamSize": 4, "packing": "off",
                                        "audioContext": "fit", "noSpeechThreshold": 0.7, "logProbThreshold": -2, "compressionRatioThreshold": 3,
                                        "initialPrompt": "Dashwood", "contextWords": 30])
        #expect(settings.model == "/m/ggml-base.bin")
        #expect(settings.threads == 3 && settings.beamSize == 4 && settings.packing == .off && !settings.packs)
        #expect(settings.noSpeechThreshold == 0.7 && settings.logProbThreshold == -2 && settings.compressionRatioThreshold == 3)
        #expect(settings.initialPrompt == "Dashwood" && settings.contextWords == 30)
        #expect(WhisperSettings([:]).contextWords == 0)
        #expect(settings.audioContext == .fit)
        #expect(WhisperSettings([:]).audioContext == .auto)
    }

    /// Greedy unless `beamSize` asks for more than one beam.
    @Test func beamsAreGreedyUnlessAsked() {
        #expect(WhisperSettings([:]).beams == nil)
        #expect(WhisperSettings(["beamSize": 1]).beams == nil)
        #expect(WhisperSettings(["beamSize": 3]).beams == 3)
    }

    /// A beam search that loops is decoded again greedily (the hallucination rules would drop a loop whole: the
    /// multilingual set's zh lost its only final so). With a threshold every text exceeds, the retry must give
    /// exactly the greedy window; without one, the beams' own (which differ on this clip).
    @Test func aLoopingBeamSearchIsDecodedAgainGreedily() throws {
        guard let model = WhisperModel(path: try WhisperTestSupport.realModel()), let state = model.makeState() else {
            Issue.record("tiny.en did not load"); return
        }
        let clip = try WhisperTestSupport.samples("espeak_names_pink10")
        let utterance = Array(clip[Int(0.48 * 16000)..<Int(4.18 * 16000)])
        var beams = WhisperDecodeOptions(threads: 1, beamSize: 5, language: "en", initialPrompt: nil, noSpeechThreshold: 0.6,
                                         logProbThreshold: -1)
        var greedy = beams
        greedy.beamSize = nil
        let decode = { (options: WhisperDecodeOptions) in
            utterance.withUnsafeBufferPointer { state.decode($0, options) }.map { WhisperWords.text(of: WhisperWords.merge($0.tokens)) }
        }
        let greedyText = try #require(decode(greedy))
        let beamText = try #require(decode(beams))
        #expect(beamText != greedyText, "the clip no longer tells beams from greedy: \(beamText)")
        beams.compressionRatioThreshold = 0.01
        #expect(decode(beams) == greedyText)
        beams.compressionRatioThreshold = 2.4
        #expect(decode(beams) == beamText, "an ordinary sentence is kept")
    }

    @Test func beamSearchDecodesRealSpeech() throws {
        let recognizer = try WhisperTestSupport.realRecognizer(["packing": "off", "beamSize": 3])
        let result = try WhisperTestSupport.decode(recognizer, try WhisperTestSupport.samples("librivox_0870"))
        let counts = WordErrorRate.errors(reference: WhisperTestSupport.references["librivox_0870"] ?? "?", hypothesis: result.text)
        #expect(counts.errors <= 1, "\(result.text)")
        #expect(!result.words.isEmpty)
    }
}
