import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphDSP

// MARK: - Helpers

/// Interleaved sine: channel c has amplitude amplitudes[c], all channels in phase.
private func sine(frames: Int, sampleRate: Int, frequency: Double, amplitudes: [Double]) -> [Float] {
    let channels = amplitudes.count
    var samples = [Float](repeating: 0, count: frames * channels)
    for i in 0..<frames {
        let value = sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate))
        for c in 0..<channels { samples[i * channels + c] = Float(amplitudes[c] * value) }
    }
    return samples
}

/// Goertzel magnitude of `frequency` in mono `samples[range]`, scaled so a sine of
/// amplitude A gives about A.
private func magnitude(_ samples: [Float], _ range: Range<Int>, frequency: Double, sampleRate: Int) -> Double {
    let k = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
    var s1 = 0.0, s2 = 0.0
    for i in range {
        let s0 = Double(samples[i]) + k * s1 - s2
        s2 = s1
        s1 = s0
    }
    return 2 * sqrt(max(s1 * s1 + s2 * s2 - k * s1 * s2, 0)) / Double(range.count)
}

private func zeroCrossings(_ samples: [Float], _ range: Range<Int>) -> Int {
    var count = 0
    for i in range.dropFirst() where (samples[i - 1] < 0) != (samples[i] < 0) { count += 1 }
    return count
}

/// Converts `input` in one call, then flushes.
private func convertAtOnce(_ converter: any SampleRateConverter, _ input: [Float]) throws -> [Float] {
    var output: [Float] = []
    try input.withUnsafeBufferPointer { buffer throws(ResamplerError) in
        try converter.process(buffer, into: &output)
    }
    try converter.flush(into: &output)
    return output
}

/// Converts `input` in chunks of the given frame counts (cycled), then flushes. Each chunk is
/// copied into a buffer of its own (as a real producer would hand them over), so a converter
/// that read outside the buffer it was given would not see the neighbouring input.
private func convertInChunks(_ converter: any SampleRateConverter, _ input: [Float], chunkFrames: [Int]) throws -> [Float] {
    var output: [Float] = []
    let channels = converter.channels
    var start = 0
    var index = 0
    while start < input.count {
        let end = min(start + chunkFrames[index % chunkFrames.count] * channels, input.count)
        let chunk = Array(input[start..<end])
        try chunk.withUnsafeBufferPointer { buffer throws(ResamplerError) in
            try converter.process(buffer, into: &output)
        }
        start = end
        index += 1
    }
    try converter.flush(into: &output)
    return output
}

private func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    guard a.count == b.count else { return .infinity }
    var worst: Float = 0
    for i in a.indices { worst = max(worst, abs(a[i] - b[i])) }
    return worst
}

private let allCombinations: [(ResamplerEngine, ResamplerQuality)] =
    ResamplerEngine.allCases.flatMap { engine in ResamplerQuality.allCases.map { (engine, $0) } }

// MARK: - Resampler

@Suite(.ownThreads) struct ResamplerTests {
    /// 1 kHz at 44100 Hz stereo, 2 s, mixed to mono, converted to 16000 Hz.
    @Test(arguments: allCombinations)
    func downsampleStereo44100ToMono16000(engine: ResamplerEngine, quality: ResamplerQuality) throws {
        let stereo = sine(frames: 88_200, sampleRate: 44_100, frequency: 1_000, amplitudes: [0.5, 0.3])
        var mono: [Float] = []
        stereo.withUnsafeBufferPointer { ChannelMixer.mix($0, from: 2, to: 1, into: &mono) }
        #expect(mono.count == 88_200)

        let converter = try makeSampleRateConverter(engine: engine, inputRate: 44_100, outputRate: 16_000,
                                                    channels: 1, quality: quality)
        #expect(converter.inputRate == 44_100 && converter.outputRate == 16_000 && converter.channels == 1)
        let output = try convertAtOnce(converter, mono)
        #expect(abs(output.count - 32_000) <= 2, "\(output.count) frames")

        // Steady part only (skip filter start-up and tail).
        let steady = 2_000..<30_000
        let at1000 = magnitude(output, steady, frequency: 1_000, sampleRate: 16_000)
        let at1100 = magnitude(output, steady, frequency: 1_100, sampleRate: 16_000)
        #expect(abs(at1000 - 0.4) < 0.4 * 0.03, "amplitude at 1 kHz: \(at1000), expected 0.4")
        #expect(at1100 < 0.01 * at1000, "1.1 kHz: \(at1100) vs 1 kHz: \(at1000)")
        // 1 kHz crosses zero 2000 times a second: 3500 times in 1.75 s.
        let crossings = zeroCrossings(output, steady)
        #expect(abs(crossings - 3_500) <= 2, "\(crossings) zero crossings")
    }

