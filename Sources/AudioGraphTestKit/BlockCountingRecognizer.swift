import AudioGraphCore

/// A recognizer for session tests (session logic only, never to judge recognition): every 0.1 s of 16 kHz
/// audio fed is one word, "w1 w2 …", with word times; it can do en-US and fr-FR.
public final class BlockCountingRecognizer: SpeechRecognizer {
    public let capabilities = RecognizerCapabilities(streaming: true, partialResults: true, wordTimings: true,
                                                     languages: ["en-US", "fr-FR"], sampleRate: 16000)
    private var fed = 0

    public init() {}

    public func startUtterance() throws { fed = 0 }
    public func process(_ samples: UnsafeBufferPointer<Float>) throws { fed += samples.count }
    public var words: [RecognizedWord] {
        (0..<(fed / 1600)).map { RecognizedWord(word: "w\($0 + 1)", start: Double($0) * 0.1, end: Double($0 + 1) * 0.1) }
    }
    public func partialHypothesis() -> String { words.map(\.word).joined(separator: " ") }
    public func endUtterance() throws -> RecognitionResult {
        RecognitionResult(text: partialHypothesis(), confidence: 1, words: words)
    }

    /// The engine under `name` (register it with `RecognizerEngines.register`).
    public static func engine(name: String) -> RecognizerEngine {
        RecognizerEngine(name: name, summary: "Counts 0.1 s blocks as words.",
                         capabilities: { _ in BlockCountingRecognizer().capabilities }, make: { _ in BlockCountingRecognizer() })
    }
}
