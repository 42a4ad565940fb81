import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphIO

/// Runs `body` with a fresh temporary directory that is removed afterwards.
private func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryFolder(prefix: "SoundFileTests", body)
}

/// Magnitude of `frequency` in one channel of interleaved samples (Goertzel), scaled so that a
/// full-length sine of amplitude A gives about A.
private func goertzel(_ samples: [Float], channel: Int, channels: Int, frequency: Double, sampleRate: Int) -> Double {
    let n = samples.count / channels
    let k = 2 * cos(2 * Double.pi * frequency / Double(sampleRate))
    var s1 = 0.0, s2 = 0.0
    for i in 0..<n {
        let s0 = Double(samples[i * channels + channel]) + k * s1 - s2
        s2 = s1
        s1 = s0
    }
    let power = s1 * s1 + s2 * s2 - k * s1 * s2
    return 2 * sqrt(max(power, 0)) / Double(n)
}

/// Reads a whole file in chunks of 777 frames (an odd size to exercise partial reads).
private func readAll(_ reader: SoundFileReader) throws -> [Float] {
    try readSamples(reader, framesPerRead: 777)
}

private func writeFile(_ path: String, _ samples: [Float], sampleRate: Int, channels: Int,
                       container: SoundFileContainer, format: SoundFileSampleFormat) throws {
    let writer = try SoundFileWriter(path: path, sampleRate: sampleRate, channels: channels,
                                     container: container, sampleFormat: format)
    // Write in uneven chunks to exercise streaming.
    var start = 0
    let chunkSamples = 1_000 * channels
    while start < samples.count {
        let end = min(start + chunkSamples, samples.count)
        try samples[start..<end].withUnsafeBufferPointer { buffer throws(SoundFileError) in
            try writer.write(buffer)
        }
        start = end
    }
    #expect(writer.framesWritten == Int64(samples.count / channels))
    try writer.close()
    try writer.close()  // idempotent
}

@Suite(.ownThreads) struct SoundFileRoundTripTests {
    static let combinations: [(SoundFileContainer, SoundFileSampleFormat)] = [
        (.wav, .pcm16), (.wav, .pcm24), (.wav, .float),
        (.flac, .pcm16), (.flac, .pcm24),
        (.ogg, .pcm16), (.ogg, .pcm24),
    ]

    @Test(arguments: combinations)
    func writeThenReadBack(container: SoundFileContainer, format: SoundFileSampleFormat) throws {
        try withTemporaryDirectory { dir in
            let rate = 44_100
            let frames = 44_100
            let input = stereoSine(frames: frames, sampleRate: rate)
            let path = dir + "/sine." + container.rawValue
            try writeFile(path, input, sampleRate: rate, channels: 2, container: container, format: format)

            let reader = try SoundFileReader(path: path)
            defer { reader.close() }
            #expect(reader.sampleRate == rate)
            #expect(reader.channels == 2)
            #expect(reader.frameCount == Int64(frames))
            let output = try readAll(reader)
            #expect(output.count == input.count)
            guard output.count == input.count else { return }

            switch container {
            case .ogg:
                #expect(reader.formatName == "OGG (Vorbis)")
                // Lossy: compare the spectrum, not the samples.
                for (channel, freq, other) in [(0, 440.0, 660.0), (1, 660.0, 440.0)] {
                    let wanted = goertzel(output, channel: channel, channels: 2, frequency: freq, sampleRate: rate)
                    let unwanted = goertzel(output, channel: channel, channels: 2, frequency: other, sampleRate: rate)
                    #expect(abs(wanted - 0.5) < 0.05, "channel \(channel) amplitude \(wanted)")
                    #expect(unwanted < 0.01, "channel \(channel) leak \(unwanted)")
                }
            case .wav, .flac:
                let tolerance: Float
                switch format {
                case .pcm16: tolerance = 1.0 / 32_768 + 1e-6
                case .pcm24: tolerance = 1.0 / 8_388_608 + 1e-7
                case .float: tolerance = 0
                }
                var maxError: Float = 0
                for i in 0..<input.count { maxError = max(maxError, abs(output[i] - input[i])) }
                #expect(maxError <= tolerance, "max error \(maxError) > \(tolerance)")
                let expectedName: String
                switch (container, format) {
                case (.wav, .pcm16): expectedName = "WAV (Signed 16 bit PCM)"
                case (.wav, .pcm24): expectedName = "WAV (Signed 24 bit PCM)"
                case (.wav, .float): expectedName = "WAV (32 bit float)"
                case (_, .pcm16): expectedName = "FLAC (Signed 16 bit PCM)"
                default: expectedName = "FLAC (Signed 24 bit PCM)"
                }
                #expect(reader.formatName == expectedName)
            }
            // Past the end: 0 frames again, no error.
            var extra = [Float](repeating: 0, count: 20)
            let got = try extra.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) in
                try reader.read(into: buffer, maxFrames: 10)
            }
            #expect(got == 0)
        }
    }

    @Test(arguments: [SoundFileContainer.flac, .ogg])
    func floatOnlyInWav(container: SoundFileContainer) throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/x." + container.rawValue
            let error = #expect(throws: SoundFileError.self) {
                _ = try SoundFileWriter(path: path, sampleRate: 48_000, channels: 1,
                                        container: container, sampleFormat: .float)
            }
            #expect(error?.kind == .unsupportedFormat)
            #expect(error?.message.contains("float") == true)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func integerFormatsClipInsteadOfWrapping() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/clip.wav"
            let input: [Float] = [1.5, -1.5, 0.25, 2.0]
            try writeFile(path, input, sampleRate: 8_000, channels: 1, container: .wav, format: .pcm16)
            let reader = try SoundFileReader(path: path)
            let output = try readAll(reader)
            #expect(output.count == 4)
            guard output.count == 4 else { return }
            #expect(output[0] > 0.99)
            #expect(output[1] < -0.99)
            #expect(abs(output[2] - 0.25) < 1e-4)
            #expect(output[3] > 0.99)
        }
    }

    @Test func updateHeaderMakesAnOpenFileReadable() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/live.wav"
            let writer = try SoundFileWriter(path: path, sampleRate: 16_000, channels: 1,
                                             container: .wav, sampleFormat: .pcm16)
            let samples = [Float](repeating: 0.1, count: 1_600)
            try samples.withUnsafeBufferPointer { buffer throws(SoundFileError) in try writer.write(buffer) }
            writer.updateHeader()
            // Another reader sees the frames written so far while the writer is still open,
            // as it would after the writing process was killed.
            let reader = try SoundFileReader(path: path)
            #expect(reader.frameCount == 1_600)
            reader.close()
            reader.close()  // idempotent
            try writer.close()
            let error = #expect(throws: SoundFileError.self) {
                try samples.withUnsafeBufferPointer { buffer throws(SoundFileError) in try writer.write(buffer) }
            }
            #expect(error?.kind == .io)
        }
    }

    @Test func containerFromPathExtension() {
        #expect(SoundFileContainer(pathExtension: "wav") == .wav)
        #expect(SoundFileContainer(pathExtension: "WAV") == .wav)
        #expect(SoundFileContainer(pathExtension: "flac") == .flac)
        #expect(SoundFileContainer(pathExtension: "ogg") == .ogg)
        #expect(SoundFileContainer(pathExtension: "mp3") == nil)
        #expect(SoundFileContainer(pathExtension: "") == nil)
    }
}

