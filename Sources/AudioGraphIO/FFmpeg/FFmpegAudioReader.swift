import CFFmpeg
import Foundation

/// Decodes the best audio stream of any file FFmpeg reads (M4A/MP4/MOV, ADTS AAC, Matroska/WebM, MP3, …) to
/// interleaved 32-bit float frames at the stream's own rate and channel count, block by block — the same
/// streaming API as `SoundFileReader`.
///
/// Encoder priming is dropped, so that a file decodes to the length that was encoded:
/// - MPEG-4 files with an edit list (what `AACFileWriter` and ffmpeg write): libavformat turns the edit list's
///   start into skip-samples side data (libavcodec drops the priming), and the reader stops at the edit
///   list's duration, which hides the padding of the last AAC frame. The result is exactly the samples written.
/// - Raw ADTS `.aac` carries no priming information: the first 1024 samples (the priming of FFmpeg's native
///   encoder, see C-INTEROP.md) are dropped. The end keeps the last frame's padding (less than 1024 samples).
/// - Everything else: whatever the container signals (Matroska, Ogg) is honoured by libavformat/libavcodec.
///
/// Confinement: FFmpeg contexts are not safe to use from two threads at once. Use each instance from one thread
/// at a time; handing it to another thread between calls is fine. Deliberately not `Sendable`.
public final class FFmpegAudioReader {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// Frames the reader will deliver, when the container says exactly (MPEG-4) or reliably (a duration not
    /// guessed from the bit rate); nil for raw ADTS and other streams without an index.
    public let frameCount: Int64?
    /// A short description: container, codec and "via FFmpeg", e.g. "M4A (AAC) via FFmpeg",
    /// "ADTS (AAC) via FFmpeg", "WEBM (OPUS) via FFmpeg".
    public let formatName: String
    /// Frames dropped at the start because the container does not say the encoder's priming (ADTS: 1024).
    public let primingFrames: Int

    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let streamIndex: Int32

    /// Converts decoded frames to interleaved float at `sampleRate`/`channels`.
    private let converter: FFmpegSampleConverter

    /// Decoded, converted frames not yet handed out: `converter.output[pendingStart ..< pendingEnd]` (in frames).
    private var pendingStart = 0
    private var pendingEnd = 0
    /// Frames still to drop at the start.
    private var framesToSkip: Int
    /// Frames still to deliver before the container's end (MPEG-4 edit list), or nil to decode to the end.
    private var framesRemaining: Int64?
    private var demuxerFinished = false
    private var finished = false

    public init(path: String) throws(FFmpegError) {
        FFmpeg.configureLogging()
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FFmpegError(kind: .notFound, path: path, message: "cannot open \(path): No such file or directory")
        }
        if isDirectory.boolValue {
            throw FFmpegError(kind: .unreadable, path: path, message: "cannot open \(path): Is a directory")
        }
        try FFmpeg.requireLibraries("open", path, kind: .unreadable)

