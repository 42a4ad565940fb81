import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// Harness tests for `aac-sink`: what it writes is judged by our FFmpeg reader and by ffprobe/ffmpeg.

private typealias Support = FFmpegTestSupport

private func sinkParameters(path: String, bitrate: Int? = nil) -> JSONObject {
    var parameters = JSONObject()
    parameters["path"] = .string(path)
    if let bitrate { parameters["bitrate"] = .number(Double(bitrate)) }
    return parameters
}

@Suite(.ownThreads) struct AACSinkNodeTests {
    /// A round trip: a 440 Hz sine (0.5 peak, in every channel but the LFE) through the node, decoded by our
    /// reader and by the ffmpeg CLI. Lengths: the M4A's edit list makes ffprobe's stream duration and our
    /// reader's count exactly the frames fed; the ffmpeg CLI (which does not trim the end) gives them plus less
    /// than one AAC frame. The samples line up with the input with no shift (the SNR is measured at lag 0). SNR
    /// bounds are 3-4 dB under what was measured (benchmarks/README.md, "AAC").
    @Test(arguments: [
        // rate, channels, bitrate, SNR bound (dB)
        (8_000, 1, 32_000, 38.0), (16_000, 1, 64_000, 39.0), (22_050, 2, 64_000, 20.0), (44_100, 2, 64_000, 25.0),
        (48_000, 2, 128_000, 42.0), (48_000, 6, 320_000, 27.0), (96_000, 1, 128_000, 31.0),
    ] as [(Int, Int, Int, Double)])
    func roundTrip(sampleRate: Int, channels: Int, bitrate: Int, bound: Double) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/rec.m4a"
            let format = AudioFormat(sampleRate: sampleRate, channels: channels)
            let frames = Int(2.3 * Double(sampleRate)) + 17  // not a whole number of AAC frames or milliseconds
            let input = Support.sine(frames: frames, sampleRate: sampleRate, channels: channels)
            let sink = try NodeHarness(type: AACSinkNode.self, id: "rec",
                                       parameters: sinkParameters(path: path, bitrate: bitrate), input: format)
            #expect(sink.outputFormat == nil)
            #expect(FileManager.default.fileExists(atPath: path), "start creates the file")
            try sink.push(input, framesPerBuffer: 777)
            try sink.finish()
            #expect(sink.output.isEmpty)

