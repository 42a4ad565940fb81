import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphDSP

// Harness tests for `level-meter` against signals of known RMS and peak, and tests of `LevelAnalyzer` alone.

private let mono16k = AudioFormat(sampleRate: 16_000, channels: 1)

private func meter(intervalMs: Int? = nil, input: AudioFormat = mono16k, id: String = "level") throws
    -> NodeHarness<LevelMeterNode> {
    var parameters = JSONObject()
    if let intervalMs { parameters["intervalMs"] = .number(Double(intervalMs)) }
    return try NodeHarness(type: LevelMeterNode.self, id: id, parameters: parameters, input: input)
}

private func readings(_ events: [Event]) -> [LevelReading] {
    events.compactMap { event in
        if case .level(let reading) = event.payload { return reading }
        return nil
    }
}

/// Interleaves one array per channel.
private func interleave(_ channels: [[Float]]) -> [Float] {
    var samples: [Float] = []
    for frame in 0..<channels[0].count {
        for channel in channels { samples.append(channel[frame]) }
    }
    return samples
}

/// Feeds `samples` to `analyzer` in pieces of the given frame counts (cycled); returns the readings and, for each,
/// the stream frame just after its window.
private func analyze(_ analyzer: inout LevelAnalyzer, _ samples: [Float], pieces: [Int]) -> [(LevelReading, Int)] {
    var result: [(LevelReading, Int)] = []
    var start = 0
    var index = 0
    while start < samples.count {
        let end = min(start + pieces[index % pieces.count] * analyzer.channels, samples.count)
        let base = start / analyzer.channels
        Array(samples[start..<end]).withUnsafeBufferPointer { piece in
            analyzer.add(piece) { reading, frame in result.append((reading, base + frame)) }
        }
        start = end
        index += 1
    }
    return result
}

@Suite(.ownThreads) struct LevelMeterTests {
    /// Audio goes through untouched: the same buffers, samples and positions, with events between them.
    @Test func passesAudioThroughUntouched() throws {
        let harness = try meter(intervalMs: 100)
        let input = Signals.buffers(Signals.noise(seconds: 0.5, sampleRate: 16_000, seed: 4), format: mono16k,
                                    framesPerBuffer: 1_000, startingAt: 123)
        for buffer in input { try harness.push(buffer) }
        try harness.finish()
        #expect(harness.buffers() == input)
        #expect(harness.outputFormat == mono16k)
        #expect(harness.events.count == 5)
    }

    /// Each event comes right after the buffer in which its window ends, stamped with the window's end.
    @Test func eventsFollowTheBufferWhereTheirWindowEnds() throws {
        let harness = try meter(intervalMs: 100)  // 1600-frame windows
        try harness.push(Signals.constant(0.1, seconds: 0.25, sampleRate: 16_000), framesPerBuffer: 1_000)
        // Buffers end at 1000, 2000, 3000, 4000: windows end at 1600 (buffer 2) and 3200 (buffer 4).
        let kinds = harness.output.map { $0.frame.audioBuffer != nil ? "a" : "e" }.joined()
        #expect(kinds == "aaeaae")
        #expect(harness.events.map(\.time) == [0.1, 0.2])
        #expect(harness.events.allSatisfy { $0.node == "level" })
    }

    static let knownSignals: [(String, [Float], Double, Double)] = [
        // 1 kHz at 16 kHz: 16 samples a period, 100 periods a window, and a sample exactly at each crest.
        ("full-scale sine", Signals.sine(frequency: 1_000, seconds: 1, sampleRate: 16_000, amplitude: 1), -3.0103, 0),
        ("half-scale sine", Signals.sine(frequency: 1_000, seconds: 1, sampleRate: 16_000, amplitude: 0.5), -9.0309, -6.0206),
        ("DC 0.25", Signals.constant(0.25, seconds: 1, sampleRate: 16_000), -12.0412, -12.0412),
        ("DC -0.5", Signals.constant(-0.5, seconds: 1, sampleRate: 16_000), -6.0206, -6.0206),
    ]

