/// Issue 15, engine `whisper`, item "Engine parameters": exactly the contract's names, each documented with its
/// default, read into the settings the decoder uses; beam search decodes real speech too.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite struct WhisperParametersTests {
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

    @Test func beamSearchDecodesRealSpeech() throws {
        let recognizer = try WhisperTestSupport.realRecognizer(["packing": "off", "beamSize": 3])
        let result = try WhisperTestSupport.decode(recognizer, try WhisperTestSupport.samples("librivox_0870"))
        let counts = WordErrorRate.errors(reference: WhisperTestSupport.references["librivox_0870"] ?? "?", hypothesis: result.text)
        #expect(counts.errors <= 1, "\(result.text)")
        #expect(!result.words.isEmpty)
    }
}
