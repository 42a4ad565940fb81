import AudioGraphCore
import AudioGraphTestKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AudioGraphIO

/// Shared helpers for the AAC and FFmpeg tests: scratch folders, the ffmpeg/ffprobe command-line tools (the
/// independent judge of what our sink writes), decoding with our reader, and signal comparison.
enum FFmpegTestSupport {
    /// A fresh temporary directory, removed when `body` returns.
    static func withScratchDirectory<T>(_ body: (String) throws -> T) throws -> T {
        try withTemporaryFolder(prefix: "AACTests", body)
    }

    struct ToolResult {
        var status: Int32
        var stdout: Data
        var stderr: String
    }

    struct ToolError: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a tool found on PATH (`ffmpeg`, `ffprobe`) and waits for it. Output goes through files, so a chatty
    /// tool never blocks on a full pipe.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> ToolResult {
        let folder = try TemporaryFolder(prefix: "tool")
        let outURL = folder.url.appendingPathComponent("out")
        let errURL = folder.url.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return ToolResult(status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
                          stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// `ffmpeg -nostdin -v error -y ARGS`, failing the caller if ffmpeg fails.
    static func ffmpeg(_ arguments: [String]) throws {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments)
        guard result.status == 0 else {
            throw ToolError(description: "ffmpeg \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
    }

    /// What ffprobe says about a file's first audio stream and its container.
    struct Probe {
        var codec: String
        var profile: String
        var sampleRate: Int
        var channels: Int
        /// The container's duration in seconds.
        var duration: Double
        /// The stream's duration in its time base (for MPEG-4 with an edit list: exactly the samples written).
        var durationTS: Int64?
        var formatName: String
    }

    static func ffprobe(_ path: String) throws -> Probe {
        let result = try run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                         "stream=codec_name,profile,sample_rate,channels,duration_ts:format=duration,format_name",
                                         "-of", "default=noprint_wrappers=1", path])
        guard result.status == 0 else { throw ToolError(description: "ffprobe \(path) failed: \(result.stderr)") }
        var fields: [String: String] = [:]
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let rate = fields["sample_rate"].flatMap({ Int($0) }), let channels = fields["channels"].flatMap({ Int($0) }),
              let duration = fields["duration"].flatMap({ Double($0) }) else {
            throw ToolError(description: "ffprobe \(path): unexpected output \(fields)")
        }
        return Probe(codec: fields["codec_name"] ?? "", profile: fields["profile"] ?? "", sampleRate: rate,
                     channels: channels, duration: duration, durationTS: fields["duration_ts"].flatMap { Int64($0) },
                     formatName: fields["format_name"] ?? "")
    }

    /// Decodes a file with the ffmpeg CLI to interleaved float at its own rate and channel count.
    static func ffmpegDecode(_ path: String) throws -> [Float] {
        let result = try run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "f32le", "-"])
        guard result.status == 0 else { throw ToolError(description: "ffmpeg -i \(path) failed: \(result.stderr)") }
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Everything `FFmpegAudioReader` decodes from `path`, read `framesPerRead` at a time.
    static func decodeWithReader(_ path: String, framesPerRead: Int = 4_096) throws
        -> (format: AudioFormat, frameCount: Int64?, formatName: String, samples: [Float]) {
        let reader = try FFmpegAudioReader(path: path)
        defer { reader.close() }
        var all: [Float] = []
        var chunk = [Float](repeating: 0, count: framesPerRead * reader.channels)
        while true {
            let got = try chunk.withUnsafeMutableBufferPointer { buffer throws(FFmpegError) in
                try reader.read(into: buffer, maxFrames: framesPerRead)
            }
            if got == 0 { break }
            all.append(contentsOf: chunk[0..<(got * reader.channels)])
        }
        return (AudioFormat(sampleRate: reader.sampleRate, channels: reader.channels), reader.frameCount,
                reader.formatName, all)
    }

    /// Everything libsndfile decodes from `path` (interleaved).
    static func decodeWAV(_ path: String) throws -> [Float] {
        let reader = try SoundFileReader(path: path)
        defer { reader.close() }
        return try readSamples(reader, framesPerRead: 4_096)
    }

    /// Writes interleaved float samples to a WAV with libsndfile.
    static func writeWAV(_ path: String, _ samples: [Float], sampleRate: Int, channels: Int,
                         sampleFormat: SoundFileSampleFormat = .float) throws {
        let writer = try SoundFileWriter(path: path, sampleRate: sampleRate, channels: channels, container: .wav,
                                         sampleFormat: sampleFormat)
        try samples.withUnsafeBufferPointer { buffer throws(SoundFileError) in try writer.write(buffer) }
        try writer.close()
    }

    /// The round-trip signal: a 440 Hz sine at 0.5 peak in every channel — except the LFE (the 4th of 6 to 8
    /// channels), which AAC low-passes: it gets 60 Hz.
    static func sine(frames: Int, sampleRate: Int, channels: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channels)
        for channel in 0..<channels {
            let frequency = channels >= 6 && channel == 3 ? 60 : 440.0
            for i in 0..<frames {
                samples[i * channels + channel] = Float(0.5 * sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate)))
            }
        }
        return samples
    }

    /// The frequency `tones` puts in a channel.
    static func toneFrequency(channel: Int, of channels: Int) -> Double {
        channels >= 6 && channel == 3 ? 60 : 440.0 * (1 + 0.25 * Double(channel))
    }

    /// A test signal with a different sine in each channel (so a channel mix-up shows), 0.4 peak. With 6 to 8
    /// channels the 4th is the LFE, which AAC low-passes: it gets 60 Hz.
    static func tones(frames: Int, sampleRate: Int, channels: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channels)
        for channel in 0..<channels {
            let frequency = toneFrequency(channel: channel, of: channels)
            for i in 0..<frames {
                samples[i * channels + channel] = Float(0.4 * sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate)))
            }
        }
        return samples
    }

    /// Signal-to-noise ratio in dB of `decoded` against `reference`, sample by sample over the reference's length
    /// (`decoded` may be longer: padding). -infinity if `decoded` is shorter.
    static func snr(reference: [Float], decoded: [Float]) -> Double {
        guard decoded.count >= reference.count, !reference.isEmpty else { return -.infinity }
        var signal = 0.0
        var noise = 0.0
        for i in reference.indices {
            let x = Double(reference[i])
            let d = x - Double(decoded[i])
            signal += x * x
            noise += d * d
        }
        return 10 * log10(signal / max(noise, 1e-30))
    }

    /// One channel of interleaved samples.
    static func channel(_ samples: [Float], _ channel: Int, of channels: Int) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Mounts a tmpfs of `bytes` at a new folder for `body` (a small disk that really fills up), or returns
    /// nil without calling `body` where mounting is not permitted (no CAP_SYS_ADMIN).
    static func withTinyDisk<T>(bytes: Int, _ body: (String) throws -> T) throws -> T? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tinydisk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mount("tmpfs", folder, "tmpfs", 0, "size=\(bytes)") == 0 else { return nil }
        defer { umount(folder) }
        return try body(folder)
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN, as here; not every CI container).
    static let canMountTmpfs: Bool = (try? withTinyDisk(bytes: 65_536) { _ in true }) == true
}
