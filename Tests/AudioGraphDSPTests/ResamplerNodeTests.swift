import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphDSP

// Harness tests for the `resampler` node: formats, a known sine, positions, chunking, pass-through, events.

private func resamplerParameters(sampleRate: Int? = nil, channels: Int? = nil, engine: ResamplerEngine? = nil,
                                 quality: ResamplerQuality? = nil) -> JSONObject {
    var parameters = JSONObject()
    if let sampleRate { parameters["sampleRate"] = .number(Double(sampleRate)) }
    if let channels { parameters["channels"] = .number(Double(channels)) }
    if let engine { parameters["engine"] = .string(engine.rawValue) }
    if let quality { parameters["quality"] = .string(quality.rawValue) }
    return parameters
}

/// Every audio buffer is in `format`, the first at `start`, each after the one before.
private func checkConsecutive(_ buffers: [AudioBuffer], format: AudioFormat?, from start: Int64 = 0,
                              sourceLocation: SourceLocation = #_sourceLocation) {
    var position = start
    for (index, buffer) in buffers.enumerated() {
        #expect(buffer.format == format, "buffer \(index)", sourceLocation: sourceLocation)
        #expect(buffer.position == position, "buffer \(index)", sourceLocation: sourceLocation)
        position = buffer.endPosition
    }
}

/// One channel of interleaved samples.
private func channel(_ samples: [Float], _ index: Int, of channels: Int) -> [Float] {
    stride(from: index, to: samples.count, by: channels).map { samples[$0] }
}

private func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    guard a.count == b.count else { return .infinity }
    var worst: Float = 0
    for i in a.indices { worst = max(worst, abs(a[i] - b[i])) }
    return worst
}

/// How many samples `samples[range]` lags a sine of `frequency` with zero phase at sample 0, from its phase.
private func lagInSamples(_ samples: [Float], from start: Int, to end: Int, frequency: Double, sampleRate: Int) -> Double {
    let omega = 2 * Double.pi * frequency / Double(sampleRate)
    var sinPart = 0.0, cosPart = 0.0
    for n in start..<end {
        sinPart += Double(samples[n]) * sin(omega * Double(n))
        cosPart += Double(samples[n]) * cos(omega * Double(n))
    }
    // A·sin(ωn − φ) correlates to (N·A/2)·cos φ with sin(ωn) and −(N·A/2)·sin φ with cos(ωn).
    return atan2(-cosPart, sinPart) / omega
}

private let allCombinations: [(ResamplerEngine, ResamplerQuality)] =
    ResamplerEngine.allCases.flatMap { engine in ResamplerQuality.allCases.map { (engine, $0) } }

@Suite(.ownThreads) struct ResamplerNodeTests {
    static let stereo44k = AudioFormat(sampleRate: 44_100, channels: 2)

