import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphSpeech

/// Shared helpers for the caption tests (names prefixed so they stay apart from other tests in this target).
enum CaptionTestSupport {
    static let session = SessionSettings(id: "golden-session", captionLanguage: "en-US")

    /// A fresh temporary directory, removed when `body` returns.
    static func withScratchDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let folder = try TemporaryFolder(prefix: "CaptionTests")
        return try withExtendedLifetime(folder) { try body(folder.path) }
    }

    /// The `GraphError` that `body` throws, or nil.
    static func graphError(_ body: () throws -> Void) -> GraphError? {
        do {
            try body()
            return nil
        } catch let error as GraphError {
            return error
        } catch {
            Issue.record("expected a GraphError, got \(error)")
            return nil
        }
    }

    static func transcript(_ update: TranscriptUpdate) -> Event {
        Event(node: "asr", time: update.end, payload: .transcript(update))
    }

    /// Words every `step` seconds, each `length` long, from `start`.
    static func words(_ text: String, from start: Double, step: Double, length: Double) -> [TranscriptUpdate.Word] {
        text.split(separator: " ").enumerated().map { index, word in
            let wordStart = start + Double(index) * step
            return TranscriptUpdate.Word(word: String(word), start: wordStart, end: wordStart + length,
                                         confidence: 0.9)
        }
    }

    static let longText = "then turn left at the second door and walk on until you reach the stairs near the big "
        + "window on the right side of the hall"

    /// The fixed event sequence behind the golden files: partials with revisions, finals with and without word
    /// times, a result in another language, a duplicate final, a stale partial, a partial never made final,
    /// and events a caption sink ignores.
    static var goldenEvents: [Event] {
        let goWords = [
            TranscriptUpdate.Word(word: "go", start: 0.52, end: 0.70, confidence: 0.92),
            TranscriptUpdate.Word(word: "forward", start: 0.75, end: 1.20, confidence: 0.85),
            TranscriptUpdate.Word(word: "ten", start: 1.30, end: 1.55, confidence: 0.74),
            TranscriptUpdate.Word(word: "meters", start: 1.60, end: 2.90, confidence: 0.73),
        ]
        let long = words(longText, from: 3.5, step: 0.45, length: 0.35)
        return [
            Event(node: "vad", time: 0.5, payload: .speechStarted),
            transcript(TranscriptUpdate(segment: 1, revision: 1, isFinal: false, start: 0.52, end: 0.9, text: "go")),
            Event(node: "level", time: 1.0, payload: .level(LevelReading(level: 0.4, rmsDb: [-24], peakDb: [-9]))),
            transcript(TranscriptUpdate(segment: 1, revision: 2, isFinal: false, start: 0.52, end: 1.8,
                                        text: "go forward")),
            transcript(TranscriptUpdate(segment: 1, revision: 3, isFinal: true, start: 0.52, end: 2.9,
                                        text: "go forward ten meters", confidence: 0.81, words: goWords)),
            // Stale: segment 1 is final.
            transcript(TranscriptUpdate(segment: 1, revision: 2, isFinal: false, start: 0.52, end: 1.8, text: "go fore")),
            transcript(TranscriptUpdate(segment: 2, revision: 1, isFinal: false, start: 3.5, end: 5, text: "then turn")),
            transcript(TranscriptUpdate(segment: 2, revision: 2, isFinal: false, start: 3.5, end: 8,
                                        text: "then turn left at the second door")),
            // A second final for segment 1 is ignored.
            transcript(TranscriptUpdate(segment: 1, revision: 4, isFinal: true, start: 0.52, end: 2.9, text: "DUPLICATE")),
            transcript(TranscriptUpdate(segment: 2, revision: 3, isFinal: true, start: 3.5, end: long.last!.end,
                                        text: longText, confidence: 0.66, words: long, language: "en-GB")),
            // No word times: spread over the result's time by character count.
            transcript(TranscriptUpdate(segment: 3, revision: 1, isFinal: true, start: 16.0, end: 17.2,
                                        text: "salt & pepper, please")),
            transcript(TranscriptUpdate(segment: 4, revision: 1, isFinal: true, start: 17.3, end: 17.5, text: "okay",
                                        confidence: 0.5, words: [TranscriptUpdate.Word(word: "okay", start: 17.3, end: 17.5)])),
            Event(node: "vad", time: 17.6, payload: .speechEnded),
            // Never made final: must not reach a file.
            transcript(TranscriptUpdate(segment: 5, revision: 1, isFinal: false, start: 18.0, end: 18.4, text: "and then")),
        ]
    }

    static func parameters(format: String, path: String? = nil) -> JSONObject {
        var parameters: JSONObject = ["format": .string(format)]
        if let path { parameters["path"] = .string(path) }
        return parameters
    }

    /// Runs the golden events through a `caption-sink` writing `format` and returns the file's text.
    static func render(format: String, fileName: String, in folder: String) throws -> String {
        let path = folder + "/" + fileName
        let harness = try NodeHarness(type: CaptionSinkNode.self, id: "cc", parameters: parameters(format: format, path: path),
                                      input: nil, session: session)
        try harness.push(Signals.buffers([Float](repeating: 0, count: 1600), format: AudioFormat(sampleRate: 16000, channels: 1),
                                         framesPerBuffer: 1600, startingAt: 0)[0])
        for event in goldenEvents { try harness.push(event) }
        try harness.push(.flush)
        try harness.finish()
        #expect(harness.output.isEmpty, "a sink sends nothing on")
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    static let goldenFolder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!
        .appendingPathComponent("golden")

    /// The golden file's text. With `CAPTION_UPDATE_GOLDEN=1` the file in the source tree is rewritten from
    /// `actual` instead (review the diff).
    static func golden(_ name: String, actual: String, file: String = #filePath) throws -> String {
        if ProcessInfo.processInfo.environment["CAPTION_UPDATE_GOLDEN"] == "1" {
            let source = URL(fileURLWithPath: file).deletingLastPathComponent()
                .appendingPathComponent("Fixtures/golden/\(name)")
            try actual.write(to: source, atomically: true, encoding: .utf8)
            return actual
        }
        return try String(contentsOf: goldenFolder.appendingPathComponent(name), encoding: .utf8)
    }
}

/// SplitMix64: a small deterministic generator, so property tests see the same inputs on every run.
struct CaptionRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
