/// Issue 16, VAD item 2: speech longer than `maxSpeech` is split (`speechSplit`: it ends and the next starts at one
/// position) at the quietest point of the last `splitSearch` samples — a pause frame inside speech when there is
/// one, else the quietest frame — never past the window, never without `maxSpeech`; with the spectral detector on
/// real speech the split falls in a pause between words.
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphDSP

@Suite(.ownThreads) struct VADSpeechSplitTests {
    /// Frames of 10 samples; `levels[k]` and `speech[k]` per frame. Returns (frame index, action) pairs.
    private func run(_ machine: inout VADStateMachine, speech: [Bool], levels: [Float]) -> [(Int, VADStateMachine.Action)] {
        var actions: [(Int, VADStateMachine.Action)] = []
        for k in speech.indices {
            if let action = machine.frame(start: Int64(k * 10), end: Int64(k * 10 + 10), isSpeech: speech[k], levelDb: levels[k]) {
                actions.append((k, action))
            }
        }
        if let last = machine.finish(at: Int64(speech.count * 10)) { actions.append((speech.count, last)) }
        return actions
    }

    @Test func splitsAtTheQuietestPauseFrameOfTheSearchWindow() {
        // 100 frames of speech at -20 dB; pause frames (non-speech, shorter than the hangover) at 60 (-40 dB),
        // 75 (-55 dB: the quietest) and 30 (-70 dB, but before the search window).
        var speech = [Bool](repeating: true, count: 100)
        var levels = [Float](repeating: -20, count: 100)
        for (k, level) in [(30, Float(-70)), (60, -40), (75, -55)] {
            speech[k] = false
            levels[k] = level
        }
        // Quieter speech frame at 70: a pause frame wins over it.
        levels[70] = -60
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0, maxSpeech: 800, splitSearch: 300)
        let actions = run(&machine, speech: speech, levels: levels)
        #expect(actions.map(\.1) == [.speechStarted(at: 0), .speechSplit(at: 755), .speechEnded(at: 1000)])
        #expect(actions[1].0 == 79, "decided when speech reached 800 samples")
    }

    @Test func withoutPausesTheQuietestFrameIsTakenAndSplitsRepeat() {
        var levels = [Float](repeating: -20, count: 300)
        levels[70] = -35
        levels[150] = -33
        levels[240] = -30
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0, maxSpeech: 800, splitSearch: 300)
        let actions = run(&machine, speech: [Bool](repeating: true, count: 300), levels: levels)
        // 705 (frame 70, decided at sample 800); then 800 samples on, frame 150 (1505); then all frames are
        // equal and the first of each window is taken.
        #expect(actions.first?.1 == .speechStarted(at: 0))
        #expect(actions.last?.1 == .speechEnded(at: 3000))
        let splits = actions.compactMap { if case .speechSplit(let at) = $0.1 { return at } else { return nil } }
        #expect(splits.first == 705 && splits.dropFirst().first == 1505)
        var previous: Int64 = 0
        for split in splits {
            #expect(split - previous <= 800 && split - previous >= 500, "each piece between maxSpeech - search and maxSpeech")
            previous = split
        }
    }

    @Test func noMaxSpeechNoSplit() {
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0)
        let actions = run(&machine, speech: [Bool](repeating: true, count: 1000), levels: [Float](repeating: -20, count: 1000))
        #expect(actions.map(\.1) == [.speechStarted(at: 0), .speechEnded(at: 10000)])
    }

    /// Real speech: five librivox sentences joined by 300 ms pauses (under the 650 ms hangover) make about 25 s
    /// of speech with pauses shorter than the hangover; with maxSpeechMs 12000 the spectral detector splits it inside one of those pauses.
    @Test func realSpeechIsSplitInAPauseBetweenSentences() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AudioGraphSpeechTests/Fixtures")
        var samples: [Float] = []
        var pauses: [ClosedRange<Double>] = []
        for name in ["librivox_0870", "librivox_0890", "librivox_0920", "librivox_0880", "librivox_0930"] {
            let clip = try readMono16k(fixtures.appendingPathComponent(name + ".wav"))
            // The clips hold ~0.25 s of room tone at each end: trim it, so the pauses are 300 ms.
            samples += clip[4000..<(clip.count - 3200)]
            let start = Double(samples.count) / 16000
            samples += [Float](repeating: 0, count: 4800)
            pauses.append(start...(start + 0.3))
        }
        let detector = VoiceActivityDetector(sampleRate: 16000, configuration: VADConfiguration(maxSpeechMs: 12_000))
        var actions: [VADStateMachine.Action] = []
        try samples.withUnsafeBufferPointer { try detector.process($0) { actions.append($0) } }
        if let last = detector.finish() { actions.append(last) }
        let splits = actions.compactMap { if case .speechSplit(let at) = $0 { return Double(at) / 16000 } else { return nil } }
        #expect(!splits.isEmpty, "\(actions)")
        for split in splits {
            #expect(pauses.contains { $0.contains(split) }, "split at \(split) s is not in a pause: \(pauses)")
        }
    }

    private func readMono16k(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        // 16-bit mono 16 kHz with a 44-byte header (these fixtures).
        let body = data.dropFirst(44)
        return stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map {
            Float(Int16(bitPattern: UInt16(body[$0]) | UInt16(body[$0 + 1]) << 8)) / 32768
        }
    }
}