    @Test func outputFormatComesFromTheParameters() throws {
        let input = Self.stereo44k
        let cases: [(JSONObject, AudioFormat)] = [
            (resamplerParameters(sampleRate: 16_000, channels: 1), AudioFormat(sampleRate: 16_000, channels: 1)),
            (resamplerParameters(sampleRate: 48_000), AudioFormat(sampleRate: 48_000, channels: 2)),
            (resamplerParameters(channels: 1), AudioFormat(sampleRate: 44_100, channels: 1)),
            (resamplerParameters(channels: 6), AudioFormat(sampleRate: 44_100, channels: 6)),
            (resamplerParameters(), input),
        ]
        for (parameters, expected) in cases {
            let harness = try NodeHarness(type: ResamplerNode.self, parameters: parameters, input: input)
            #expect(harness.outputFormat == expected)
            #expect(try harness.node.outputFormat(for: AudioFormat(sampleRate: 8_000, channels: 3))
                    == AudioFormat(sampleRate: parameters["sampleRate"]?.intValue ?? 8_000,
                                   channels: parameters["channels"]?.intValue ?? 3))
            harness.stop()
        }
        let configuration = NodeConfiguration(id: "rs", type: "resampler", values: resamplerParameters(sampleRate: 16_000))
        #expect(try ResamplerNode(configuration: configuration).outputFormat(for: nil) == nil)
    }

    @Test func parametersAreValidated() {
        #expect(throws: GraphError.self) {
            _ = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(sampleRate: 500),
                                input: Self.stereo44k)
        }
        var parameters = JSONObject()
        parameters["engine"] = "ffmpeg"
        #expect(throws: GraphError.self) {
            _ = try NodeHarness(type: ResamplerNode.self, parameters: parameters, input: Self.stereo44k)
        }
    }

    /// 1 kHz sine, 44100 Hz stereo, 1 s → 16000 Hz mono: the right length, pitch, amplitude and timing.
    @Test(arguments: allCombinations)
    func knownSine(engine: ResamplerEngine, quality: ResamplerQuality) throws {
        let harness = try NodeHarness(type: ResamplerNode.self,
                                      parameters: resamplerParameters(sampleRate: 16_000, channels: 1, engine: engine,
                                                                      quality: quality),
                                      input: Self.stereo44k)
        let output = AudioFormat(sampleRate: 16_000, channels: 1)
        #expect(harness.outputFormat == output)
        try harness.push(Signals.sine(frequency: 1_000, seconds: 1, sampleRate: 44_100, channels: 2, amplitude: 0.5),
                         framesPerBuffer: 1_024)
        try harness.finish()

        let buffers = harness.buffers()
        checkConsecutive(buffers, format: output)
        let samples = harness.samples()
        #expect(abs(samples.count - 16_000) <= 2, "\(samples.count) frames")
        #expect(buffers.last?.endPosition == Int64(samples.count))

        let steady = Array(samples[1_000..<15_000])  // away from the filter's start-up and tail
        let at1000 = Signals.power(of: 1_000, in: steady, sampleRate: 16_000)
        let at1100 = Signals.power(of: 1_100, in: steady, sampleRate: 16_000)
        #expect(at1000 > 1_000 * at1100, "power at 1000 Hz \(at1000), at 1100 Hz \(at1100)")
        let amplitude = Signals.rms(steady) * 2.0.squareRoot()
        #expect(abs(amplitude - 0.5) < 0.5 * 0.03, "amplitude \(amplitude)")

        // In time with the input: the output's phase against the ideal 1 kHz sine at 16 kHz says how many output
        // samples it lags (libsamplerate's linear mode lags one input frame, about 0.36 output samples).
        let lag = lagInSamples(samples, from: 1_000, to: 15_000, frequency: 1_000, sampleRate: 16_000)
        #expect(abs(lag) < 0.5, "output lags the input by \(lag) samples")
    }

    /// Positions continue from where the input starts (scaled to the output rate), without gaps.
    @Test func positionsFollowTheInput() throws {
        let harness = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(sampleRate: 16_000),
                                      input: Self.stereo44k)
        try harness.push(Signals.noise(seconds: 0.5, sampleRate: 44_100, channels: 2), framesPerBuffer: 441,
                         startingAt: 88_200)
        try harness.finish()
        let buffers = harness.buffers()
        #expect(!buffers.isEmpty)
        checkConsecutive(buffers, format: AudioFormat(sampleRate: 16_000, channels: 2), from: 32_000)
        #expect(abs(Int(buffers.last!.endPosition) - 40_000) <= 2)
    }

    static let chunkingCases: [(ResamplerEngine, ResamplerQuality, Int, Int, Int, Int)] =
        allCombinations.flatMap { engine, quality in
            [(engine, quality, 44_100, 2, 16_000, 1), (engine, quality, 16_000, 1, 48_000, 2)]
        }

    /// One frame per buffer and 4096-frame buffers give bit-identical output, in total and frame for frame.
    @Test(arguments: chunkingCases)
    func bufferSizeDoesNotChangeTheOutput(engine: ResamplerEngine, quality: ResamplerQuality, inRate: Int,
                                          inChannels: Int, outRate: Int, outChannels: Int) throws {
        let input = AudioFormat(sampleRate: inRate, channels: inChannels)
        let signal = zip(Signals.sine(frequency: 440, seconds: 0.3, sampleRate: inRate, channels: inChannels, amplitude: 0.4),
                         Signals.noise(seconds: 0.3, sampleRate: inRate, channels: inChannels, amplitude: 0.3, seed: 5))
            .map { $0 + $1 }
        var outputs: [[Float]] = []
        for framesPerBuffer in [1, 4_096] {
            let harness = try NodeHarness(type: ResamplerNode.self,
                                          parameters: resamplerParameters(sampleRate: outRate, channels: outChannels,
                                                                          engine: engine, quality: quality),
                                          input: input)
            try harness.push(signal, framesPerBuffer: framesPerBuffer)
            try harness.finish()
            checkConsecutive(harness.buffers(), format: harness.outputFormat)
            outputs.append(harness.samples())
        }
        let expectedFrames = Int((0.3 * Double(outRate)).rounded())
        #expect(abs(outputs[1].count / outChannels - expectedFrames) <= 2, "\(outputs[1].count / outChannels) frames")
        #expect(outputs[0].count == outputs[1].count)
        let identical = outputs[0] == outputs[1]
        #expect(identical, "max difference \(maxDifference(outputs[0], outputs[1]))")
    }

    /// Same rate, other channel count: no rate converter, output mixed buffer for buffer.
    @Test func channelOnlyConversion() throws {
        let format = AudioFormat(sampleRate: 16_000, channels: 2)
        let input = Signals.noise(seconds: 0.25, sampleRate: 16_000, channels: 2, seed: 9)
        let down = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(channels: 1), input: format)
        try down.push(input, framesPerBuffer: 1_000)
        try down.finish()
        #expect(down.buffers().count == 4)
        checkConsecutive(down.buffers(), format: AudioFormat(sampleRate: 16_000, channels: 1))
        let averaged: [Float] = (0..<4_000).map { (frame: Int) -> Float in (input[2 * frame] + input[2 * frame + 1]) * 0.5 }
        #expect(down.samples() == averaged)

        let mono = channel(input, 0, of: 2)
        let up = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(sampleRate: 16_000, channels: 2),
                                 input: AudioFormat(sampleRate: 16_000, channels: 1))
        try up.push(mono, framesPerBuffer: 333)
        try up.finish()
        checkConsecutive(up.buffers(), format: format)
        #expect(up.samples() == mono.flatMap { [$0, $0] })
    }

    /// When the input already has the output format, buffers pass through as they are.
    @Test(arguments: [resamplerParameters(), resamplerParameters(sampleRate: 44_100, channels: 2, engine: .libsamplerate)])
    func passthroughWhenFormatsMatch(parameters: JSONObject) throws {
        let harness = try NodeHarness(type: ResamplerNode.self, parameters: parameters, input: Self.stereo44k)
        let input = Signals.buffers(Signals.noise(seconds: 0.1, sampleRate: 44_100, channels: 2), format: Self.stereo44k,
                                    framesPerBuffer: 1_000, startingAt: 500)
        for buffer in input { try harness.push(buffer) }
        try harness.finish()
        #expect(harness.buffers() == input)
        #expect(harness.output.count == input.count)
    }

    /// Events and control commands go through unchanged, in order with the audio.
    @Test func eventsAndCommandsAreForwarded() throws {
        let harness = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(sampleRate: 16_000),
                                      input: Self.stereo44k)
        let event = Event(node: "vad", time: 0.25, payload: .speechStarted)
        let custom = Event(node: "kw", time: 0.5,
                           payload: .custom(type: "keyword", kind: "keyword", fields: JSONObject([("word", "go")])))
        try harness.push(Signals.sine(frequency: 440, seconds: 0.1, sampleRate: 44_100, channels: 2))
        let audioBefore = harness.buffers().count
        try harness.push(event)
        try harness.push(.setLanguage("de-DE"))
        try harness.push(custom)
        #expect(harness.events == [event, custom])
        #expect(harness.output.count == audioBefore + 3)
        let tail = harness.output.suffix(3).map(\.frame)
        #expect(tail[0].event == event)
        if case .control(let command) = tail[1] {
            #expect(command == .setLanguage("de-DE"))
        } else {
            Issue.record("expected the control command, got \(tail[1])")
        }
        #expect(tail[2].event == custom)
        try harness.finish()
        #expect(harness.events == [event, custom])
    }

    /// End of stream drains the converter: what comes out of `finish` completes the stream, and a second stream
    /// node fed nothing sends nothing.
    @Test func finishDrainsEverything() throws {
        let harness = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(sampleRate: 8_000),
                                      input: AudioFormat(sampleRate: 48_000, channels: 1))
        try harness.push(Signals.constant(0.5, seconds: 0.5, sampleRate: 48_000), framesPerBuffer: 4_800)
        let beforeFinish = harness.samples().count
        #expect(beforeFinish < 4_000)  // the filter holds some back…
        try harness.finish()
        let buffers = harness.buffers()
        checkConsecutive(buffers, format: AudioFormat(sampleRate: 8_000, channels: 1))
        #expect(abs(harness.samples().count - 4_000) <= 2)  // …and gives it up at the end
        // DC stays DC in the middle.
        #expect(harness.samples()[500..<3_500].allSatisfy { abs($0 - 0.5) < 0.001 })

        let idle = try NodeHarness(type: ResamplerNode.self, parameters: resamplerParameters(sampleRate: 8_000),
                                   input: AudioFormat(sampleRate: 48_000, channels: 1))
        try idle.finish()
        #expect(idle.output.isEmpty)
    }
}
