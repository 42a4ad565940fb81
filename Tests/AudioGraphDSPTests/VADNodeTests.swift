import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphDSP

// Harness tests for `vad`: pass-through, event times on a synthetic utterance, noise alone, chunking invariance,
// channels, rates, stream offsets and end of stream.
//
// Time tolerances. A decision covers a 10 ms frame, measured with a window of 32 ms at 16 kHz (±16 ms around
// the frame) and averaged over 9 frames (±40 ms): an onset or offset can move by up to about 56 ms from where
// the sound crosses the threshold. The synthetic syllables also fade in and out (sin² envelope), so the
// threshold is crossed a little after the envelope starts and a little before it ends. Starts and ends are
// therefore checked within ±60 ms. In noise, within ±100 ms: at the start the fade-in sinks under the noise, and
// the first speech of a stream passes only once the classifier knows a speech level (a frame 6 dB over the floor
// or clearly harmonic; see `VADClassifier`), which the fading first syllable reaches later at 10 dB SNR; at the
// end the lower flatnessOff threshold (hysteresis) holds the decision until the 9-frame average has dropped
// back under it, which can take the whole window after the last syllable fades.

private let mono16k = AudioFormat(sampleRate: 16_000, channels: 1)
private let defaultPreRoll = Double(VADConfiguration.defaults.preRollMs) / 1000
private let defaultHangover = Double(VADConfiguration.defaults.hangoverMs) / 1000

/// Silence 1 s, speech-like 2 s, silence 1 s (plus noise at `noiseRMS` if given).
private func utterance(sampleRate: Int, noiseRMS: Float? = nil) -> [Float] {
    let clean = VADSignals.silence(seconds: 1, sampleRate: sampleRate)
        + VADSignals.speechLike(seconds: 2, sampleRate: sampleRate)
        + VADSignals.silence(seconds: 1, sampleRate: sampleRate)
    guard let noiseRMS else { return clean }
    return VADSignals.mix(clean, VADSignals.whiteNoise(seconds: 4, sampleRate: sampleRate, rms: noiseRMS))
}

@Suite(.ownThreads) struct VADNodeTests {
    // MARK: declaration

    @Test func descriptorDeclaresTheNode() throws {
        let d = VADNode.descriptor
        #expect(d.type == "vad")
        #expect(d.category == .filter)
        #expect(d.execution == .inline)
        #expect(d.inputs.count == 1 && d.inputs[0].requires == [.audio])
        #expect(d.outputs.count == 1 && d.outputs[0].produces == [.speech] && d.outputs[0].forwardsInput)
        #expect(d.parameters.map(\.name) == ["engine", "aggressiveness", "hangoverMs", "minSpeechMs", "preRollMs", "pauseHintMs", "maxSpeechMs"])
        #expect(d.parameterGroups?.selector == "engine")
        #expect(d.parameter(named: "aggressiveness")?.kind == .integer(range: 0...3))
        #expect(d.parameter(named: "aggressiveness")?.defaultValue == .number(1))
        #expect(d.parameter(named: "hangoverMs")?.defaultValue == .number(650))
        #expect(d.parameter(named: "minSpeechMs")?.defaultValue == .number(100))
        #expect(d.parameter(named: "preRollMs")?.defaultValue == .number(50))
        #expect(d.parameter(named: "pauseHintMs")?.kind == .integer(range: 0...5000))
        #expect(d.parameter(named: "pauseHintMs")?.defaultValue == .number(200))
        #expect(d.parameters.allSatisfy { !$0.doc.isEmpty })
    }

