import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// Harness tests for `file-source`: format, block sizes, positions, pacing on a manual clock, errors.

/// A fresh temporary directory, removed when `body` returns.
private func withScratchDirectory<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryFolder(prefix: "FileSourceNodeTests", body)
}

/// Writes `samples` (interleaved) with `SoundFileWriter`.
private func writeFixture(_ path: String, _ samples: [Float], sampleRate: Int, channels: Int,
                          container: SoundFileContainer, sampleFormat: SoundFileSampleFormat) throws {
    let writer = try SoundFileWriter(path: path, sampleRate: sampleRate, channels: channels,
                                     container: container, sampleFormat: sampleFormat)
    try samples.withUnsafeBufferPointer { buffer throws(SoundFileError) in try writer.write(buffer) }
    try writer.close()
}

/// Everything `SoundFileReader` decodes from `path`, in one go: what the file "is".
private func decodeAll(_ path: String) throws -> (format: AudioFormat, samples: [Float]) {
    let reader = try SoundFileReader(path: path)
    defer { reader.close() }
    let all = try readSamples(reader, framesPerRead: 100_000)
    return (AudioFormat(sampleRate: reader.sampleRate, channels: reader.channels), all)
}

private func sourceParameters(path: String, blockFrames: Int? = nil, realtime: Bool? = nil) -> JSONObject {
    var parameters = JSONObject()
    parameters["path"] = .string(path)
    if let blockFrames { parameters["blockFrames"] = .number(Double(blockFrames)) }
    if let realtime { parameters["realtime"] = .bool(realtime) }
    return parameters
}

@Suite(.ownThreads) struct FileSourceNodeTests {
    static let encodings: [(SoundFileContainer, SoundFileSampleFormat)] = [
        (.wav, .float), (.wav, .pcm16), (.flac, .pcm24), (.ogg, .pcm16),
    ]

    /// Output format is the file's; blocks of `blockFrames` with consecutive positions from 0 (the last one
    /// short); the samples are the file's; `totalFrames` is the file's length; end of stream adds nothing.
    @Test(arguments: encodings)
    func streamsTheWholeFileInBlocks(container: SoundFileContainer, sampleFormat: SoundFileSampleFormat) throws {
        try withScratchDirectory { dir in
            let frames = 10_000  // 9 full blocks of 1024 and one of 784
            let path = dir + "/in." + container.rawValue
            let signal = stereoSine(frames: frames, sampleRate: 44_100, rightAmplitude: 0.25)
            try writeFixture(path, signal, sampleRate: 44_100, channels: 2,
                             container: container, sampleFormat: sampleFormat)
            let file = try decodeAll(path)
            #expect(file.samples.count == frames * 2)

            let source = try NodeHarness(type: FileSourceNode.self, id: "src",
                                         parameters: sourceParameters(path: path), input: nil)
            let expectedFormat = AudioFormat(sampleRate: 44_100, channels: 2)
            #expect(source.outputFormat == expectedFormat)
            #expect(source.node.format == expectedFormat)
            #expect(source.node.totalFrames == Int64(frames))
            #expect(source.node.isLive == false)

            try source.runToEnd()
            let buffers = source.buffers()
            #expect(buffers.count == 10)
            #expect(source.output.allSatisfy { $0.port == 0 })
            #expect(source.events.isEmpty)
            var position: Int64 = 0
            for (index, buffer) in buffers.enumerated() {
                #expect(buffer.format == expectedFormat)
                #expect(buffer.position == position, "buffer \(index)")
                #expect(buffer.frameCount == (index < 9 ? 1024 : 784), "buffer \(index)")
                position = buffer.endPosition
            }
            #expect(position == Int64(frames))
            let identical = source.samples() == file.samples
            #expect(identical, "the samples sent differ from the file's")
        }
    }

