import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// Harness tests for `wav-sink`: what is written, containers, parameter errors, unwritable outputs, and the
// failure path (stop without finish).

/// A fresh temporary directory, removed when `body` returns.
private func withScratchDirectory<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryFolder(prefix: "WavSinkNodeTests", body)
}

/// Reads a whole file back: its format, libsndfile's name for its encoding, its header's frame count, samples.
private func readBack(_ path: String) throws -> (format: AudioFormat, formatName: String, frameCount: Int64?, samples: [Float]) {
    let reader = try SoundFileReader(path: path)
    defer { reader.close() }
    let all = try readSamples(reader, framesPerRead: 4_096)
    return (AudioFormat(sampleRate: reader.sampleRate, channels: reader.channels), reader.formatName, reader.frameCount, all)
}

private func sinkParameters(path: String, format: String? = nil, sampleFormat: String? = nil) -> JSONObject {
    var parameters = JSONObject()
    parameters["path"] = .string(path)
    if let format { parameters["format"] = .string(format) }
    if let sampleFormat { parameters["sampleFormat"] = .string(sampleFormat) }
    return parameters
}

private func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    guard a.count == b.count else { return .infinity }
    var worst: Float = 0
    for i in a.indices { worst = max(worst, abs(a[i] - b[i])) }
    return worst
}

@Suite(.ownThreads) struct WavSinkNodeTests {
    static let lossless: [(String, String, Float, String)] = [
        ("wav", "pcm16", 1.0 / 32_768 + 1e-6, "WAV (Signed 16 bit PCM)"),
        ("wav", "pcm24", 1.0 / 8_388_608 + 1e-7, "WAV (Signed 24 bit PCM)"),
        ("wav", "float", 0, "WAV (32 bit float)"),
        ("flac", "pcm16", 1.0 / 32_768 + 1e-6, "FLAC (Signed 16 bit PCM)"),
        ("flac", "pcm24", 1.0 / 8_388_608 + 1e-7, "FLAC (Signed 24 bit PCM)"),
    ]

    /// The file holds exactly the frames fed, in the input format, within the encoding's quantization.
    @Test(arguments: lossless)
    func writesWhatItIsFed(ext: String, sampleFormat: String, tolerance: Float, formatName: String) throws {
        try withScratchDirectory { dir in
            let path = dir + "/out." + ext
            let format = AudioFormat(sampleRate: 22_050, channels: 2)
            let input = stereoSine(frames: 30_000, sampleRate: 22_050, rightAmplitude: 0.3, rightPhase: 1)
            let sink = try NodeHarness(type: WavSinkNode.self, id: "rec",
                                       parameters: sinkParameters(path: path, sampleFormat: sampleFormat), input: format)
            #expect(sink.outputFormat == nil)
            #expect(FileManager.default.fileExists(atPath: path), "start creates the file")
            try sink.push(input, framesPerBuffer: 1_000)
            // Events in band are accepted and not written or passed on.
            try sink.push(Event(node: "level", time: 0.5, payload: .speechStarted))
            try sink.finish()
            #expect(sink.output.isEmpty)

            let file = try readBack(path)
            #expect(file.format == format)
            #expect(file.formatName == formatName)
            #expect(file.frameCount == 30_000)
            #expect(file.samples.count == input.count)
            let error = maxDifference(file.samples, input)
            #expect(error <= tolerance, "max error \(error)")
        }
    }