    @Test(arguments: knownSignals)
    func knownLevels(name: String, samples: [Float], rmsDb: Double, peakDb: Double) throws {
        let harness = try meter(intervalMs: 100)
        try harness.push(samples, framesPerBuffer: 512)
        try harness.finish()
        let levels = readings(harness.events)
        #expect(levels.count == 10)
        for reading in levels {
            #expect(reading.rmsDb.count == 1 && reading.peakDb.count == 1)
            #expect(abs(reading.rmsDb[0] - rmsDb) < 0.05, "\(name): rms \(reading.rmsDb[0])")
            #expect(abs(reading.peakDb[0] - peakDb) < 0.05, "\(name): peak \(reading.peakDb[0])")
            #expect(abs(reading.level - (rmsDb + 60) / 60) < 0.001, "\(name): level \(reading.level)")
        }
    }

    /// Uniform noise in ±A has RMS A/√3 and a peak just under A.
    @Test func uniformNoise() throws {
        let harness = try meter(intervalMs: 1_000)
        try harness.push(Signals.noise(seconds: 2, sampleRate: 16_000, amplitude: 0.5, seed: 17), framesPerBuffer: 4_096)
        try harness.finish()
        let levels = readings(harness.events)
        #expect(levels.count == 2)
        for reading in levels {
            #expect(abs(reading.rmsDb[0] - 20 * log10(0.5 / 3.0.squareRoot())) < 0.1, "rms \(reading.rmsDb[0])")
            #expect(reading.peakDb[0] <= LevelAnalyzer.decibels(0.5))
            #expect(reading.peakDb[0] > LevelAnalyzer.decibels(0.499))
        }
    }

    @Test func silenceReadsTheFloor() throws {
        let harness = try meter(intervalMs: 50, input: AudioFormat(sampleRate: 8_000, channels: 2))
        try harness.push(Signals.constant(0, seconds: 0.2, sampleRate: 8_000, channels: 2))
        try harness.finish()
        let levels = readings(harness.events)
        #expect(levels.count == 4)
        for reading in levels {
            #expect(reading.rmsDb == [LevelAnalyzer.minimumDb, LevelAnalyzer.minimumDb])
            #expect(reading.peakDb == [LevelAnalyzer.minimumDb, LevelAnalyzer.minimumDb])
            #expect(reading.level == 0)
        }
    }

    /// Each channel is measured on its own; `level` follows the loudest.
    @Test func perChannelReadings() throws {
        let left = Signals.sine(frequency: 1_000, seconds: 0.5, sampleRate: 16_000, amplitude: 0.25)
        let right = Signals.constant(-0.5, seconds: 0.5, sampleRate: 16_000)
        let silent = Signals.constant(0, seconds: 0.5, sampleRate: 16_000)
        let harness = try meter(intervalMs: 250, input: AudioFormat(sampleRate: 16_000, channels: 3))
        try harness.push(interleave([left, right, silent]), framesPerBuffer: 700)
        try harness.finish()
        let levels = readings(harness.events)
        #expect(levels.count == 2)
        for reading in levels {
            #expect(reading.rmsDb.count == 3 && reading.peakDb.count == 3)
            guard reading.rmsDb.count == 3, reading.peakDb.count == 3 else { continue }
            #expect(abs(reading.rmsDb[0] - -15.0515) < 0.05, "left rms \(reading.rmsDb[0])")
            #expect(abs(reading.peakDb[0] - -12.0412) < 0.05, "left peak \(reading.peakDb[0])")
            #expect(abs(reading.rmsDb[1] - -6.0206) < 0.05, "right rms \(reading.rmsDb[1])")
            #expect(abs(reading.peakDb[1] - -6.0206) < 0.05, "right peak \(reading.peakDb[1])")
            #expect(reading.rmsDb[2] == LevelAnalyzer.minimumDb)
            #expect(reading.peakDb[2] == LevelAnalyzer.minimumDb)
            #expect(reading.level == LevelReading.normalizedLevel(rmsDb: reading.rmsDb[1]))
        }
    }

