import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// `FFmpegAudioReader` on files made by the ffmpeg CLI (an independent encoder/muxer), and `file-source`'s
// fallback to it for what libsndfile cannot read.

private typealias Support = FFmpegTestSupport

private func sourceParameters(path: String, blockFrames: Int? = nil) -> JSONObject {
    var parameters = JSONObject()
    parameters["path"] = .string(path)
    if let blockFrames { parameters["blockFrames"] = .number(Double(blockFrames)) }
    return parameters
}

@Suite(.ownThreads) struct FFmpegAudioReaderTests {
    /// An M4A made by `ffmpeg -c:a aac` from a known WAV: the edit list's length (honoured at both ends), the
    /// samples aligned with the WAV's (priming dropped), the stream's rate and channels.
    @Test(arguments: [(44_100, 2), (48_000, 1), (22_050, 2)])
    func m4aMadeByFFmpeg(sampleRate: Int, channels: Int) throws {
        try Support.withScratchDirectory { dir in
            let frames = Int(1.7 * Double(sampleRate)) + 3
            let input = Support.sine(frames: frames, sampleRate: sampleRate, channels: channels)
            try Support.writeWAV(dir + "/in.wav", input, sampleRate: sampleRate, channels: channels)
            try Support.ffmpeg(["-i", dir + "/in.wav", "-c:a", "aac", "-b:a", "\(64 * channels)k", dir + "/out.m4a"])
            let decoded = try Support.decodeWithReader(dir + "/out.m4a")
            #expect(decoded.format == AudioFormat(sampleRate: sampleRate, channels: channels))
            #expect(decoded.formatName == "M4A (AAC) via FFmpeg")
            // ffmpeg's default movie timescale (1000) rounds the edit list to a millisecond.
            let count = decoded.samples.count / channels
            #expect(decoded.frameCount == Int64(count))
            #expect(abs(count - frames) <= sampleRate / 2_000 + 1, "\(count) frames of \(frames)")
            // Aligned with the WAV: with the priming left in (1024 samples off) the SNR would be below 0 dB.
            let snr = Support.snr(reference: Array(input[0..<(min(count, frames) * channels)]), decoded: decoded.samples)
            #expect(snr > 15, "SNR \(snr) dB")
        }
    }

    /// ADTS made by ffmpeg: the first 1024 samples (priming) are dropped, so the samples line up with the WAV.
    @Test func adtsMadeByFFmpeg() throws {
        try Support.withScratchDirectory { dir in
            let frames = 50_000
            let input = Support.sine(frames: frames, sampleRate: 32_000, channels: 1)
            try Support.writeWAV(dir + "/in.wav", input, sampleRate: 32_000, channels: 1)
            try Support.ffmpeg(["-i", dir + "/in.wav", "-c:a", "aac", "-b:a", "64k", dir + "/out.aac"])
            let decoded = try Support.decodeWithReader(dir + "/out.aac")
            #expect(decoded.formatName == "ADTS (AAC) via FFmpeg")
            #expect(decoded.format == AudioFormat(sampleRate: 32_000, channels: 1))
            #expect(decoded.frameCount == nil)
            #expect(decoded.samples.count >= frames && decoded.samples.count < frames + 1_024)
            let snr = Support.snr(reference: input, decoded: decoded.samples)
            #expect(snr > 15, "SNR \(snr) dB (priming not dropped: below 0 dB)")
        }
    }

    /// Lossless codecs through FFmpeg give back the very samples (ALAC in M4A: s16p/s32p conversion; FLAC in
    /// Matroska), which checks the conversion and the channel order bit for bit.
    @Test(arguments: [("alac.m4a", "alac", "M4A (ALAC) via FFmpeg"), ("flac.mka", "flac", "MATROSKA (FLAC) via FFmpeg")])
    func losslessThroughFFmpegIsExact(name: String, codec: String, formatName: String) throws {
        try Support.withScratchDirectory { dir in
            let input = Signals.noise(seconds: 0.75, sampleRate: 44_100, channels: 2, amplitude: 0.7, seed: 9)
            try Support.writeWAV(dir + "/in.wav", input, sampleRate: 44_100, channels: 2, sampleFormat: .pcm16)
            let pcm16 = try Support.decodeWAV(dir + "/in.wav")
            try Support.ffmpeg(["-i", dir + "/in.wav", "-c:a", codec, dir + "/" + name])
            let decoded = try Support.decodeWithReader(dir + "/" + name)
            #expect(decoded.formatName == formatName)
            #expect(decoded.samples.count == pcm16.count)
            let identical = decoded.samples == pcm16
            #expect(identical, "\(codec) did not decode to the WAV's samples")
        }
    }

