/// Issue 15, engine `whisper`, item "No invented speech": with the real tiny.en model, 60 s of silence, of pink
/// noise and of tones, fed as utterances of 2–30 s (packed as a file run would, and some of them one window
/// each), give no final text at all.
import AudioGraphCore
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.serialized, .ownThreads) struct WhisperNonSpeechTests {
    /// Utterance lengths in seconds, 60 s in all (packed: decoded in two or three shared windows).
    static let lengths: [Double] = [2, 3, 5, 8, 12, 30]
    /// The lengths decoded one window each: a short one and a whole window (every decode costs about the
    /// same, so the suite's time is their count; all six took 3 minutes of CI).
    static let oneByOneLengths: [Double] = [2, 30]

    enum Signal: String, CaseIterable {
        case silence, pinkNoise, tones
    }

    /// 60 s of the signal, deterministic.
    static func samples(_ signal: Signal) -> [Float] {
        let count = 60 * 16000
        switch signal {
        case .silence:
            return [Float](repeating: 0, count: count)
        case .pinkNoise:
            // White noise from a fixed LCG through Paul Kellet's pink filter, at about -20 dBFS.
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            var b = [Double](repeating: 0, count: 7)
            return (0..<count).map { _ in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let white = Double(Int64(bitPattern: (seed >> 11) << 11)) / Double(Int64.max)
                b[0] = 0.99886 * b[0] + white * 0.0555179
                b[1] = 0.99332 * b[1] + white * 0.0750759
                b[2] = 0.96900 * b[2] + white * 0.1538520
                b[3] = 0.86650 * b[3] + white * 0.3104856
                b[4] = 0.55000 * b[4] + white * 0.5329522
                b[5] = -0.7616 * b[5] - white * 0.0168980
                let pink = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + white * 0.5362
                b[6] = white * 0.115926
                return Float(pink * 0.03)
            }
        case .tones:
            // A tone a second, stepping through 300 Hz … 3.4 kHz (dial tones, beeps), at -10 dBFS.
            let frequencies = [300.0, 440, 697, 1000, 1209, 1633, 2000, 2600, 3400]
            return (0..<count).map { i in
                let f = frequencies[(i / 16000) % frequencies.count]
                return Float(0.3 * sin(2 * Double.pi * f * Double(i) / 16000))
            }
        }
    }

    static func utterances(_ signal: Signal, lengths: [Double] = lengths) -> [[Float]] {
        let all = samples(signal)
        var start = 0
        return lengths.map { seconds in
            defer { start += Int(seconds * 16000) }
            return Array(all[start..<(start + Int(seconds * 16000))])
        }
    }

    @Test(arguments: Signal.allCases) func utteranceByUtteranceGivesNoText(_ signal: Signal) throws {
        let recognizer = try WhisperTestSupport.realRecognizer(["packing": "off"])
        for (index, utterance) in Self.utterances(signal, lengths: Self.oneByOneLengths).enumerated() {
            let result = try WhisperTestSupport.decode(recognizer, utterance)
            #expect(result.text == "", "\(signal) utterance \(index) (\(Self.oneByOneLengths[index]) s): \"\(result.text)\"")
            #expect(result.words.isEmpty)
        }
        print("whisper \(signal) one by one: rejected \(recognizer.rejections)")
    }

    @Test(arguments: Signal.allCases) func packedGivesNoText(_ signal: Signal) throws {
        try expectNoTextPacked(signal, parameters: [:], label: "greedy")
    }

    /// The same with whisper-cli's decoding (5 beams, temperature fallback): on the tones the beams wrote "beep beep
    /// beep beep beep beep", which the repeated-word rule drops.
    @Test(arguments: Signal.allCases) func packedWithBeamsGivesNoText(_ signal: Signal) throws {
        try expectNoTextPacked(signal, parameters: ["beamSize": 5, "temperatureIncrement": 0.2], label: "5 beams")
    }

    private func expectNoTextPacked(_ signal: Signal, parameters: JSONObject, label: String) throws {
        let recognizer = try WhisperTestSupport.realRecognizer(parameters)
        var results: [RecognitionResult] = []
        for utterance in Self.utterances(signal) {
            try recognizer.startUtterance()
            try utterance.withUnsafeBufferPointer { try recognizer.process($0) }
            results += try recognizer.endUtteranceDeferring(speechEndsAfter: nil)
        }
        results += try recognizer.flushDeferredResults()
        #expect(results.count == Self.lengths.count)
        #expect(results.allSatisfy { $0.text.isEmpty }, "\(signal), \(label): \(results.map(\.text))")
        print("whisper \(signal) packed, \(label) (\(recognizer.finalDecodes) decodes): rejected \(recognizer.rejections)")
    }

    /// The tests above can fail: with the no-speech rule off (threshold 1), whisper writes text on 5 s of silence
    /// ("You" with tiny.en, as whisper-cli does with `-nth 1.0`).
    @Test func withoutTheNoSpeechRuleSilenceGetsText() throws {
        let silence = [Float](repeating: 0, count: 5 * 16000)
        let permissive = try WhisperTestSupport.realRecognizer(["packing": "off", "noSpeechThreshold": 1])
        #expect(try WhisperTestSupport.decode(permissive, silence).text != "")
        let strict = try WhisperTestSupport.realRecognizer(["packing": "off"])
        #expect(try WhisperTestSupport.decode(strict, silence).text == "")
    }
}