    @Test(arguments: allCombinations)
    func upsample16000To48000(engine: ResamplerEngine, quality: ResamplerQuality) throws {
        let input = sine(frames: 16_000, sampleRate: 16_000, frequency: 1_000, amplitudes: [0.5])
        let converter = try makeSampleRateConverter(engine: engine, inputRate: 16_000, outputRate: 48_000,
                                                    channels: 1, quality: quality)
        let output = try convertAtOnce(converter, input)
        #expect(abs(output.count - 48_000) <= 2, "\(output.count) frames")
        let steady = 3_000..<45_000
        let at1000 = magnitude(output, steady, frequency: 1_000, sampleRate: 48_000)
        let at1100 = magnitude(output, steady, frequency: 1_100, sampleRate: 48_000)
        #expect(abs(at1000 - 0.5) < 0.5 * 0.03, "amplitude at 1 kHz: \(at1000), expected 0.5")
        #expect(at1100 < 0.01 * at1000, "1.1 kHz: \(at1100) vs 1 kHz: \(at1000)")
        let crossings = zeroCrossings(output, steady)
        #expect(abs(crossings - 1_750) <= 2, "\(crossings) zero crossings")
    }

    /// Feeding one frame at a time, or uneven chunks, must give bit-identical output to one
    /// big buffer (stereo, so interleaving is exercised too).
    @Test(arguments: allCombinations)
    func chunkingInvariance(engine: ResamplerEngine, quality: ResamplerQuality) throws {
        let input = sine(frames: 44_100, sampleRate: 44_100, frequency: 1_000, amplitudes: [0.5, -0.25])
        func make() throws -> any SampleRateConverter {
            try makeSampleRateConverter(engine: engine, inputRate: 44_100, outputRate: 16_000,
                                        channels: 2, quality: quality)
        }
        let whole = try convertAtOnce(try make(), input)
        #expect(abs(whole.count / 2 - 16_000) <= 2)
        // Compare through Bools so a failure reports the difference, not two 32000-element arrays.
        let frameByFrame = try convertInChunks(try make(), input, chunkFrames: [1])
        #expect(frameByFrame.count == whole.count)
        let frameByFrameIdentical = frameByFrame == whole
        #expect(frameByFrameIdentical, "one frame at a time: max difference \(maxDifference(frameByFrame, whole))")
        let uneven = try convertInChunks(try make(), input, chunkFrames: [1, 7, 0, 333, 4_096, 2, 20_000, 1, 1, 65])
        let unevenIdentical = uneven == whole
        #expect(unevenIdentical, "uneven chunks: max difference \(maxDifference(uneven, whole))")
    }

    @Test(arguments: allCombinations)
    func sameRatePassesThrough(engine: ResamplerEngine, quality: ResamplerQuality) throws {
        let input = sine(frames: 16_000, sampleRate: 16_000, frequency: 1_000, amplitudes: [0.5, 0.2])
        let converter = try makeSampleRateConverter(engine: engine, inputRate: 16_000, outputRate: 16_000,
                                                    channels: 2, quality: quality)
        let output = try convertInChunks(converter, input, chunkFrames: [1, 100, 1_000])
        let identical = output == input
        #expect(identical)
    }

    /// After flush the converter starts a fresh stream: converting again gives the same output.
    @Test(arguments: ResamplerEngine.allCases)
    func reusableAfterFlush(engine: ResamplerEngine) throws {
        let input = sine(frames: 22_050, sampleRate: 22_050, frequency: 1_000, amplitudes: [0.5])
        let converter = try makeSampleRateConverter(engine: engine, inputRate: 22_050, outputRate: 16_000,
                                                    channels: 1, quality: .high)
        let first = try convertAtOnce(converter, input)
        let second = try convertAtOnce(converter, input)
        #expect(abs(first.count - 16_000) <= 2)
        let identical = second == first
        #expect(identical)
        // Flushing again with nothing new adds nothing.
        var extra: [Float] = []
        try converter.flush(into: &extra)
        #expect(extra.isEmpty)
    }