            let probe = try Support.ffprobe(path)
            #expect(probe.codec == "aac" && probe.profile == "LC")
            #expect(probe.sampleRate == sampleRate && probe.channels == channels)
            #expect(probe.durationTS == Int64(frames), "ffprobe: the edit list covers exactly the frames fed")
            #expect(abs(probe.duration - Double(frames) / Double(sampleRate)) <= 1_024 / Double(sampleRate),
                    "ffprobe duration \(probe.duration)")

            let ours = try Support.decodeWithReader(path)
            #expect(ours.format == format)
            #expect(ours.formatName == "M4A (AAC) via FFmpeg")
            #expect(ours.frameCount == Int64(frames))
            #expect(ours.samples.count == input.count, "our reader: \(ours.samples.count / channels) frames, fed \(frames)")
            let snr = Support.snr(reference: input, decoded: ours.samples)
            #expect(snr > bound, "SNR \(snr) dB")

            let theirs = try Support.ffmpegDecode(path)
            let theirFrames = theirs.count / channels
            #expect(theirFrames >= frames && theirFrames < frames + 1_024, "ffmpeg decodes \(theirFrames) frames")
            let theirSNR = Support.snr(reference: input, decoded: theirs)
            #expect(theirSNR > bound, "SNR (ffmpeg) \(theirSNR) dB")
        }
    }

    /// The sink encodes exactly as `ffmpeg -c:a aac -b:a 64k` does on the same input: both files decode to the
    /// same samples (ours is the same encoder with the same settings, fed the same 1024-sample frames).
    @Test func encodesLikeFFmpeg() throws {
        try Support.withScratchDirectory { dir in
            let format = AudioFormat(sampleRate: 44_100, channels: 2)
            let input = Support.tones(frames: 88_200, sampleRate: 44_100, channels: 2)
            try Support.writeWAV(dir + "/in.wav", input, sampleRate: 44_100, channels: 2)
            try Support.ffmpeg(["-i", dir + "/in.wav", "-c:a", "aac", "-b:a", "64k", dir + "/ffmpeg.m4a"])
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: dir + "/ours.m4a"),
                                       input: format)
            try sink.push(input, framesPerBuffer: 1_000)
            try sink.finish()
            let ours = try Support.decodeWithReader(dir + "/ours.m4a").samples
            let theirs = try Support.decodeWithReader(dir + "/ffmpeg.m4a").samples
            #expect(ours.count == input.count)
            let identical = ours == theirs
            #expect(identical, "SNR ours vs ffmpeg's: \(Support.snr(reference: theirs, decoded: ours)) dB")
        }
    }

    /// `.aac` is raw ADTS: the reader drops the encoder's 1024 priming samples (the samples line up with what
    /// was fed, which the SNR proves); the end keeps less than one frame of padding. ffmpeg keeps the priming.
    @Test func adtsRoundTrip() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/rec.aac"
            let format = AudioFormat(sampleRate: 44_100, channels: 2)
            let frames = 100_000
            let input = Support.sine(frames: frames, sampleRate: 44_100, channels: 2)
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path), input: format)
            try sink.push(input, framesPerBuffer: 4_096)
            try sink.finish()

            let probe = try Support.ffprobe(path)
            #expect(probe.formatName == "aac" && probe.codec == "aac" && probe.profile == "LC")
            let ours = try Support.decodeWithReader(path)
            #expect(ours.formatName == "ADTS (AAC) via FFmpeg")
            #expect(ours.frameCount == nil, "ADTS has no index: the length is unknown until decoded")
            let ourFrames = ours.samples.count / 2
            #expect(ourFrames >= frames && ourFrames < frames + 1_024, "\(ourFrames) frames")
            let snr = Support.snr(reference: input, decoded: ours.samples)
            #expect(snr > 25, "SNR \(snr) dB: the priming was not dropped exactly")

            let theirs = try Support.ffmpegDecode(path)
            #expect(theirs.count / 2 == ourFrames + 1_024, "ffmpeg keeps the 1024 priming samples")
        }
    }

    /// `.mp4` gets the mp4 muxer; extensions are matched in any case.
    @Test(arguments: [("a.mp4", "MP4 (AAC) via FFmpeg"), ("B.M4A", "M4A (AAC) via FFmpeg"), ("c.AAC", "ADTS (AAC) via FFmpeg")])
    func containerFromExtension(name: String, formatName: String) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/" + name
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path),
                                       input: AudioFormat(sampleRate: 16_000, channels: 1))
            try sink.push(Signals.sine(frequency: 500, seconds: 0.5, sampleRate: 16_000))
            try sink.finish()
            #expect(try Support.decodeWithReader(path).formatName == formatName)
        }
    }

    @Test(arguments: ["out.wav", "out", "out.m4a.tmp", "out.ogg"])
    func unknownExtensionNamesThePath(name: String) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/" + name
            let error = try #require(graphError {
                _ = try NodeHarness(type: AACSinkNode.self, id: "rec", parameters: sinkParameters(path: path),
                                    input: AudioFormat(sampleRate: 16_000, channels: 1))
            })
            #expect(error.code == .invalidConfig)
            #expect(error.location == "nodes.rec.path")
            #expect(error.nodeID == "rec")
            #expect(error.message.contains(".m4a"))
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test(arguments: [15_999, 320_001])
    func bitrateOutOfRange(bitrate: Int) throws {
        try Support.withScratchDirectory { dir in
            let error = try #require(graphError {
                _ = try NodeHarness(type: AACSinkNode.self, id: "rec",
                                    parameters: sinkParameters(path: dir + "/x.m4a", bitrate: bitrate),
                                    input: AudioFormat(sampleRate: 16_000, channels: 1))
            })
            #expect(error.location == "nodes.rec.bitrate")
        }
    }

    /// The bitrate reaches the encoder: 4x the rate, about 4x the bytes.
    @Test func bitrateSetsTheSize() throws {
        try Support.withScratchDirectory { dir in
            let input = Signals.noise(seconds: 5, sampleRate: 44_100, channels: 2, amplitude: 0.3, seed: 5)
            var sizes: [Int: Int] = [:]
            for bitrate in [32_000, 128_000] {
                let path = dir + "/\(bitrate).m4a"
                let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path, bitrate: bitrate),
                                           input: AudioFormat(sampleRate: 44_100, channels: 2))
                try sink.push(input, framesPerBuffer: 1_000)
                try sink.finish()
                sizes[bitrate] = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
                let expected = bitrate / 8 * 5
                let size = sizes[bitrate] ?? 0
                #expect(Double(size) > 0.8 * Double(expected) && Double(size) < 1.2 * Double(expected),
                        "\(bitrate) b/s for 5 s: \(size) bytes, expected about \(expected)")
            }
        }
    }

    /// The rates AAC codes and 1-8 channels; anything else is converted by the builder to the closest of these.
    @Test func acceptedFormats() {
        let accepted = AACSinkNode.descriptor.acceptedFormats
        #expect(accepted.accepts(AudioFormat(sampleRate: 44_100, channels: 2)))
        #expect(accepted.accepts(AudioFormat(sampleRate: 8_000, channels: 8)))
        #expect(!accepted.accepts(AudioFormat(sampleRate: 44_000, channels: 2)))
        #expect(!accepted.accepts(AudioFormat(sampleRate: 16_000, channels: 9)))
        #expect(accepted.closest(to: AudioFormat(sampleRate: 20_000, channels: 10)) == AudioFormat(sampleRate: 22_050, channels: 8))
        #expect(accepted.closest(to: AudioFormat(sampleRate: 192_000, channels: 1)) == AudioFormat(sampleRate: 96_000, channels: 1))
        #expect(AACSinkNode.descriptor.execution == .queued(capacity: 64))
    }

    /// One frame per buffer and one big buffer write byte-identical files (the FIFO does the framing).
    @Test func bufferSizeDoesNotChangeTheFile() throws {
        try Support.withScratchDirectory { dir in
            let format = AudioFormat(sampleRate: 16_000, channels: 2)
            let input = Support.tones(frames: 12_345, sampleRate: 16_000, channels: 2)
            var files: [Data] = []
            for framesPerBuffer in [1, 1_000, 1_024, 12_345] {
                let path = dir + "/\(framesPerBuffer).m4a"
                let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path), input: format)
                try sink.push(input, framesPerBuffer: framesPerBuffer)
                try sink.finish()
                files.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
            #expect(files[0].count > 1_000)
            for (index, file) in files.enumerated().dropFirst() {
                #expect(file == files[0], "file \(index) differs from one frame at a time")
            }
        }
    }

    /// The failure path (SIGINT, a failure elsewhere): `stop` without `finish` flushes the encoder and writes the
    /// index, so ffprobe reads the file and it holds every frame fed.
    @Test(arguments: ["m4a", "aac"])
    func stopWithoutFinishLeavesAPlayableFile(ext: String) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/partial." + ext
            let format = AudioFormat(sampleRate: 48_000, channels: 2)
            let input = Support.sine(frames: 70_001, sampleRate: 48_000, channels: 2)
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path), input: format)
            try sink.push(input, framesPerBuffer: 960)
            sink.stop()
            sink.stop()  // idempotent
            let probe = try Support.ffprobe(path)
            #expect(probe.sampleRate == 48_000 && probe.channels == 2)
            let ours = try Support.decodeWithReader(path)
            if ext == "m4a" {
                #expect(probe.durationTS == 70_001)
                #expect(ours.samples.count == input.count)
            } else {
                #expect(ours.samples.count >= input.count && ours.samples.count < input.count + 2 * 1_024)
            }
            #expect(Support.snr(reference: input, decoded: ours.samples) > 25)
        }
    }

    /// End of stream closes the file; `stop` afterwards changes nothing.
    @Test func finishClosesTheFile() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/out.m4a"
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path),
                                       input: AudioFormat(sampleRate: 16_000, channels: 1))
            try sink.push(Signals.sine(frequency: 300, seconds: 1, sampleRate: 16_000), framesPerBuffer: 160)
            try sink.push(Event(node: "level", time: 0.5, payload: .speechStarted))  // accepted, not written
            try sink.push(ControlCommand.flush)  // does not cut the recording
            try sink.push(Signals.sine(frequency: 300, seconds: 1, sampleRate: 16_000), framesPerBuffer: 160,
                          startingAt: 16_000)
            try sink.finish()
            #expect(sink.output.isEmpty, "a sink sends nothing on")
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            sink.node.stop()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try Support.ffprobe(path).durationTS == 32_000)
        }
    }

    /// No audio at all still gives a valid file ffprobe reads (MPEG-4 drops a track with no samples, so it
    /// has no audio stream, and its duration is 0).
    @Test func emptyRecording() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/empty.m4a"
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: path),
                                       input: AudioFormat(sampleRate: 16_000, channels: 1))
            try sink.finish()
            let result = try Support.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(String(decoding: result.stdout, as: UTF8.self).hasPrefix("0.0"))
        }
    }

    @Test func missingFoldersAreCreated() throws {
        try Support.withScratchDirectory { dir in
            let sink = try NodeHarness(type: AACSinkNode.self, parameters: sinkParameters(path: "out/deeper/x.m4a"),
                                       input: AudioFormat(sampleRate: 8_000, channels: 1), baseDirectory: dir)
            try sink.push(Signals.constant(0.25, seconds: 0.1, sampleRate: 8_000))
            try sink.finish()
            #expect(try Support.ffprobe(dir + "/out/deeper/x.m4a").durationTS == 800)
        }
    }

    // MARK: Output errors

    /// The output's folder is a regular file: cannot create the output, naming the path.
    @Test func parentIsAFileCannotCreateOutput() throws {
        try Support.withScratchDirectory { dir in
            let blocker = dir + "/blocker"
            try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
            let path = blocker + "/out.m4a"
            let error = try #require(graphError {
                _ = try NodeHarness(type: AACSinkNode.self, id: "rec", parameters: sinkParameters(path: path),
                                    input: AudioFormat(sampleRate: 16_000, channels: 1))
            })
            #expect(error.code == .cannotCreateOutput)
            #expect(error.location == path)
            #expect(error.nodeID == "rec")
            #expect(try String(contentsOfFile: blocker, encoding: .utf8) == "x", "the blocking file is left alone")
        }
    }

    /// The output path is an existing directory: the folder exists, but FFmpeg cannot create the file.
    @Test func pathIsADirectoryCannotCreateOutput() throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/taken.m4a"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let error = try #require(graphError {
                _ = try NodeHarness(type: AACSinkNode.self, id: "rec", parameters: sinkParameters(path: path),
                                    input: AudioFormat(sampleRate: 16_000, channels: 1))
            })
            #expect(error.code == .cannotCreateOutput)
            #expect(error.location == path)
            #expect(error.message.contains("Is a directory"), "\(error.message)")
        }
    }

    /// A full disk, the deterministic way: the output is a link to /dev/full, where every write(2) fails with
    /// ENOSPC (no mount needed; a process-wide RLIMIT_FSIZE would hit the tests running beside this one, so the
    /// CLI tests do that in a child process, see AACInterruptTests). The MPEG-4 header is flushed at once, so
    /// `.m4a` fails in `start` (cannot create the output); ADTS has no header, so `.aac` fails part way (an
    /// I/O error). Both name the file and say "No space left on device"; `stop` then cleans up without crashing.
    @Test(arguments: [("m4a", GraphError.Code.cannotCreateOutput), ("aac", .io)])
    func diskFullNamesThePath(ext: String, code: GraphError.Code) throws {
        try Support.withScratchDirectory { dir in
            let path = dir + "/full." + ext
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
            var sink: NodeHarness<AACSinkNode>?
            let error = try #require(graphError {
                let harness = try NodeHarness(type: AACSinkNode.self, id: "rec",
                                              parameters: sinkParameters(path: path, bitrate: 128_000),
                                              input: AudioFormat(sampleRate: 44_100, channels: 2))
                sink = harness
                try harness.push(Support.tones(frames: 44_100 * 10, sampleRate: 44_100, channels: 2), framesPerBuffer: 4_410)
                try harness.finish()
            })
            #expect(error.code == code)
            #expect(error.location == path)
            #expect(error.nodeID == "rec")
            #expect(error.message.contains("No space left on device"), "\(error.message)")
            #expect(error.message.contains(path), "\(error.message)")
            #expect((sink != nil) == (code == .io), "the ADTS sink started; the M4A sink did not")
            sink?.stop()
            sink?.stop()
        }
    }

    /// A disk that fills up part way through an M4A recording (a 256 KB tmpfs, where this process may mount
    /// one): an I/O error naming the file; `stop` does not crash, and nothing is left but what fitted.
    @Test(.enabled(if: FFmpegTestSupport.canMountTmpfs, "needs permission to mount a tmpfs"))
    func tmpfsFillsUp() throws {
        let outcome = try Support.withTinyDisk(bytes: 256 * 1_024) { disk in
            let path = disk + "/rec.m4a"
            let sink = try NodeHarness(type: AACSinkNode.self, id: "rec", parameters: sinkParameters(path: path, bitrate: 128_000),
                                       input: AudioFormat(sampleRate: 48_000, channels: 2))
            let error = try #require(graphError {
                try sink.push(Support.tones(frames: 48_000 * 30, sampleRate: 48_000, channels: 2), framesPerBuffer: 4_800)
                try sink.finish()
            })
            sink.stop()
            sink.stop()
            #expect(error.code == .io)
            #expect(error.location == path)
            #expect(error.message == "cannot write \(path): No space left on device", "\(error.message)")
            return true
        }
        #expect(outcome == true, "the tmpfs could not be mounted")
    }
}