    @Test func acceptsRates8To48kHzAndAnyChannelCount() {
        let accepted = VADNode.descriptor.acceptedFormats
        for rate in [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000] {
            #expect(accepted.accepts(AudioFormat(sampleRate: rate, channels: 1)))
        }
        #expect(accepted.accepts(AudioFormat(sampleRate: 48_000, channels: 6)))
        #expect(!accepted.accepts(AudioFormat(sampleRate: 96_000, channels: 1)))
        #expect(!accepted.accepts(AudioFormat(sampleRate: 4_000, channels: 1)))
        #expect(accepted.closest(to: AudioFormat(sampleRate: 96_000, channels: 2)) == AudioFormat(sampleRate: 48_000, channels: 2))
    }

    @Test func rejectsParametersOutOfRange() {
        #expect(throws: GraphError.self) {
            _ = try NodeHarness(type: VADNode.self, parameters: ["aggressiveness": 4], input: mono16k)
        }
        #expect(throws: GraphError.self) {
            _ = try NodeHarness(type: VADNode.self, parameters: ["hangoverMs": -1], input: mono16k)
        }
    }

    // MARK: pass-through

    @Test func passesAudioAndEventsThroughUntouched() throws {
        let harness = try NodeHarness(type: VADNode.self, id: "vad", input: mono16k)
        let input = Signals.buffers(utterance(sampleRate: 16_000, noiseRMS: 0.01), format: mono16k,
                                    framesPerBuffer: 777, startingAt: 0)
        let upstream = Event(node: "level", time: 0.5, payload: .level(LevelReading(level: 0.1, rmsDb: [-50], peakDb: [-40])))
        for (i, buffer) in input.enumerated() {
            try harness.push(buffer)
            if i == 10 { try harness.push(upstream) }
        }
        try harness.push(.flush)
        try harness.finish()
        #expect(harness.buffers() == input)
        #expect(harness.events.contains(upstream))
        #expect(harness.output.contains { if case .control(.flush) = $0.frame { return true } else { return false } })
        // The upstream event comes right after the buffer it followed.
        let index = try #require(harness.output.firstIndex { $0.frame.event == upstream })
        #expect(harness.output[index - 1].frame.audioBuffer == input[10])
        // Its own events are stamped with its id.
        #expect(harness.events.filter { $0.node == "vad" }.count == 2)
    }

    // MARK: event times

    @Test func utteranceInSilenceStartsAndEndsOnTime() throws {
        let harness = try VADRun.node(utterance(sampleRate: 16_000), format: mono16k)
        let events = harness.speechEvents
        try #require(events.count == 2, "\(events)")
        #expect(events[0].started && abs(events[0].time - (1.0 - defaultPreRoll)) < 0.06, "\(events)")
        #expect(!events[1].started && abs(events[1].time - 3.0) < 0.06, "\(events)")
    }

    /// Each event is emitted right after the buffer in which it was decided: the start once minSpeech has been
    /// heard, the end once the hangover has passed (each plus the analysis delay, 16 + 5 + 40 ms).
    @Test func eventsAreEmittedAfterTheDecidingBuffer() throws {
        let harness = try VADRun.node(utterance(sampleRate: 16_000), format: mono16k, framesPerBuffer: 160)
        let audioEnd = harness.output.reduce(into: [Double]()) { ends, item in
            ends.append(item.frame.audioBuffer?.endTime ?? ends.last ?? 0)
        }
        let startIndex = try #require(harness.output.firstIndex { $0.frame.event?.payload == .speechStarted })
        let endIndex = try #require(harness.output.firstIndex { $0.frame.event?.payload == .speechEnded })
        let minSpeech = Double(VADConfiguration.defaults.minSpeechMs) / 1000
        // Emitted after audio up to the decision point, and within one 10 ms buffer of it.
        let startDecision = audioEnd[startIndex]
        let endDecision = audioEnd[endIndex]
        let delay = 0.061
        #expect(startDecision > 1.0 + minSpeech - 0.06 && startDecision < 1.0 + minSpeech + delay + 0.07,
                "start decided at \(startDecision)")
        #expect(endDecision > 3.0 + defaultHangover - 0.06 && endDecision < 3.0 + defaultHangover + delay + 0.07,
                "end decided at \(endDecision)")
    }

    @Test(arguments: [0.003, 0.01, 0.03] as [Float])
    func utteranceInNoiseStartsAndEndsOnTime(noiseRMS: Float) throws {
        // The utterance's RMS over its 2 s is about 0.09: SNR 30, 19 and 10 dB.
        let harness = try VADRun.node(utterance(sampleRate: 16_000, noiseRMS: noiseRMS), format: mono16k)
        let events = harness.speechEvents
        try #require(events.count == 2, "\(events)")
        #expect(abs(events[0].time - (1.0 - defaultPreRoll)) < 0.1, "\(events)")
        #expect(abs(events[1].time - 3.0) < 0.1, "\(events)")
    }

    @Test func preRollAndParametersShapeTheEvents() throws {
        let harness = try VADRun.node(utterance(sampleRate: 16_000), format: mono16k,
                                      parameters: ["preRollMs": 300, "hangoverMs": 100, "minSpeechMs": 50])
        let events = harness.speechEvents
        // With a 100 ms hangover the 4 Hz syllables (silent for ~60-100 ms between them) may split; the first
        // start carries the 300 ms pre-roll and the last end is the utterance's.
        try #require(events.count >= 2 && events.count % 2 == 0, "\(events)")
        #expect(abs(events.first!.time - 0.7) < 0.06, "\(events)")
        #expect(abs(events.last!.time - 3.0) < 0.06, "\(events)")
        // Later starts are clamped to the previous end: segments never overlap.
        let segments = VADRun.segments(events)
        for (a, b) in zip(segments, segments.dropFirst()) { #expect(b.start >= a.end) }
    }

    @Test func speechAtTheEndOfTheStreamEndsThere() throws {
        let samples = VADSignals.silence(seconds: 1, sampleRate: 16_000)
            + VADSignals.speechLike(seconds: 1.9, sampleRate: 16_000)  // cut mid-syllable
        let harness = try VADRun.node(samples, format: mono16k)
        let events = harness.speechEvents
        try #require(events.count == 2, "\(events)")
        #expect(events[1] == SpeechEvent(started: false, time: 2.9))
        // Emitted at finish: after every buffer.
        #expect(harness.output.last?.frame.event?.payload == .speechEnded)
    }

    @Test func streamOffsetShiftsTheTimes() throws {
        let offset: Int64 = 16_000 * 5
        let shifted = try VADRun.node(utterance(sampleRate: 16_000), format: mono16k, startingAt: offset)
        let plain = try VADRun.node(utterance(sampleRate: 16_000), format: mono16k)
        #expect(shifted.speechEvents.map(\.started) == plain.speechEvents.map(\.started))
        for (a, b) in zip(shifted.speechEvents, plain.speechEvents) { #expect(abs(a.time - b.time - 5) < 1e-9) }
    }

    // MARK: noise alone

    @Test(arguments: [0.0003, 0.003, 0.03, 0.3] as [Float])
    func whiteNoiseAloneIsNotSpeech(rms: Float) throws {
        let harness = try VADRun.node(VADSignals.whiteNoise(seconds: 10, sampleRate: 16_000, rms: rms), format: mono16k)
        #expect(harness.speechEvents.isEmpty, "\(harness.speechEvents)")
    }

    @Test(arguments: [0.003, 0.1] as [Float])
    func pinkNoiseAloneIsNotSpeech(rms: Float) throws {
        let harness = try VADRun.node(VADSignals.pinkNoise(seconds: 10, sampleRate: 16_000, rms: rms), format: mono16k)
        #expect(harness.speechEvents.isEmpty, "\(harness.speechEvents)")
    }

    /// Noise that jumps 20 dB (a fan switched on): the floor catches up and no speech is reported after it has.
    @Test func noiseLevelStepSettles() throws {
        let samples = VADSignals.whiteNoise(seconds: 3, sampleRate: 16_000, rms: 0.002, seed: 5)
            + VADSignals.pinkNoise(seconds: 7, sampleRate: 16_000, rms: 0.02, seed: 6)
        let harness = try VADRun.node(samples, format: mono16k)
        for segment in VADRun.segments(harness.speechEvents) { #expect(segment.end < 3 + 2.5, "\(segment)") }
    }

    @Test func digitalSilenceIsNotSpeech() throws {
        let harness = try VADRun.node(VADSignals.silence(seconds: 5, sampleRate: 16_000), format: mono16k)
        #expect(harness.speechEvents.isEmpty)
    }

    // MARK: invariance

    /// The same events, to the sample, whether the audio comes one frame at a time or in big buffers.
    @Test func chunkingDoesNotChangeTheEvents() throws {
        let rate = 8_000
        let format = AudioFormat(sampleRate: rate, channels: 1)
        let samples = VADSignals.mix(
            VADSignals.silence(seconds: 0.6, sampleRate: rate) + VADSignals.speechLike(seconds: 1.2, sampleRate: rate)
                + VADSignals.silence(seconds: 0.7, sampleRate: rate) + VADSignals.speechLike(seconds: 0.5, sampleRate: rate),
            VADSignals.whiteNoise(seconds: 3, sampleRate: rate, rms: 0.01))
        let reference = try VADRun.node(samples, format: format, framesPerBuffer: samples.count).speechEvents
        #expect(reference.count == 4, "\(reference)")
        for size in [1, 7, 80, 333, 4_096] {
            let events = try VADRun.node(samples, format: format, framesPerBuffer: size).speechEvents
            #expect(events == reference, "framesPerBuffer \(size)")
        }
    }

    @Test func identicalChannelsGiveTheMonoEvents() throws {
        let mono = utterance(sampleRate: 16_000, noiseRMS: 0.01)
        var stereo = [Float](repeating: 0, count: mono.count * 2)
        for i in mono.indices { stereo[2 * i] = mono[i]; stereo[2 * i + 1] = mono[i] }
        let a = try VADRun.node(mono, format: mono16k).speechEvents
        let b = try VADRun.node(stereo, format: AudioFormat(sampleRate: 16_000, channels: 2)).speechEvents
        #expect(a == b)
        #expect(a.count == 2)
    }

    @Test func speechInOneChannelOfFourIsFound() throws {
        let speech = utterance(sampleRate: 16_000)
        let noise = VADSignals.whiteNoise(seconds: 4, sampleRate: 16_000, rms: 0.003)
        var samples = [Float](repeating: 0, count: speech.count * 4)
        for i in speech.indices {
            samples[4 * i] = speech[i]
            samples[4 * i + 2] = noise[i]
        }
        let events = try VADRun.node(samples, format: AudioFormat(sampleRate: 16_000, channels: 4)).speechEvents
        try #require(events.count == 2, "\(events)")
        #expect(abs(events[0].time - (1.0 - defaultPreRoll)) < 0.1)
        #expect(abs(events[1].time - 3.0) < 0.1)
    }

    @Test(arguments: [8_000, 11_025, 22_050, 44_100, 48_000])
    func worksAtEveryRate(rate: Int) throws {
        let events = try VADRun.node(utterance(sampleRate: rate, noiseRMS: 0.003),
                                     format: AudioFormat(sampleRate: rate, channels: 1)).speechEvents
        try #require(events.count == 2, "\(events)")
        #expect(abs(events[0].time - (1.0 - defaultPreRoll)) < 0.1, "\(events)")
        #expect(abs(events[1].time - 3.0) < 0.1, "\(events)")
    }

    /// Aggressiveness 0 reports at least as much speech as 3 on a hard case (speech at about 0 dB SNR).
    @Test func lowerAggressivenessReportsMoreSpeech() throws {
        let samples = utterance(sampleRate: 16_000, noiseRMS: 0.09)
        var totals: [Double] = []
        for level in 0...3 {
            let harness = try VADRun.node(samples, format: mono16k, parameters: ["aggressiveness": .number(Double(level))])
            totals.append(VADRun.segments(harness.speechEvents).reduce(0) { $0 + $1.end - $1.start })
        }
        for (a, b) in zip(totals, totals.dropFirst()) { #expect(a >= b, "\(totals)") }
    }

    /// `stop` without `finish` (after a failure elsewhere) reports nothing more and is idempotent.
    @Test func stopWithoutFinishEmitsNothing() throws {
        let harness = try NodeHarness(type: VADNode.self, input: mono16k)
        try harness.push(utterance(sampleRate: 16_000).prefix(16_000 * 2).map { $0 })
        let before = harness.output.count
        harness.stop()
        harness.stop()
        #expect(harness.output.count == before)
    }

    // MARK: pause hints

    /// Runs the node on a hand-made context (the harness has no observer and runs as batch): what it sent
    /// downstream, and what observers saw.
    private func runWithObserver(realtime: Bool, parameters: JSONObject = JSONObject())
        throws -> (output: [Event], observed: [Event]) {
        let values = try ParameterValidation.validate(parameters, against: VADNode.descriptor, at: .root / "nodes" / "vad")
        let node = try VADNode(configuration: NodeConfiguration(id: "vad", type: "vad", values: values))
        var output: [Event] = []
        var observed: [Event] = []
        let context = NodeContext(nodeID: "vad", inputFormat: mono16k, outputFormat: mono16k, clock: ManualClock(),
                                  options: RunOptions(realtime: realtime),
                                  output: { _, frame in if case .event(let event) = frame { output.append(event) } },
                                  observer: { observed.append($0) })
        try node.start(context)
        for buffer in Signals.buffers(utterance(sampleRate: 16_000), format: mono16k, framesPerBuffer: 1024, startingAt: 0) {
            try node.process(buffer, context)
        }
        try node.finish(context)
        node.stop()
        return (output, observed)
    }

    private static func isPauseHint(_ event: Event) -> Bool {
        if case .custom(SpeechHints.speechPausing, .speech, _) = event.payload { return true }
        return false
    }

    @Test func inRealTimeThePauseHintIsForwardedButNotObserved() throws {
        let (output, observed) = try runWithObserver(realtime: true)
        let hints = output.filter(Self.isPauseHint)
        // The syllables' pauses (≤ 100 ms) are shorter than the 200 ms default: one hint, in the final pause.
        try #require(hints.count == 1, "\(output)")
        #expect(hints[0].node == "vad")
        let end = try #require(output.first { $0.payload == .speechEnded })
        #expect(hints[0].time == end.time, "stamped where the speechEnded that follows is")
        let hintIndex = try #require(output.firstIndex(where: Self.isPauseHint))
        let endIndex = try #require(output.firstIndex { $0.payload == .speechEnded })
        #expect(hintIndex < endIndex)
        // Observers see the speech events only.
        #expect(observed.map(\.payload) == [.speechStarted, .speechEnded])
        #expect(!observed.contains(where: Self.isPauseHint))
    }

    @Test func noPauseHintInBatchRunsOrWithPauseHintZeroOrNotBelowTheHangover() throws {
        #expect(!(try runWithObserver(realtime: false).output.contains(where: Self.isPauseHint)))
        #expect(!(try runWithObserver(realtime: true, parameters: ["pauseHintMs": 0]).output.contains(where: Self.isPauseHint)))
        #expect(!(try runWithObserver(realtime: true, parameters: ["pauseHintMs": 650]).output.contains(where: Self.isPauseHint)))
        // A shorter hangover with a hint below it still hints once.
        let short = try runWithObserver(realtime: true, parameters: ["hangoverMs": 400, "pauseHintMs": 150])
        #expect(short.output.filter(Self.isPauseHint).count >= 1)
    }
}