    /// Opus in WebM: the container's pre-skip and end trimming are honoured by libavformat/libavcodec.
    @Test func opusInWebM() throws {
        try Support.withScratchDirectory { dir in
            let input = Support.tones(frames: 48_000, sampleRate: 48_000, channels: 2)
            try Support.writeWAV(dir + "/in.wav", input, sampleRate: 48_000, channels: 2)
            try Support.ffmpeg(["-i", dir + "/in.wav", "-c:a", "libopus", "-b:a", "96k", dir + "/out.webm"])
            let decoded = try Support.decodeWithReader(dir + "/out.webm")
            #expect(decoded.formatName == "WEBM (OPUS) via FFmpeg")
            #expect(decoded.format == AudioFormat(sampleRate: 48_000, channels: 2))
            #expect(decoded.samples.count == input.count)
            #expect(Support.snr(reference: input, decoded: decoded.samples) > 15)
        }
    }

    /// Any read size gives the same samples.
    @Test func readSizeDoesNotChangeTheSamples() throws {
        try Support.withScratchDirectory { dir in
            let input = Support.tones(frames: 30_011, sampleRate: 16_000, channels: 2)
            try Support.writeWAV(dir + "/in.wav", input, sampleRate: 16_000, channels: 2)
            try Support.ffmpeg(["-i", dir + "/in.wav", "-c:a", "aac", dir + "/out.m4a"])
            let reference = try Support.decodeWithReader(dir + "/out.m4a", framesPerRead: 100_000).samples
            #expect(abs(reference.count - input.count) <= 2 * 9, "within the millisecond ffmpeg rounds the edit list to")
            for framesPerRead in [1, 777, 1_024, 4_096] {
                let samples = try Support.decodeWithReader(dir + "/out.m4a", framesPerRead: framesPerRead).samples
                let identical = samples == reference
                #expect(identical, "\(framesPerRead) frames per read differs")
            }
        }
    }

    @Test func errors() throws {
        try Support.withScratchDirectory { dir in
            func failure(_ path: String) -> FFmpegError? {
                do throws(FFmpegError) {
                    _ = try FFmpegAudioReader(path: path)
                    return nil
                } catch {
                    return error
                }
            }
            #expect(failure(dir + "/nope.m4a")?.kind == .notFound)
            #expect(failure(dir)?.kind == .unreadable)
            try Data("not audio at all, just some text\n".utf8).write(to: URL(fileURLWithPath: dir + "/text.m4a"))
            let text = failure(dir + "/text.m4a")
            #expect(text?.kind == .unsupportedFormat)
            #expect(text?.message.hasPrefix("cannot open \(dir)/text.m4a: ") == true, "\(String(describing: text))")
        }
    }

    /// `close` is idempotent; reading after it is an error, not a crash.
    @Test func readAfterClose() throws {
        try Support.withScratchDirectory { dir in
            try Support.ffmpeg(["-f", "lavfi", "-i", "sine=d=0.5", "-c:a", "aac", dir + "/a.m4a"])
            let reader = try FFmpegAudioReader(path: dir + "/a.m4a")
            reader.close()
            reader.close()
            var buffer = [Float](repeating: 0, count: 1_024)
            do throws(FFmpegError) {
                _ = try buffer.withUnsafeMutableBufferPointer { pointer throws(FFmpegError) in
                    try reader.read(into: pointer, maxFrames: 1_024)
                }
                Issue.record("read after close succeeded")
            } catch {
                #expect(error.kind == .io)
            }
        }
    }
}

