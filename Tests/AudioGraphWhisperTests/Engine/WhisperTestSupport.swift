/// Issue 15, engine `whisper`: shared helpers of the engine's tests (models, options, speech fixtures, WER).
import AudioGraphCore
import AudioGraphIO
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

enum WhisperTestSupport {
    static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    /// whisper.cpp's stand-in tiny.en (loads and decodes, says nothing useful): for plumbing tests.
    static var standInModel: String { fixtures.appendingPathComponent("for-tests-ggml-tiny.en.bin").path }

    /// The real tiny.en at the default path. Tests that need it fail (they do not skip) when it is missing.
    static func realModel(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = WhisperModelLocations.defaultModelPath()
        guard case .success = WhisperModelHeader.read(path) else {
            Issue.record("the real whisper model is missing at \(path): run `audiograph models install tiny.en`",
                         sourceLocation: sourceLocation)
            throw MissingModel()
        }
        return path
    }

    struct MissingModel: Error {}

    static func node(_ id: String = "asr") -> NodeConfiguration {
        NodeConfiguration(id: id, type: "recognizer", values: JSONObject())
    }

    static func options(_ parameters: JSONObject, realtime: Bool = false, wantsPartials: Bool = false,
                        language: String = "en-US") -> RecognizerOptions {
        var options = RecognizerOptions(language: language, parameters: parameters, verbose: false, node: node())
        options.realtime = realtime
        options.wantsPartials = wantsPartials
        return options
    }

    /// A recognizer with the real model, on one thread (ggml's OpenMP threads spin: on a loaded 2-core machine
    /// two threads decoded 3x slower than one).
    static func realRecognizer(_ extra: JSONObject = JSONObject(), realtime: Bool = false,
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> WhisperRecognizer {
        var parameters: JSONObject = ["model": .string(try realModel(sourceLocation: sourceLocation)), "threads": 1]
        for (key, value) in extra.entries { parameters[key] = value }
        return try WhisperRecognizer(options(parameters, realtime: realtime, wantsPartials: realtime))
    }

    /// A fixture clip as 16 kHz mono samples.
    static func samples(_ name: String) throws -> [Float] {
        let reader = try SoundFileReader(path: fixtures.appendingPathComponent(name + ".wav").path)
        let count = Int(reader.frameCount ?? 0)
        var samples = [Float](repeating: 0, count: count * reader.channels)
        let frames = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: count) }
        return Array(samples.prefix(frames * reader.channels))
    }

    /// `id -> transcript` of the speech fixtures (Fixtures/references.tsv).
    static let references: [String: String] = {
        let text = (try? String(contentsOf: fixtures.appendingPathComponent("references.tsv"), encoding: .utf8)) ?? ""
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }()

    /// One utterance decoded whole.
    static func decode(_ recognizer: WhisperRecognizer, _ samples: [Float]) throws -> RecognitionResult {
        try recognizer.startUtterance()
        try samples.withUnsafeBufferPointer { try recognizer.process($0) }
        return try recognizer.endUtterance()
    }
}