        let opened = try Self.open(path: path)
        formatContext = opened.format
        codecContext = opened.codec
        frame = opened.frame
        packet = opened.packet
        streamIndex = opened.streamIndex
        sampleRate = opened.sampleRate
        channels = opened.channels
        formatName = opened.formatName
        primingFrames = opened.primingFrames
        frameCount = opened.frameCount
        framesToSkip = opened.primingFrames
        framesRemaining = opened.exactLength ? opened.frameCount : nil
        converter = FFmpegSampleConverter(sampleRate: opened.sampleRate, channels: opened.channels, path: path)
    }

    deinit { close() }

    private struct Opened {
        var format: UnsafeMutablePointer<AVFormatContext>
        var codec: UnsafeMutablePointer<AVCodecContext>
        var frame: UnsafeMutablePointer<AVFrame>
        var packet: UnsafeMutablePointer<AVPacket>
        var streamIndex: Int32
        var sampleRate: Int
        var channels: Int
        var formatName: String
        var primingFrames: Int
        var frameCount: Int64?
        var exactLength: Bool
    }

    /// Opens demuxer and decoder; frees all of it if a step fails.
    private static func open(path: String) throws(FFmpegError) -> Opened {
        func failure(_ kind: FFmpegError.Kind, _ why: String, _ code: Int32? = nil) -> FFmpegError {
            FFmpegError(kind: kind, path: path, message: "cannot open \(path): \(why)", code: code)
        }
        var formatContext: UnsafeMutablePointer<AVFormatContext>?
        var codecContext: UnsafeMutablePointer<AVCodecContext>?
        var frame: UnsafeMutablePointer<AVFrame>?
        var packet: UnsafeMutablePointer<AVPacket>?
        var succeeded = false
        defer {
            if !succeeded {
                avcodec_free_context(&codecContext)
                av_frame_free(&frame)
                av_packet_free(&packet)
                avformat_close_input(&formatContext)
            }
        }

        var rc = avformat_open_input(&formatContext, path, nil, nil)
        guard rc >= 0, let format = formatContext else {
            let kind: FFmpegError.Kind = rc == audiograph_averror_invaliddata() ? .unsupportedFormat
                : rc == audiograph_averror_enoent() ? .notFound : .unreadable
            throw failure(kind, FFmpeg.errorText(rc), rc)
        }
        rc = avformat_find_stream_info(format, nil)
        guard rc >= 0 else { throw failure(.unsupportedFormat, FFmpeg.errorText(rc), rc) }

        var decoder: UnsafePointer<AVCodec>?
        rc = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard rc >= 0 else {
            if rc == audiograph_averror_decoder_not_found() {
                throw failure(.unsupportedFormat, "this FFmpeg has no decoder for its audio")
            }
            throw failure(.unsupportedFormat, "FFmpeg finds no audio stream in it", rc)
        }
        let streamIndex = rc
        guard let decoder, let stream = format.pointee.streams[Int(streamIndex)] else {
            throw failure(.unsupportedFormat, "this FFmpeg has no decoder for its audio")
        }
        codecContext = avcodec_alloc_context3(decoder)
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let context = codecContext, let frame, let packet else { throw failure(.unreadable, "out of memory") }
        rc = avcodec_parameters_to_context(context, stream.pointee.codecpar)
        guard rc >= 0 else { throw failure(.unsupportedFormat, FFmpeg.errorText(rc), rc) }
        context.pointee.pkt_timebase = stream.pointee.time_base
        rc = avcodec_open2(context, decoder, nil)
        guard rc >= 0 else {
            throw failure(.unsupportedFormat, "cannot open the \(String(cString: decoder.pointee.name)) decoder: "
                + FFmpeg.errorText(rc), rc)
        }
        let sampleRate = Int(context.pointee.sample_rate)
        let channels = Int(context.pointee.ch_layout.nb_channels)
        guard sampleRate > 0, channels > 0 else {
            throw failure(.unsupportedFormat, "invalid audio stream (\(channels) channels, \(sampleRate) Hz)")
        }

        // Container and codec, for the description and for how the priming is signalled.
        let demuxerNames = String(cString: format.pointee.iformat.pointee.name).split(separator: ",").map(String.init)
        let isADTS = demuxerNames == ["aac"]
        let isMPEG4 = demuxerNames.contains("mov") || demuxerNames.contains("mp4")
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        let container = isADTS ? "ADTS" : (demuxerNames.contains(ext) ? ext : demuxerNames.first ?? "?").uppercased()
        let codecName = avcodec_descriptor_get(stream.pointee.codecpar.pointee.codec_id).map {
            String(cString: $0.pointee.name).uppercased()
        } ?? String(cString: decoder.pointee.name).uppercased()
        let primingFrames = isADTS ? AACFileWriter.frameSize : 0

        // Length: exact for MPEG-4 (the edit list's duration, priming and padding excluded); otherwise the
        // container's duration unless libavformat only guessed it from the bit rate.
        let rate = AVRational(num: 1, den: Int32(sampleRate))
        var frameCount: Int64? = nil
        let noValue = audiograph_av_nopts_value()
        if stream.pointee.duration != noValue, stream.pointee.duration > 0 {
            frameCount = av_rescale_q(stream.pointee.duration, stream.pointee.time_base, rate)
        } else if format.pointee.duration != noValue, format.pointee.duration > 0 {
            frameCount = av_rescale_q(format.pointee.duration, AVRational(num: 1, den: 1_000_000), rate)
        }
        if format.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE || isADTS { frameCount = nil }
        frameCount = frameCount.map { max($0 - Int64(primingFrames), 0) }

        succeeded = true
        return Opened(format: format, codec: context, frame: frame, packet: packet, streamIndex: streamIndex,
                      sampleRate: sampleRate, channels: channels,
                      formatName: "\(container) (\(codecName)) via FFmpeg", primingFrames: primingFrames,
                      frameCount: frameCount, exactLength: isMPEG4 && frameCount != nil)
    }

    /// Reads up to `maxFrames` interleaved frames into `buffer` (which must hold at least `maxFrames * channels`
    /// floats). Returns the number of frames read; 0 at end of stream.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, maxFrames: Int) throws(FFmpegError) -> Int {
        precondition(maxFrames >= 0, "maxFrames must not be negative")
        precondition(buffer.count >= maxFrames * channels,
                     "buffer holds \(buffer.count) floats, \(maxFrames) frames need \(maxFrames * channels)")
        guard formatContext != nil else {
            throw FFmpegError(kind: .io, path: path, message: "cannot read \(path): the file is closed")
        }
        guard maxFrames > 0, let destination = buffer.baseAddress else { return 0 }
        var written = 0
        while written < maxFrames {
            if pendingStart < pendingEnd {
                let count = min(maxFrames - written, pendingEnd - pendingStart)
                converter.output.withUnsafeBufferPointer { source in
                    (destination + written * channels).update(from: source.baseAddress! + pendingStart * channels,
                                                              count: count * channels)
                }
                pendingStart += count
                written += count
            } else if try !decodeMore() {
                break
            }
        }
        return written
    }

    /// Closes the file and frees the decoder. Safe to call more than once; also done by deinit.
    public func close() {
        converter.close()
        avcodec_free_context(&codecContext)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avformat_close_input(&formatContext)
    }

    // MARK: Decoding

    /// Decodes until converted frames are pending (true) or the stream ends (false).
    private func decodeMore() throws(FFmpegError) -> Bool {
        guard let codecContext, let frame else { return false }
        while !finished {
            let rc = avcodec_receive_frame(codecContext, frame)
            if rc >= 0 {
                defer { av_frame_unref(frame) }
                if try convert(frame) { return true }
            } else if rc == FFmpeg.endOfFile {
                // A resampler that changes the rate holds a few frames back.
                if converter.isPrepared, try convert(nil) { return true }
                finished = true
            } else if rc == FFmpeg.again, !demuxerFinished {
                try sendNextPacket()
            } else {
                throw FFmpegError(kind: .corrupt, path: path, message: "cannot decode \(path): \(FFmpeg.errorText(rc))",
                                  code: rc)
            }
        }
        return false
    }

    /// Sends the next packet of our stream to the decoder, or the flush (nil) at the end of the file.
    private func sendNextPacket() throws(FFmpegError) {
        guard let formatContext, let codecContext, let packet else { return }
        while true {
            var rc = av_read_frame(formatContext, packet)
            if rc == FFmpeg.endOfFile {
                demuxerFinished = true
                _ = avcodec_send_packet(codecContext, nil)
                return
            }
            guard rc >= 0 else {
                throw FFmpegError(kind: FFmpeg.readFailureKind(rc), path: path, message: "cannot read \(path): \(FFmpeg.errorText(rc))",
                                  code: rc)
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            rc = avcodec_send_packet(codecContext, packet)
            // A corrupt packet is skipped, as ffmpeg does; the stream goes on.
            if rc == audiograph_averror_invaliddata() { continue }
            guard rc >= 0 || rc == FFmpeg.again else {
                throw FFmpegError(kind: .corrupt, path: path, message: "cannot decode \(path): \(FFmpeg.errorText(rc))",
                                  code: rc)
            }
            return
        }
    }

    /// Converts a decoded frame (nil: what the resampler holds back) for `read`, dropping priming and
    /// stopping at the container's end. True if frames are ready.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) -> Bool {
        let converted = try converter.convert(frame)
        var start = 0
        var end = Int(converted)
        if framesToSkip > 0 {
            start = min(framesToSkip, end)
            framesToSkip -= start
        }
        if let remaining = framesRemaining {
            end = start + Int(min(Int64(end - start), remaining))
            framesRemaining = remaining - Int64(end - start)
            if framesRemaining == 0 { finished = true }
        }
        pendingStart = start
        pendingEnd = end
        return end > start
    }
}