@Suite(.ownThreads) struct SoundFileErrorTests {
    @Test func missingFileIsNotFound() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/does-not-exist.wav"
            let error = #expect(throws: SoundFileError.self) { _ = try SoundFileReader(path: path) }
            #expect(error?.kind == .notFound)
            #expect(error?.path == path)
            #expect(error?.message == "cannot open \(path): No such file or directory")
            #expect(error?.description == error?.message)
        }
    }

    @Test func textFileNamedWavIsRejected() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/not-audio.wav"
            try Data("this is not a sound file, just some text\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: SoundFileError.self) { _ = try SoundFileReader(path: path) }
            #expect(error?.kind == .unsupportedFormat || error?.kind == .unreadable)
            #expect(error?.message.hasPrefix("cannot open \(path): ") == true)
        }
    }

    @Test func directoryIsUnreadable() throws {
        try withTemporaryDirectory { dir in
            let error = #expect(throws: SoundFileError.self) { _ = try SoundFileReader(path: dir) }
            #expect(error?.kind == .unreadable)
        }
    }

    @Test func writerIntoMissingDirectoryCannotCreate() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/no/such/dir/out.wav"
            let error = #expect(throws: SoundFileError.self) {
                _ = try SoundFileWriter(path: path, sampleRate: 16_000, channels: 1,
                                        container: .wav, sampleFormat: .pcm16)
            }
            #expect(error?.kind == .cannotCreate)
            #expect(error?.message.hasPrefix("cannot create \(path): ") == true)
        }
    }
}

@Suite(.ownThreads) struct SoundFileMP3Tests {
    /// Fixtures/sine440.mp3 was made with
    /// `ffmpeg -f lavfi -i "sine=frequency=440:duration=1" -ac 1 -ar 16000 -b:a 32k -map_metadata -1 sine440.mp3`
    @Test func readsMP3Fixture() throws {
        let url = try #require(Bundle.module.url(forResource: "sine440", withExtension: "mp3",
                                                 subdirectory: "Fixtures"))
        let reader = try SoundFileReader(path: url.path)
        defer { reader.close() }
        #expect(reader.sampleRate == 16_000)
        #expect(reader.channels == 1)
        #expect(reader.formatName.contains("MPEG"))
        let samples = try readAll(reader)
        // 1 s of audio; MP3 framing may add encoder delay/padding.
        #expect(samples.count >= 15_000 && samples.count <= 18_000, "\(samples.count) frames")
        if let frameCount = reader.frameCount {
            #expect(frameCount == Int64(samples.count))
        }
        let at440 = goertzel(samples, channel: 0, channels: 1, frequency: 440, sampleRate: 16_000)
        let at880 = goertzel(samples, channel: 0, channels: 1, frequency: 880, sampleRate: 16_000)
        #expect(at440 > 0.05, "440 Hz magnitude \(at440)")
        #expect(at880 < at440 / 20, "880 Hz magnitude \(at880) vs \(at440)")
    }
}
