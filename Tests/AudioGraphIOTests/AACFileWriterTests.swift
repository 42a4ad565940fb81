import AudioGraphTestKit
import CFFmpeg
import Foundation
import Testing
@testable import AudioGraphIO

// Unit tests of `AACFileWriter` alone (the node's tests cover round trips through the graph's API).

private typealias Support = FFmpegTestSupport

@Suite(.ownThreads) struct AACFileWriterTests {
    /// The declared rates are exactly what the native encoder lists.
    @Test func supportedSampleRatesAreTheEncoders() throws {
        let codec = try #require(avcodec_find_encoder_by_name("aac"))
        var rates: [Int] = []
        var pointer = try #require(codec.pointee.supported_samplerates)
        while pointer.pointee != 0 {
            rates.append(Int(pointer.pointee))
            pointer += 1
        }
        #expect(rates == AACFileWriter.supportedSampleRates)
    }

    @Test func containerFromExtension() {
        #expect(AACContainer(pathExtension: "m4a") == .mp4)
        #expect(AACContainer(pathExtension: ".MP4") == .mp4)
        #expect(AACContainer(pathExtension: "aac") == .adts)
        #expect(AACContainer(pathExtension: "wav") == nil)
        #expect(AACContainer(pathExtension: "") == nil)
        #expect(AACContainer.muxerName(for: .mp4, path: "/x/a.m4a") == "ipod")
        #expect(AACContainer.muxerName(for: .mp4, path: "/x/a.MP4") == "mp4")
        #expect(AACContainer.muxerName(for: .adts, path: "/x/a.aac") == "adts")
    }

    /// Every channel count 1...8 encodes (layouts mono … 7.1; 3, 5 and 7 channels need a PCE, which the native
    /// encoder writes) and decodes back with its channels in place: each channel carries its own tone, and in
    /// each decoded channel that tone is at least 30 dB above every other channel's.
    @Test(arguments: 1...8)
    func everyChannelCount(channels: Int) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/ch\(channels).m4a"
            let frames = 24_000
            let input = Support.tones(frames: frames, sampleRate: 48_000, channels: channels)
            let writer = try AACFileWriter(path: path, sampleRate: 48_000, channels: channels, bitrate: 48_000 * channels)
            try input.withUnsafeBufferPointer { buffer throws(FFmpegError) in try writer.write(buffer) }
            #expect(writer.framesWritten == Int64(frames))
            try writer.close()
            let decoded = try Support.decodeWithReader(path)
            #expect(decoded.format.channels == channels)
            #expect(decoded.samples.count == input.count)
            for channel in 0..<channels {
                let samples = Support.channel(decoded.samples, channel, of: channels)
                let own = Signals.power(of: Support.toneFrequency(channel: channel, of: channels), in: samples, sampleRate: 48_000)
                for other in 0..<channels where other != channel {
                    let leak = Signals.power(of: Support.toneFrequency(channel: other, of: channels), in: samples,
                                             sampleRate: 48_000)
                    #expect(own > 1_000 * leak, "channel \(channel) holds channel \(other)'s tone")
                }
            }
        }
    }

    @Test func unsupportedSettingsAreRefused() throws {
        try Support.withScratchDirectory { dir in
            for (rate, channels, name) in [(44_000, 2, "a.m4a"), (16_000, 0, "b.m4a"), (16_000, 9, "c.m4a"), (16_000, 1, "d.wav")] {
                do throws(FFmpegError) {
                    _ = try AACFileWriter(path: dir + "/" + name, sampleRate: rate, channels: channels)
                    Issue.record("\(rate) Hz \(channels) ch \(name) was accepted")
                } catch {
                    #expect(error.kind == .unsupportedFormat)
                    #expect(error.message.hasPrefix("cannot create \(dir)/\(name): "), "\(error.message)")
                }
                #expect(!FileManager.default.fileExists(atPath: dir + "/" + name))
            }
        }
    }

    /// `close` is idempotent; writing after it is an error, not a crash.
    @Test func closeTwiceThenWrite() throws {
        try Support.withScratchDirectory { dir in
            let writer = try AACFileWriter(path: dir + "/x.aac", sampleRate: 16_000, channels: 1)
            let samples = [Float](repeating: 0.1, count: 5_000)
            try samples.withUnsafeBufferPointer { buffer throws(FFmpegError) in try writer.write(buffer) }
            try writer.close()
            try writer.close()
            do throws(FFmpegError) {
                try samples.withUnsafeBufferPointer { buffer throws(FFmpegError) in try writer.write(buffer) }
                Issue.record("a write after close succeeded")
            } catch {
                #expect(error.kind == .io)
                #expect(error.message.contains("closed"))
            }
        }
    }

    /// A writer dropped without `close` still finalizes its file (deinit closes).
    @Test func deinitFinalizes() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/dropped.m4a"
            do {
                let writer = try AACFileWriter(path: path, sampleRate: 22_050, channels: 1)
                let samples = Support.tones(frames: 10_000, sampleRate: 22_050, channels: 1)
                try samples.withUnsafeBufferPointer { buffer throws(FFmpegError) in try writer.write(buffer) }
            }
            #expect(try Support.ffprobe(path).durationTS == 10_000)
        }
    }

    /// Disk full at the writer (/dev/full: every write fails with ENOSPC). ADTS has no header, so the failure
    /// comes from a `write`, naming the path; later writes fail the same way at once; close does not crash (and
    /// does not report the same failure twice). MPEG-4 flushes its header at once, so there the writer cannot
    /// even be created.
    @Test func diskFull() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/full.aac"
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
            let writer = try AACFileWriter(path: path, sampleRate: 48_000, channels: 2, bitrate: 256_000)
            let second = Support.tones(frames: 48_000, sampleRate: 48_000, channels: 2)
            var failure: FFmpegError?
            for _ in 0..<10 where failure == nil {
                do throws(FFmpegError) {
                    try second.withUnsafeBufferPointer { buffer throws(FFmpegError) in try writer.write(buffer) }
                } catch {
                    failure = error
                }
            }
            let error = try #require(failure)
            #expect(error.kind == .io)
            #expect(error.message == "cannot write \(path): No space left on device")
            #expect(error.code == audiograph_averror_enospc())
            do throws(FFmpegError) {
                try second.withUnsafeBufferPointer { buffer throws(FFmpegError) in try writer.write(buffer) }
                Issue.record("a write after a failure succeeded")
            } catch {
                #expect(error.message == "cannot write \(path): No space left on device")
            }
            try writer.close()

            let m4a = dir + "/full.m4a"
            try FileManager.default.createSymbolicLink(atPath: m4a, withDestinationPath: "/dev/full")
            do throws(FFmpegError) {
                _ = try AACFileWriter(path: m4a, sampleRate: 48_000, channels: 2)
                Issue.record("an M4A writer on a full disk was created")
            } catch {
                #expect(error.kind == .cannotCreate)
                #expect(error.message == "cannot write the header of \(m4a): No space left on device")
            }
        }
    }
}