    @Test func monoFileGivesMonoAtItsRate() throws {
        try withScratchDirectory { dir in
            let path = dir + "/mono.wav"
            let samples = Signals.sine(frequency: 1_000, seconds: 0.5, sampleRate: 16_000)
            try writeFixture(path, samples, sampleRate: 16_000, channels: 1, container: .wav, sampleFormat: .float)
            let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: path, blockFrames: 160),
                                         input: nil)
            #expect(source.outputFormat == AudioFormat(sampleRate: 16_000, channels: 1))
            #expect(source.node.totalFrames == 8_000)
            try source.runToEnd()
            #expect(source.buffers().count == 50)
            #expect(source.buffers().allSatisfy { $0.frameCount == 160 })
            #expect(source.samples() == samples)
        }
    }

    /// The same file read with any block size gives the same samples, concatenated.
    @Test func blockSizeDoesNotChangeTheSamples() throws {
        try withScratchDirectory { dir in
            let path = dir + "/in.wav"
            let frames = 20_011  // prime: no block size divides it
            try writeFixture(path, Signals.noise(seconds: Double(frames) / 16_000, sampleRate: 16_000, channels: 2, seed: 7),
                             sampleRate: 16_000, channels: 2, container: .wav, sampleFormat: .pcm16)
            var outputs: [Int: [Float]] = [:]
            for blockFrames in [16, 17, 1_000, 4_096, 65_536] {
                let source = try NodeHarness(type: FileSourceNode.self,
                                             parameters: sourceParameters(path: path, blockFrames: blockFrames), input: nil)
                try source.runToEnd()
                let buffers = source.buffers()
                #expect(buffers.count == (frames + blockFrames - 1) / blockFrames)
                #expect(buffers.dropLast().allSatisfy { $0.frameCount == blockFrames })
                #expect(zip(buffers, buffers.dropFirst()).allSatisfy { $0.endPosition == $1.position })
                outputs[blockFrames] = source.samples()
            }
            let reference = try #require(outputs[16])
            #expect(reference.count == frames * 2)
            #expect(reference == (try decodeAll(path)).samples)
            for (blockFrames, samples) in outputs {
                let identical = samples == reference
                #expect(identical, "blockFrames \(blockFrames) differs from blockFrames 16")
            }
        }
    }

    /// The declaration rejects blocks below 16 frames; built directly (bypassing validation), one frame per block
    /// still gives the file's samples.
    @Test func oneFrameBlocks() throws {
        try withScratchDirectory { dir in
            let path = dir + "/in.wav"
            let samples = Signals.noise(seconds: 0.1, sampleRate: 8_000, channels: 2, seed: 3)
            try writeFixture(path, samples, sampleRate: 8_000, channels: 2, container: .wav, sampleFormat: .float)

            let rejected = graphError {
                _ = try NodeHarness(type: FileSourceNode.self, id: "src",
                                    parameters: sourceParameters(path: path, blockFrames: 1), input: nil)
            }
            #expect(rejected?.location == "nodes.src.blockFrames")

            let configuration = NodeConfiguration(id: "src", type: "file-source",
                                                  values: sourceParameters(path: path, blockFrames: 1, realtime: false))
            let source = try NodeHarness(try FileSourceNode(configuration: configuration), id: "src", input: nil)
            try source.runToEnd()
            #expect(source.buffers().count == 800)
            #expect(source.buffers().enumerated().allSatisfy { $0.element.position == Int64($0.offset) })
            #expect(source.samples() == samples)
        }
    }

    /// After `.finished`, `finish` sends nothing more, and `produce` keeps reporting `.finished` until stopped.
    @Test func endOfStreamLeavesNothingBehind() throws {
        try withScratchDirectory { dir in
            let path = dir + "/in.wav"
            try writeFixture(path, Signals.sine(frequency: 300, seconds: 0.1, sampleRate: 16_000), sampleRate: 16_000,
                             channels: 1, container: .wav, sampleFormat: .pcm16)
            let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: path), input: nil)
            var statuses: [SourceStatus] = []
            while statuses.last != .finished && statuses.count < 100 {
                statuses.append(try source.node.produce(source.context))
            }
            #expect(statuses == [.more, .more, .finished])  // 1600 frames: 1024 + 576
            #expect(try source.node.produce(source.context) == .finished)
            try source.finish()
            // Exactly the two blocks `produce` sent: `finish` added nothing.
            #expect(source.output.count == 2)
            #expect(source.buffers().map(\.frameCount) == [1_024, 576])
            source.stop()  // idempotent
        }
    }

    /// With `realtime`, block k is due k·blockFrames/sampleRate after the first block; the source sleeps on the
    /// context's clock until then (a manual clock here, so nothing waits).
    @Test func realtimePacesOnTheClock() throws {
        try withScratchDirectory { dir in
            let path = dir + "/in.wav"
            try writeFixture(path, Signals.sine(frequency: 440, seconds: 0.3125, sampleRate: 16_000), sampleRate: 16_000,
                             channels: 1, container: .wav, sampleFormat: .pcm16)  // 5000 frames
            let clock = ManualClock(now: 10)
            let source = try NodeHarness(type: FileSourceNode.self,
                                         parameters: sourceParameters(path: path, blockFrames: 1_000, realtime: true),
                                         input: nil, clock: clock)
            try source.runToEnd()
            #expect(source.buffers().count == 5)
            // Block 0 goes at once; blocks 1…4 at 10 + k/16.
            #expect(clock.sleeps == [10.0625, 10.125, 10.1875, 10.25])
            #expect(clock.now() == 10.25)
        }
    }

    /// Deadlines are measured from the start of the stream, not from the previous block: when the consumer fell
    /// behind, the source catches up without sleeping.
    @Test func realtimeCatchesUpAfterADelay() throws {
        try withScratchDirectory { dir in
            let path = dir + "/in.wav"
            try writeFixture(path, Signals.constant(0.1, seconds: 0.3125, sampleRate: 16_000), sampleRate: 16_000,
                             channels: 1, container: .wav, sampleFormat: .pcm16)  // 5000 frames
            let clock = ManualClock(now: 0)
            let source = try NodeHarness(type: FileSourceNode.self,
                                         parameters: sourceParameters(path: path, blockFrames: 1_000, realtime: true),
                                         input: nil, clock: clock)
            #expect(try source.node.produce(source.context) == .more)  // block 0 at t = 0
            clock.advance(by: 0.2)  // blocks 1…3 (due 0.0625, 0.125, 0.1875) are late
            for _ in 1...3 { #expect(try source.node.produce(source.context) == .more) }
            #expect(clock.sleeps.isEmpty)
            #expect(try source.node.produce(source.context) == .more)  // block 4, due 0.25
            #expect(clock.sleeps == [0.25])
            #expect(try source.node.produce(source.context) == .finished)
            #expect(clock.sleeps == [0.25])
            try source.finish()
        }
    }

    @Test func notRealtimeNeverSleeps() throws {
        try withScratchDirectory { dir in
            let path = dir + "/in.wav"
            try writeFixture(path, Signals.constant(0.1, seconds: 1, sampleRate: 8_000), sampleRate: 8_000,
                             channels: 1, container: .wav, sampleFormat: .pcm16)
            let clock = ManualClock(now: 5)
            let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: path, blockFrames: 100),
                                         input: nil, clock: clock)
            try source.runToEnd()
            #expect(source.buffers().count == 80)
            #expect(clock.sleeps.isEmpty)
            #expect(clock.now() == 5)
        }
    }

    @Test func relativePathResolvesAgainstTheBaseDirectory() throws {
        try withScratchDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/audio", withIntermediateDirectories: true)
            let samples = Signals.sine(frequency: 440, seconds: 0.05, sampleRate: 8_000)
            try writeFixture(dir + "/audio/a.wav", samples, sampleRate: 8_000, channels: 1, container: .wav,
                             sampleFormat: .float)
            let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: "audio/a.wav"),
                                         input: nil, baseDirectory: dir)
            try source.runToEnd()
            #expect(source.samples() == samples)
        }
    }

    @Test func readsTheMP3Fixture() throws {
        let url = try #require(Bundle.module.url(forResource: "sine440", withExtension: "mp3", subdirectory: "Fixtures"))
        let file = try decodeAll(url.path)
        let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: url.path), input: nil)
        #expect(source.outputFormat == AudioFormat(sampleRate: 16_000, channels: 1))
        try source.runToEnd()
        #expect(source.samples() == file.samples)
        #expect(source.buffers().last?.endPosition == Int64(file.samples.count))
    }

    @Test func missingFileIsMissingInput() throws {
        try withScratchDirectory { dir in
            let error = try #require(graphError {
                _ = try NodeHarness(type: FileSourceNode.self, id: "src",
                                    parameters: sourceParameters(path: dir + "/nope.wav"), input: nil)
            })
            #expect(error.code == .missingInput)
            #expect(error.location == "nodes.src.path")
            #expect(error.nodeID == "src")
            #expect(error.message.contains(dir + "/nope.wav"))
        }
    }

    @Test func nonAudioFileIsInvalidConfig() throws {
        try withScratchDirectory { dir in
            let path = dir + "/notes.wav"
            try Data("this is not audio, just text that happens to end in .wav\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = try #require(graphError {
                _ = try NodeHarness(type: FileSourceNode.self, id: "src", parameters: sourceParameters(path: path), input: nil)
            })
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.src.path")
            #expect(error.nodeID == "src")
        }
    }

    @Test func directoryIsInvalidConfig() throws {
        try withScratchDirectory { dir in
            let error = try #require(graphError {
                _ = try NodeHarness(type: FileSourceNode.self, id: "src", parameters: sourceParameters(path: dir), input: nil)
            })
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.src.path")
        }
    }

    @Test func pathIsRequired() {
        let error = graphError {
            _ = try NodeHarness(type: FileSourceNode.self, id: "src", parameters: JSONObject(), input: nil)
        }
        #expect(error?.code == .invalidConfig)
        #expect(error?.location == "nodes.src.path")
    }
}