/// `file-source` reads through libsndfile first and falls back to FFmpeg.
@Suite(.ownThreads) struct FFmpegFileSourceTests {
    /// A recording by our own `aac-sink` reads back through `file-source` at exactly its recorded length, in
    /// blocks with consecutive positions, with the length known up front (progress bars).
    @Test func readsWhatAACSinkRecorded() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/rec.m4a"
            let format = AudioFormat(sampleRate: 44_100, channels: 2)
            let input = Support.sine(frames: 100_003, sampleRate: 44_100, channels: 2)
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sourceParameters(path: path), input: format)
            try sink.push(input, framesPerBuffer: 512)
            try sink.finish()

            let source = try NodeHarness(type: FileSourceNode.self, id: "src",
                                         parameters: sourceParameters(path: path, blockFrames: 4_096), input: nil)
            #expect(source.outputFormat == format)
            #expect(source.node.formatName == "M4A (AAC) via FFmpeg")
            #expect(source.node.totalFrames == 100_003)
            try source.runToEnd()
            let buffers = source.buffers()
            #expect(buffers.count == (100_003 + 4_095) / 4_096)
            #expect(zip(buffers, buffers.dropFirst()).allSatisfy { $0.endPosition == $1.position })
            #expect(buffers.last?.endPosition == 100_003, "recorded 100003 frames, read back \(buffers.last?.endPosition ?? 0)")
            #expect(Support.snr(reference: input, decoded: source.samples()) > 25)
        }
    }

    /// Files made by the ffmpeg CLI: M4A (exact length) and ADTS AAC (length unknown up front).
    @Test(arguments: [("sine.m4a", Int64(40_000)), ("sine.aac", nil), ("sine.mp4", Int64(40_000))] as [(String, Int64?)])
    func readsFilesMadeByFFmpeg(name: String, totalFrames: Int64?) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/" + name
            try Support.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=16000:duration=2.5",
                                "-c:a", "aac", "-b:a", "48k", path])
            let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: path), input: nil)
            #expect(source.outputFormat == AudioFormat(sampleRate: 16_000, channels: 1))
            #expect(source.node.totalFrames == totalFrames)
            #expect(source.node.formatName.hasSuffix("(AAC) via FFmpeg"))
            try source.runToEnd()
            let samples = source.samples()
            #expect(samples.count >= 40_000 && samples.count < 40_000 + 1_024, "\(samples.count) frames")
            if totalFrames != nil { #expect(samples.count == 40_000) }
            // The tone is there at the level ffmpeg's sine source makes (1/8 full scale).
            let rms = Signals.rms(Array(samples[2_000..<38_000]))
            #expect(abs(rms - 0.125 / 2.0.squareRoot()) < 0.01, "rms \(rms)")
        }
    }

    /// What libsndfile reads stays with libsndfile.
    @Test func wavStaysWithLibsndfile() throws {
        try Support.withScratchDirectory { dir in
            try Support.writeWAV(dir + "/in.wav", Signals.sine(frequency: 440, seconds: 0.1, sampleRate: 8_000),
                                 sampleRate: 8_000, channels: 1, sampleFormat: .pcm16)
            let source = try NodeHarness(type: FileSourceNode.self, parameters: sourceParameters(path: dir + "/in.wav"),
                                         input: nil)
            #expect(source.node.formatName == "WAV (Signed 16 bit PCM)")
            source.stop()
        }
    }

    /// Neither library reads it: the error names nodes.<id>.path and says what both said.
    @Test func neitherCanReadIt() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/notes.m4a"
            try Data("this is not audio, just text that happens to end in .m4a\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = try #require(graphError {
                _ = try NodeHarness(type: FileSourceNode.self, id: "src", parameters: sourceParameters(path: path), input: nil)
            })
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.src.path")
            #expect(error.nodeID == "src")
            #expect(error.message.contains(path), "\(error.message)")
            #expect(error.message.contains("libsndfile: ") && error.message.contains("FFmpeg: "), "\(error.message)")
        }
    }
}
