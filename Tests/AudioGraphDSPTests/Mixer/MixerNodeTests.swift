import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphDSP

// Issue 35, item 5: `mixer` puts each feeder's audio on the call's clock. Driven with the harness and a manual
// clock, so a 10-minute call with network jitter, a late joiner, a mute and a stall runs in a moment.

private let rate = 8000
private let mono = AudioFormat(sampleRate: rate, channels: 1)

private func mixer(delayMs: Int = 500, feeders: Int = 1, live: Bool, clock: ManualClock = ManualClock(),
                   channels: Int = 1) throws -> NodeHarness<MixerNode> {
    let parameters = JSONObject([("sampleRate", .number(Double(rate))), ("channels", .number(Double(channels))),
                                 ("delayMs", .number(Double(delayMs)))])
    return try NodeHarness(type: MixerNode.self, id: "mix", parameters: parameters,
                           input: AudioFormat(sampleRate: rate, channels: channels), feeders: feeders, clock: clock,
                           options: RunOptions(realtime: live))
}

/// A deterministic generator for the network's jitter.
private struct SplitMix {
    var state: UInt64
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}

/// One participant of the simulated call: when they send (muted in between: nothing is sent and their stream
/// positions run on without a gap, as a participant-source's do), a network stall, and 50 ms marker tones.
private struct Sender {
    let feeder: FeederID
    let spans: [(start: Double, end: Double)]
    var stall: (at: Double, seconds: Double)?
    let markers: [Double]

    /// Each 20 ms block: its stream position, samples, and when it reaches the mixer (sent when complete, then
    /// 0–80 ms of jitter, in order as over TCP; blocks completed during a stall arrive when it clears).
    func blocks(_ random: inout SplitMix) -> [(arrival: Double, buffer: AudioBuffer)] {
        let frames = rate / 50
        var result: [(Double, AudioBuffer)] = []
        var position: Int64 = 0
        var lastArrival = 0.0
        for span in spans {
            var block = 0
            while true {
                let start = span.start + Double(block) * 0.02
                if start + 0.02 > span.end + 1e-9 { break }
                var samples = [Float](repeating: 0, count: frames)
                let marked = markers.contains { $0 < start + 0.02 && $0 + 0.05 > start }
                for index in 0..<frames where marked {
                    let time = start + Double(index) / Double(rate)
                    if let marker = markers.first(where: { time >= $0 && time < $0 + 0.05 }) {
                        samples[index] = Float(0.8 * sin(2 * Double.pi * 440 * (time - marker)))
                    }
                }
                var arrival = start + 0.02 + random.next() * 0.08
                if let stall, start + 0.02 >= stall.at, start + 0.02 <= stall.at + stall.seconds {
                    arrival = max(arrival, stall.at + stall.seconds)
                }
                arrival = max(arrival, lastArrival)
                lastArrival = arrival
                result.append((arrival, AudioBuffer(format: mono, samples: samples, position: position)))
                position += Int64(frames)
                block += 1
            }
        }
        return result
    }
}

/// Times (seconds) where a marker starts in `samples`: a sample above 0.3 after 0.2 s without one.
private func onsets(_ samples: [Float]) -> [Double] {
    var found: [Double] = []
    var lastLoud = -Int.max / 2
    for (index, sample) in samples.enumerated() where abs(sample) > 0.3 {
        if index - lastLoud > rate / 5 { found.append(Double(index) / Double(rate)) }
        lastLoud = index
    }
    return found
}

@Suite struct MixerNodeTests {
    @Test func aTenMinuteCallOfThreeSendersLandsEachMarkerWhereItWasSent() throws {
        let clock = ManualClock()
        let mix = try mixer(live: true, clock: clock)
        let alice = Sender(feeder: FeederID(node: "rs", serial: 1), spans: [(0, 600)],
                           markers: [10, 123.4, 333.3, 598])
        // Bob joins late, mutes for a minute and leaves early.
        let bob = Sender(feeder: FeederID(node: "rs", serial: 2), spans: [(95.3, 200), (260, 420)],
                         markers: [100, 199, 265, 419])
        // Carol's network stalls for 0.4 s: what she said meanwhile arrives in a burst.
        let carol = Sender(feeder: FeederID(node: "rs", serial: 3), spans: [(30, 600)], stall: (300, 0.4),
                           markers: [31, 300.2, 450])
        var random = SplitMix(state: 42)
        var timeline: [(arrival: Double, feeder: FeederID, buffer: AudioBuffer?)] = []
        for sender in [alice, bob, carol] {
            let blocks = sender.blocks(&random)
            timeline += blocks.map { ($0.arrival, sender.feeder, $0.buffer) }
            timeline.append((blocks.last!.arrival, sender.feeder, nil))  // the end of their stream
        }
        timeline.sort { $0.arrival < $1.arrival }
        var outputWhileRunning = 0
        for (arrival, feeder, buffer) in timeline {
            clock.advance(by: arrival - clock.now())
            if let buffer { try mix.push(buffer, from: feeder) } else { try mix.end(feeder) }
            if arrival > 300, outputWhileRunning == 0 { outputWhileRunning = mix.samples().count }
        }
        clock.advance(by: 600.5 - clock.now())  // the call ends
        try mix.finish()

        let samples = mix.samples()
        #expect(abs(Double(samples.count) / Double(rate) - 600.5) <= 0.05, "the recording lasts the call")
        #expect(Double(outputWhileRunning) / Double(rate) > 299, "the mix is written as the call goes, 500 ms behind")
        let expected = (alice.markers + bob.markers + carol.markers).sorted()
        let found = onsets(samples)
        #expect(found.count == expected.count, "found markers at \(found)")
        for (sent, landed) in zip(expected, found) {
            #expect(abs(landed - sent) <= 0.1, "a marker sent at \(sent) s landed at \(landed) s")
        }
        #expect(mix.warnings.isEmpty, "\(mix.warnings)")
        let positions = mix.buffers().map(\.position)
        #expect(positions == positions.sorted() && positions.first == 0)
        #expect(mix.buffers().allSatisfy { $0.frameCount <= 4096 }, "written in small blocks")
    }

