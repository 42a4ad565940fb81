/// Issue 16, VAD item 1 (support): real speech, labels and the installed Silero model for the `silero` engine tests.
import AudioGraph
import AudioGraphWhisper
import Foundation
import Testing

enum SileroVADTestSupport {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let speechFixtures = repository.appendingPathComponent("Tests/AudioGraphSpeechTests/Fixtures")
    static let whisperFixtures = repository.appendingPathComponent("Tests/AudioGraphWhisperTests/Fixtures")

    /// The installed model (`audiograph models install silero`; scripts/test.sh does it). Tests fail without it.
    static func installedModel() throws -> String {
        SileroVADEngine.register()
        let path = SileroVADEngine.defaultModelPath()
        try #require(FileManager.default.fileExists(atPath: path),
                     "no Silero model at \(path): run `audiograph models install silero` (scripts/test.sh does)")
        return path
    }

    /// A fixture's samples (mono, its own rate).
    static func read(_ name: String) throws -> (samples: [Float], rate: Int) {
        let reader = try SoundFileReader(path: speechFixtures.appendingPathComponent(name + ".wav").path)
        var samples: [Float] = []
        var block = [Float](repeating: 0, count: 4096 * reader.channels)
        while true {
            let frames = try block.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: 4096) }
            if frames == 0 { break }
            for frame in 0..<frames { samples.append(block[frame * reader.channels]) }
        }
        return (samples, reader.sampleRate)
    }

    /// vad_labels.tsv: speech segments (seconds) per labelled fixture.
    static func labels() throws -> [String: [(Double, Double)]] {
        let text = try String(contentsOf: speechFixtures.appendingPathComponent("vad_labels.tsv"), encoding: .utf8)
        var labels: [String: [(Double, Double)]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t")
            guard fields.count == 3, let start = Double(fields[1]), let end = Double(fields[2]) else { continue }
            labels[String(fields[0]), default: []].append((start, end))
        }
        return labels
    }

    /// Runs `samples` through a detector in pieces of `pieces` samples; the start/end actions, in order.
    static func actions(_ samples: [Float], detector: VoiceActivityDetector, pieces: Int) throws -> [VADStateMachine.Action] {
        var actions: [VADStateMachine.Action] = []
        var offset = 0
        try samples.withUnsafeBufferPointer { all in
            while offset < all.count {
                let end = min(all.count, offset + pieces)
                try detector.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { actions.append($0) }
                offset = end
            }
        }
        if let last = detector.finish() { actions.append(last) }
        return actions.filter { if case .speechPausing = $0 { return false } else { return true } }
    }

    /// A silero detector at 16 kHz with the node's defaults.
    static func sileroDetector(threshold: Float = 0.5) throws -> VoiceActivityDetector {
        let model = try #require(SileroVADModel(path: try installedModel()))
        return VoiceActivityDetector(sampleRate: 16000, configuration: VADConfiguration(),
                                     frameClassifier: SileroFrameClassifier(model: model, threshold: threshold))
    }

    /// Segments (seconds) from start/end actions.
    static func segments(_ actions: [VADStateMachine.Action], rate: Int) -> [(Double, Double)] {
        var segments: [(Double, Double)] = []
        var open: Double?
        for action in actions {
            switch action {
            case .speechStarted(let at): open = Double(at) / Double(rate)
            case .speechEnded(let at):
                if let start = open { segments.append((start, Double(at) / Double(rate))) }
                open = nil
            case .speechSplit(let at):
                if let start = open { segments.append((start, Double(at) / Double(rate))) }
                open = Double(at) / Double(rate)
            case .speechPausing: break
            }
        }
        return segments
    }

    /// Frame F1 (10 ms frames) of `hypothesis` against `reference` over `seconds`.
    static func f1(_ hypothesis: [(Double, Double)], _ reference: [(Double, Double)], seconds: Double) -> Double {
        var tp = 0.0, fp = 0.0, fn = 0.0
        for frame in 0..<Int(seconds * 100) {
            let centre = (Double(frame) + 0.5) * 0.01
            let ref = reference.contains { centre >= $0.0 && centre < $0.1 }
            let hyp = hypothesis.contains { centre >= $0.0 && centre < $0.1 }
            if ref && hyp { tp += 1 } else if hyp { fp += 1 } else if ref { fn += 1 }
        }
        return tp == 0 ? 0 : 2 * tp / (2 * tp + fp + fn)
    }
}