    /// The documented mapping: -60 dBFS (and below) → 0, 0 dBFS (and above) → 1, linear in between.
    @Test func levelMapping() {
        #expect(LevelReading.floorDb == -60)
        #expect(LevelReading.normalizedLevel(rmsDb: -60) == 0)
        #expect(LevelReading.normalizedLevel(rmsDb: 0) == 1)
        #expect(LevelReading.normalizedLevel(rmsDb: -30) == 0.5)
        #expect(LevelReading.normalizedLevel(rmsDb: -45) == 0.25)
        #expect(LevelReading.normalizedLevel(rmsDb: -120) == 0)
        #expect(LevelReading.normalizedLevel(rmsDb: 6) == 1)
    }

    /// 100 ms windows over 1 s at 16 kHz: exactly ten events, at 0.1 … 1.0 s, and nothing more at the end.
    @Test func tenEventsASecond() throws {
        let harness = try meter(intervalMs: 100)
        try harness.push(Signals.sine(frequency: 440, seconds: 1, sampleRate: 16_000), framesPerBuffer: 1_024)
        let beforeFinish = harness.output.count
        try harness.finish()
        #expect(harness.output.count == beforeFinish)  // no partial window left
        #expect(harness.events.map(\.time) == (1...10).map { Double($0) / 10 })
        #expect(harness.events.allSatisfy { $0.node == "level" })
        #expect(harness.events.allSatisfy { $0.payload.kind == .level })
    }

    /// A partial window at end of stream gives one more event, at the stream's end, measuring only that part.
    @Test func partialLastWindow() throws {
        let harness = try meter(intervalMs: 100)
        let samples = Signals.constant(0, seconds: 1, sampleRate: 16_000)
            + Signals.constant(0.5, seconds: 0.05, sampleRate: 16_000)
        try harness.push(samples, framesPerBuffer: 1_000)
        #expect(harness.events.count == 10)
        try harness.finish()
        let events = harness.events
        #expect(events.count == 11)
        #expect(events.last?.time == 1.05)
        let last = try #require(readings(events).last)
        #expect(abs(last.rmsDb[0] - -6.0206) < 0.001, "rms of the last 50 ms \(last.rmsDb[0])")
        #expect(abs(last.peakDb[0] - -6.0206) < 0.001)
        #expect(readings(events).dropLast().allSatisfy { $0.rmsDb == [LevelAnalyzer.minimumDb] })
    }

    /// Event times are stream times: they follow the positions of the buffers, not a count from zero.
    @Test func timesFollowStreamPositions() throws {
        let harness = try meter(intervalMs: 500, input: AudioFormat(sampleRate: 8_000, channels: 1))
        try harness.push(Signals.constant(0.1, seconds: 1.25, sampleRate: 8_000), framesPerBuffer: 800,
                         startingAt: 16_000)
        try harness.finish()
        #expect(harness.events.map(\.time) == [2.5, 3.0, 3.25])
    }

    /// One frame per buffer, odd sizes and one big buffer: identical audio and identical events (times, values).
    @Test func bufferSizeDoesNotChangeTheReadings() throws {
        let format = AudioFormat(sampleRate: 16_000, channels: 2)
        let samples = Signals.noise(seconds: 1.03, sampleRate: 16_000, channels: 2, amplitude: 0.7, seed: 21)
        var runs: [(audio: [Float], events: [Event])] = []
        for framesPerBuffer in [1, 7, 1_600, 4_096, 16_480] {
            let harness = try meter(intervalMs: 100, input: format)
            try harness.push(samples, framesPerBuffer: framesPerBuffer)
            try harness.finish()
            runs.append((harness.samples(), harness.events))
        }
        #expect(runs[0].events.count == 11)
        for (index, run) in runs.enumerated().dropFirst() {
            #expect(run.audio == samples, "run \(index)")
            #expect(run.events == runs[0].events, "run \(index)")
        }
        #expect(runs[0].audio == samples)
    }

    @Test func intervalIsValidated() {
        #expect(throws: GraphError.self) { _ = try meter(intervalMs: 5) }
    }

    @Test func defaultIntervalIs100ms() throws {
        let harness = try meter()
        try harness.push(Signals.constant(0.2, seconds: 0.5, sampleRate: 16_000))
        try harness.finish()
        #expect(harness.events.map(\.time) == [0.1, 0.2, 0.3, 0.4, 0.5])
    }
}

