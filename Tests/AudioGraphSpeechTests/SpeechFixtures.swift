import AudioGraphCore
import AudioGraphIO
import Foundation

/// The real-speech fixtures (PocketSphinx test data; see Fixtures/SOURCES.md).
enum SpeechFixtures {
    static let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name + ".wav") }

    /// `id -> transcript` from references.tsv.
    static let references: [String: String] = {
        let text = (try? String(contentsOf: folder.appendingPathComponent("references.tsv"), encoding: .utf8)) ?? ""
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }()

    /// Clips that hold one utterance each (everything with a reference; chan3_16k has none).
    static let singleUtteranceClips = references.keys.sorted()

    /// Reads a whole fixture (they are short) as 16 kHz mono samples.
    static func samples(_ name: String) throws -> [Float] {
        let reader = try SoundFileReader(path: url(name).path)
        var samples = [Float](repeating: 0, count: Int(reader.frameCount ?? 0) * reader.channels)
        let frames = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: Int(reader.frameCount ?? 0)) }
        return Array(samples.prefix(frames * reader.channels))
    }

    static let format = AudioFormat(sampleRate: 16000, channels: 1)
}

/// Word error rate of `hypothesis` against `reference` (lowercase words; "mister" and "mr" are the same word,
/// as the en-US language model writes "mr").
func wordErrors(reference: String, hypothesis: String) -> (errors: Int, words: Int) {
    func words(_ text: String) -> [String] {
        text.lowercased().split(separator: " ").map { $0 == "mister" ? "mr" : String($0) }
    }
    let r = words(reference), h = words(hypothesis)
    var previous = Array(0...h.count)
    for i in 1...max(1, r.count) where !r.isEmpty {
        var current = [i] + [Int](repeating: 0, count: h.count)
        for j in 1...max(1, h.count) where !h.isEmpty {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r[i - 1] == h[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return (r.isEmpty ? h.count : previous[h.count], r.count)
}