    @Test func filesMixByStreamPositionAndWaitForEveryFeeder() throws {
        let mix = try mixer(feeders: 2, live: false)
        let a = FeederID(node: "a", serial: 1), b = FeederID(node: "b", serial: 2)
        // A is heard first and runs ahead: nothing is written until B has been heard too.
        for block in 0..<4 {
            try mix.push(AudioBuffer(format: mono, samples: [Float](repeating: 0.25, count: 1000),
                                     position: Int64(block) * 1000), from: a)
        }
        #expect(mix.samples().isEmpty, "B has not been heard from")
        for block in 0..<8 {
            try mix.push(AudioBuffer(format: mono, samples: [Float](repeating: 0.5, count: 1000),
                                     position: Int64(block) * 1000), from: b)
        }
        #expect(mix.samples().count == 4000, "written as far as both reached")
        try mix.end(b)
        for block in 4..<16 {
            try mix.push(AudioBuffer(format: mono, samples: [Float](repeating: 0.25, count: 1000),
                                     position: Int64(block) * 1000), from: a)
        }
        #expect(mix.samples().count == 16000, "once B ended, A alone decides")
        try mix.end(a)
        try mix.finish()
        let samples = mix.samples()
        #expect(samples.count == 16000)
        #expect(samples[0..<8000].allSatisfy { $0 == 0.75 } && samples[8000...].allSatisfy { $0 == 0.25 })
    }

    @Test func theSumIsClippedAndStereoStaysInterleaved() throws {
        let mix = try mixer(feeders: 2, live: false, channels: 2)
        let stereo = AudioFormat(sampleRate: rate, channels: 2)
        let a = FeederID(node: "a", serial: 1), b = FeederID(node: "b", serial: 2)
        try mix.push(AudioBuffer(format: stereo, samples: [0.8, -0.1, 0.8, -0.1], position: 0), from: a)
        try mix.push(AudioBuffer(format: stereo, samples: [0.7, -0.2, -0.7, -0.95], position: 0), from: b)
        try mix.end(a)
        try mix.end(b)
        try mix.finish()
        #expect(mix.samples() == [1, Float(-0.1) + Float(-0.2), Float(0.8) + Float(-0.7), -1])
    }

    @Test func audioLaterThanTheDelayIsMovedNotDropped() throws {
        let clock = ManualClock(now: 5)
        let mix = try mixer(delayMs: 100, live: true, clock: clock)
        let a = FeederID(node: "a", serial: 1), b = FeederID(node: "b", serial: 2)
        clock.advance(by: 1)
        try mix.push(AudioBuffer(format: mono, samples: [Float](repeating: 0, count: 160), position: 0), from: b)
        #expect(mix.samples().count == rate * 9 / 10, "written up to 100 ms ago")
        clock.advance(by: 0.05)
        // 300 ms of audio in one message: it began at 0.75 s, but the mixer wrote up to 0.9 s already.
        try mix.push(AudioBuffer(format: mono, samples: [Float](repeating: 0.1, count: 2400), position: 0), from: a)
        clock.advance(by: 0.95)
        try mix.finish()
        let samples = mix.samples()
        #expect(abs(samples.reduce(0, +) - 240) < 0.01, "every sample is in the recording")
        #expect(samples.count == 2 * rate, "the recording lasts the call")
        #expect(mix.warnings.contains { $0.contains("mixer \"mix\"") && $0.contains("\"a\"") && $0.contains("delayMs") },
                "\(mix.warnings)")
    }

    @Test func aFeederFarAheadDoesNotGrowMemory() throws {
        let mix = try mixer(feeders: 2, live: false)
        let a = FeederID(node: "a", serial: 1)
        // B never sends: after 30 s of A held, the mixer writes on without waiting.
        for block in 0..<40 {
            try mix.push(AudioBuffer(format: mono, samples: [Float](repeating: 0.1, count: rate),
                                     position: Int64(block * rate)), from: a)
        }
        #expect(mix.samples().count >= 9 * rate && mix.samples().count <= 11 * rate)
        #expect(mix.warnings.contains { $0.contains("ahead of the others") }, "\(mix.warnings)")
    }
}