    /// Longer than a second, so the once-a-second header update runs (it used to corrupt OGG files).
    @Test func writesOggVorbis() throws {
        try withScratchDirectory { dir in
            let path = dir + "/out.ogg"
            let input = Signals.sine(frequency: 1_000, seconds: 2.5, sampleRate: 16_000, amplitude: 0.5)
            let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: path),
                                       input: AudioFormat(sampleRate: 16_000, channels: 1))
            try sink.push(input, framesPerBuffer: 512)
            try sink.finish()
            let file = try readBack(path)
            #expect(file.formatName == "OGG (Vorbis)")
            #expect(file.format == AudioFormat(sampleRate: 16_000, channels: 1))
            #expect(file.samples.count == input.count)
            // Lossy: the tone is there at about the level fed.
            let rms = Signals.rms(file.samples)
            #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.02, "rms \(rms)")
            #expect(Signals.power(of: 1_000, in: file.samples, sampleRate: 16_000)
                    > 1_000 * Signals.power(of: 1_500, in: file.samples, sampleRate: 16_000))
        }
    }

    /// `format: auto` picks the container from the extension (any case); an explicit `format` wins over it.
    @Test(arguments: [
        ("a.wav", nil, "WAV"), ("b.WAV", nil, "WAV"), ("c.flac", nil, "FLAC"), ("d.ogg", nil, "OGG"),
        ("e.oga", nil, "OGG"), ("f.raw", "flac", "FLAC"), ("g.wav", "ogg", "OGG"), ("h.ogg", "wav", "WAV"),
    ] as [(String, String?, String)])
    func containerFromExtensionOrFormat(name: String, format: String?, expected: String) throws {
        try withScratchDirectory { dir in
            let path = dir + "/" + name
            let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: path, format: format),
                                       input: AudioFormat(sampleRate: 8_000, channels: 1))
            try sink.push(Signals.sine(frequency: 500, seconds: 0.25, sampleRate: 8_000))
            try sink.finish()
            let file = try readBack(path)
            #expect(file.formatName.hasPrefix(expected + " "), "\(file.formatName)")
            #expect(file.frameCount == 2_000)
        }
    }

    @Test(arguments: ["out.mp3", "out", "out.wav.tmp"])
    func unknownExtensionNamesThePath(name: String) throws {
        try withScratchDirectory { dir in
            let path = dir + "/" + name
            let error = try #require(graphError {
                _ = try NodeHarness(type: WavSinkNode.self, id: "rec", parameters: sinkParameters(path: path),
                                    input: AudioFormat(sampleRate: 8_000, channels: 1))
            })
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.rec.path")
            #expect(error.nodeID == "rec")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test(arguments: [("x.flac", nil), ("x.ogg", nil), ("x.wav", "flac"), ("x.wav", "ogg")] as [(String, String?)])
    func floatOnlyInWav(name: String, format: String?) throws {
        try withScratchDirectory { dir in
            let path = dir + "/" + name
            let error = try #require(graphError {
                _ = try NodeHarness(type: WavSinkNode.self, id: "rec",
                                    parameters: sinkParameters(path: path, format: format, sampleFormat: "float"),
                                    input: AudioFormat(sampleRate: 8_000, channels: 1))
            })
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.rec.sampleFormat")
            #expect(error.nodeID == "rec")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// The output's folder is a regular file: cannot create the output, naming the path.
    @Test func parentIsAFileCannotCreateOutput() throws {
        try withScratchDirectory { dir in
            let blocker = dir + "/blocker"
            try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
            let path = blocker + "/out.wav"
            let error = try #require(graphError {
                _ = try NodeHarness(type: WavSinkNode.self, id: "rec", parameters: sinkParameters(path: path),
                                    input: AudioFormat(sampleRate: 8_000, channels: 1))
            })
            #expect(error.code == .cannotCreateOutput)
            #expect(error.location == path)
            #expect(error.nodeID == "rec")
        }
    }

    /// The output path is an existing directory: the folder exists, but libsndfile cannot create the file.
    @Test func pathIsADirectoryCannotCreateOutput() throws {
        try withScratchDirectory { dir in
            let path = dir + "/taken.wav"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let error = try #require(graphError {
                _ = try NodeHarness(type: WavSinkNode.self, id: "rec", parameters: sinkParameters(path: path),
                                    input: AudioFormat(sampleRate: 8_000, channels: 1))
            })
            #expect(error.code == .cannotCreateOutput)
            #expect(error.location == path)
            #expect(error.nodeID == "rec")
        }
    }

    @Test func missingFoldersAreCreated() throws {
        try withScratchDirectory { dir in
            let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: "out/deeper/x.wav"),
                                       input: AudioFormat(sampleRate: 8_000, channels: 1), baseDirectory: dir)
            try sink.push(Signals.constant(0.25, seconds: 0.1, sampleRate: 8_000))
            try sink.finish()
            let file = try readBack(dir + "/out/deeper/x.wav")
            #expect(file.frameCount == 800)
            #expect(file.samples.allSatisfy { abs($0 - 0.25) <= 1.0 / 32_768 + 1e-6 })
        }
    }

    /// The failure path: `stop` without `finish` still closes the file, with every frame fed so far.
    @Test(arguments: ["wav", "flac"])
    func stopWithoutFinishLeavesAValidFile(ext: String) throws {
        try withScratchDirectory { dir in
            let path = dir + "/partial." + ext
            let format = AudioFormat(sampleRate: 16_000, channels: 2)
            let input = stereoSine(frames: 24_321, sampleRate: 16_000, rightAmplitude: 0.3, rightPhase: 1)
            let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: path), input: format)
            try sink.push(input, framesPerBuffer: 777)
            sink.stop()
            sink.stop()  // idempotent
            let file = try readBack(path)
            #expect(file.format == format)
            #expect(file.frameCount == 24_321)
            #expect(file.samples.count == input.count)
            #expect(maxDifference(file.samples, input) <= 1.0 / 32_768 + 1e-6)
        }
    }

    /// The header is rewritten about once a second of audio, so a file still open (a killed process) says how
    /// long it is up to then. Checked on the WAV header's data-chunk length (bytes 40…43), which libsndfile
    /// leaves at 0 until the header is rewritten.
    @Test func headerIsUpdatedWhileWriting() throws {
        try withScratchDirectory { dir in
            let path = dir + "/live.wav"
            let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: path),
                                       input: AudioFormat(sampleRate: 8_000, channels: 1))
            defer { sink.stop() }
            func dataLength() throws -> UInt32 {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(bytes.count >= 44 && bytes[36..<40] == Data("data".utf8))
                guard bytes.count >= 44 else { return .max }
                return bytes[40..<44].reversed().reduce(0) { $0 << 8 | UInt32($1) }
            }
            try sink.push(Signals.constant(0.5, seconds: 0.5, sampleRate: 8_000), framesPerBuffer: 800)
            #expect(try dataLength() == 0)  // less than a second fed: not rewritten yet
            // 6000 more frames: the buffer that brings the total to 8000 (1 s) triggers a rewrite.
            try sink.push(Signals.constant(0.5, seconds: 0.75, sampleRate: 8_000), framesPerBuffer: 800,
                          startingAt: 4_000)
            #expect(try dataLength() == 8_000 * 2)
        }
    }

    /// One frame per buffer and one big buffer write byte-identical files.
    @Test(arguments: ["wav", "flac"])
    func bufferSizeDoesNotChangeTheFile(ext: String) throws {
        try withScratchDirectory { dir in
            let format = AudioFormat(sampleRate: 8_000, channels: 2)
            let input = Signals.noise(seconds: 1.5, sampleRate: 8_000, channels: 2, amplitude: 0.8, seed: 11)
            var files: [Data] = []
            for framesPerBuffer in [1, 333, 12_000] {
                let path = dir + "/\(framesPerBuffer)." + ext
                let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: path), input: format)
                try sink.push(input, framesPerBuffer: framesPerBuffer)
                try sink.finish()
                #expect(try readBack(path).frameCount == 12_000)
                files.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
            #expect(files[0].count > 12_000)
            #expect(files[1] == files[0], "333-frame buffers vs one frame at a time")
            #expect(files[2] == files[0], "one buffer vs one frame at a time")
        }
    }

    /// End of stream closes the file: nothing is held back, and `stop` afterwards changes nothing.
    @Test func finishClosesTheFile() throws {
        try withScratchDirectory { dir in
            let path = dir + "/out.wav"
            let sink = try NodeHarness(type: WavSinkNode.self, parameters: sinkParameters(path: path),
                                       input: AudioFormat(sampleRate: 8_000, channels: 1))
            try sink.push(Signals.constant(-0.5, seconds: 0.3, sampleRate: 8_000), framesPerBuffer: 100)
            try sink.finish()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(before.count == 44 + 2 * 2_400)
            sink.node.stop()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try readBack(path).frameCount == 2_400)
        }
    }
}

/// `format`'s choices are `auto` and every container libsndfile writes for the node, in one list.
@Suite(.ownThreads) struct WavSinkFormatChoiceTests {
    @Test func theChoicesAreAutoAndEveryContainer() {
        #expect(WavSinkNode.ContainerChoice.allCases.first == .auto)
        #expect(WavSinkNode.ContainerChoice.allCases.dropFirst().compactMap(\.container) == SoundFileContainer.allCases)
        #expect(WavSinkNode.ContainerChoice.allCases.count == SoundFileContainer.allCases.count + 1)
    }
}