    /// Output is appended; once it has capacity, steady-state calls do not reallocate it.
    @Test(arguments: ResamplerEngine.allCases)
    func appendsWithoutReallocatingOutput(engine: ResamplerEngine) throws {
        let input = sine(frames: 4_410, sampleRate: 44_100, frequency: 1_000, amplitudes: [0.5])
        let converter = try makeSampleRateConverter(engine: engine, inputRate: 44_100, outputRate: 16_000,
                                                    channels: 1, quality: .medium)
        var output: [Float] = [42]
        output.reserveCapacity(100_000)
        let base = output.withUnsafeBufferPointer { $0.baseAddress }
        for _ in 0..<10 {
            try input.withUnsafeBufferPointer { buffer throws(ResamplerError) in
                try converter.process(buffer, into: &output)
            }
        }
        try converter.flush(into: &output)
        #expect(output.withUnsafeBufferPointer { $0.baseAddress } == base)
        #expect(output[0] == 42)
        #expect(abs(output.count - 1 - 16_000) <= 2)
    }

    @Test func invalidArgumentsThrow() {
        for engine in ResamplerEngine.allCases {
            #expect(throws: ResamplerError.self) {
                _ = try makeSampleRateConverter(engine: engine, inputRate: 0, outputRate: 16_000, channels: 1, quality: .high)
            }
            #expect(throws: ResamplerError.self) {
                _ = try makeSampleRateConverter(engine: engine, inputRate: 16_000, outputRate: -1, channels: 1, quality: .high)
            }
            #expect(throws: ResamplerError.self) {
                _ = try makeSampleRateConverter(engine: engine, inputRate: 16_000, outputRate: 16_000, channels: 0, quality: .high)
            }
        }
        let error = #expect(throws: ResamplerError.self) {
            _ = try makeSampleRateConverter(engine: .libsamplerate, inputRate: 1_000, outputRate: 300_000,
                                            channels: 1, quality: .high)
        }
        #expect(error?.message.contains("1/256") == true)
    }
}

// MARK: - ChannelMixer

@Suite(.ownThreads) struct ChannelMixerTests {
    private func mix(_ input: [Float], from: Int, to: Int, prefix: [Float] = []) -> [Float] {
        var output = prefix
        input.withUnsafeBufferPointer { ChannelMixer.mix($0, from: from, to: to, into: &output) }
        return output
    }

    @Test func stereoToMonoAverages() {
        #expect(mix([1, 0, 0.5, -0.5, -1, -0.5], from: 2, to: 1) == [0.5, 0, -0.75])
    }

    @Test func manyToMonoAverages() {
        #expect(mix([1, 2, 3, 4, 5, 6], from: 6, to: 1) == [3.5])
    }

    @Test func monoToManyCopies() {
        #expect(mix([0.25, -1], from: 1, to: 3) == [0.25, 0.25, 0.25, -1, -1, -1])
    }

    @Test func upmixRepeatsChannelsModuloFrom() {
        // 2 -> 5: output channel i = input channel i % 2.
        #expect(mix([1, 2, 3, 4], from: 2, to: 5) == [1, 2, 1, 2, 1, 3, 4, 3, 4, 3])
    }

    @Test func downmixAveragesChannelsModuloTo() {
        // 3 -> 2: out0 = avg(in0, in2), out1 = in1.
        #expect(mix([1, 5, 3, -2, 7, 4], from: 3, to: 2) == [2, 5, 1, 7])
        // 6 -> 4: out0 = avg(in0, in4), out1 = avg(in1, in5), out2 = in2, out3 = in3.
        #expect(mix([1, 2, 3, 4, 5, 6], from: 6, to: 4) == [3, 4, 3, 4])
    }

    @Test func equalCountsCopy() {
        #expect(mix([1, 2, 3, 4], from: 2, to: 2) == [1, 2, 3, 4])
    }

    @Test func appendsToExistingOutput() {
        #expect(mix([1, 3], from: 2, to: 1, prefix: [9, 9]) == [9, 9, 2])
        #expect(mix([], from: 2, to: 1, prefix: [9]) == [9])
    }
}