extension LevelMeterTests {
    /// `LevelAnalyzer` alone, apart from any node.
    struct LevelAnalyzerTests {
        @Test func decibels() {
            #expect(LevelAnalyzer.decibels(1) == 0)
            #expect(abs(LevelAnalyzer.decibels(0.5) - -6.0206) < 1e-4)
            #expect(abs(LevelAnalyzer.decibels(0.1) - -20) < 1e-9)
            #expect(LevelAnalyzer.decibels(0) == LevelAnalyzer.minimumDb)
            #expect(LevelAnalyzer.decibels(1e-9) == LevelAnalyzer.minimumDb)  // -180 dB clamps to the floor
            #expect(LevelAnalyzer.minimumDb == -120)
        }

        /// Windows complete where they should, reported with the index just after their last frame.
        @Test func windowsAndReportIndices() {
            var analyzer = LevelAnalyzer(channels: 2, windowFrames: 4)
            // 10 frames: left 0.5 throughout, right 0 then 1 from frame 6.
            let samples = interleave([[Float](repeating: 0.5, count: 10),
                                      [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]])
            var reports: [(LevelReading, Int)] = []
            samples.withUnsafeBufferPointer { buffer in
                analyzer.add(buffer) { reports.append(($0, $1)) }
            }
            #expect(reports.map(\.1) == [4, 8])
            #expect(reports[0].0.rmsDb[1] == LevelAnalyzer.minimumDb)
            #expect(abs(reports[1].0.rmsDb[1] - -3.0103) < 1e-3)  // two of four frames at 1
            #expect(reports[1].0.peakDb == [LevelAnalyzer.decibels(0.5), 0])
            let last = analyzer.flush()
            #expect(last?.rmsDb == [LevelAnalyzer.decibels(0.5), 0])  // the last two frames
            #expect(analyzer.flush() == nil)
        }

        @Test func windowsSpanCalls() {
            var analyzer = LevelAnalyzer(channels: 1, windowFrames: 5)
            let samples: [Float] = [1, -1, 1, -1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25]
            let reports = analyze(&analyzer, samples, pieces: [3])
            #expect(reports.map(\.1) == [5, 10])
            #expect(reports.map(\.0.rmsDb) == [[0], [LevelAnalyzer.decibels(0.5)]])
            #expect(reports.map(\.0.peakDb) == [[0], [LevelAnalyzer.decibels(0.5)]])
            #expect(analyzer.flush()?.peakDb == [LevelAnalyzer.decibels(0.25)])
        }

        /// Feeding the same samples in any pieces gives the same readings at the same places.
        @Test func piecesDoNotMatter() {
            // 8000 frames in windows of 1500: long sums, where rounding would show a different order of additions.
            let samples = Signals.noise(seconds: 1, sampleRate: 8_000, channels: 3, amplitude: 0.9, seed: 99)
            var reference = LevelAnalyzer(channels: 3, windowFrames: 1_500)
            let whole = analyze(&reference, samples, pieces: [8_000])
            let wholeRest = reference.flush()
            #expect(whole.count == 5)
            #expect(wholeRest != nil)
            for pieces in [[1], [7], [1_499, 2], [1_500], [100, 1, 5]] {
                var analyzer = LevelAnalyzer(channels: 3, windowFrames: 1_500)
                let split = analyze(&analyzer, samples, pieces: pieces)
                #expect(split.map(\.1) == whole.map(\.1), "pieces \(pieces)")
                #expect(split.map(\.0) == whole.map(\.0), "pieces \(pieces)")
                #expect(analyzer.flush() == wholeRest, "pieces \(pieces)")
            }
        }

        @Test func emptyAnalyzerFlushesNothing() {
            var analyzer = LevelAnalyzer(channels: 1, windowFrames: 10)
            #expect(analyzer.flush() == nil)
            [Float]().withUnsafeBufferPointer { empty in
                analyzer.add(empty) { _, _ in Issue.record("no window in no samples") }
            }
            #expect(analyzer.flush() == nil)
        }
    }
}
