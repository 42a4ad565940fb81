import CFFmpeg
import Foundation

/// Containers `AACFileWriter` writes.
public enum AACContainer: String, Sendable, CaseIterable {
    /// MPEG-4 (`.m4a` through the "ipod" muxer, `.mp4` through "mp4"): gapless, the encoder's 1024-sample
    /// priming and the last frame's padding are hidden by an edit list, so players and ffprobe see exactly the
    /// samples written.
    case mp4
    /// Raw ADTS stream (`.aac`): no index and no priming information; a decoder must drop the first 1024
    /// samples itself (`FFmpegAudioReader` does).
    case adts

    /// The container for a file extension (`m4a`, `.MP4`, `aac`), or nil.
    public init?(pathExtension: String) {
        var ext = pathExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "m4a", "mp4": self = .mp4
        case "aac": self = .adts
        default: return nil
        }
    }

    /// The libavformat muxer for a file: "ipod" for `.m4a` (brand M4A, what iTunes and Apple devices expect),
    /// "mp4" for `.mp4`, "adts" for `.aac`.
    static func muxerName(for container: AACContainer, path: String) -> String {
        switch container {
        case .adts: return "adts"
        case .mp4: return URL(fileURLWithPath: path).pathExtension.lowercased() == "mp4" ? "mp4" : "ipod"
        }
    }
}

/// The channel layout for a channel count. audiograph's formats carry no layout, so these are the usual
/// meanings of the counts, except that 3 channels are 3.0 (FFmpeg's default is 2.1, whose third channel is a
/// low-pass LFE): mono, stereo, 3.0, 4.0, 5.0, 5.1, 6.1, 7.1 — the 4th channel of 6, 7 and 8 is the LFE.
func channelLayoutName(_ channels: Int) -> String {
    ["mono", "stereo", "3.0", "4.0", "5.0", "5.1", "6.1", "7.1"][min(max(channels, 1), 8) - 1]
}

/// Encodes interleaved float audio to AAC-LC with FFmpeg's native `aac` encoder, into an MPEG-4 (`.m4a`,
/// `.mp4`) or ADTS (`.aac`) file.
///
/// Feed any number of frames per `write`; an internal 1024-frame FIFO (the encoder's `frame_size`, held in
/// the planar frame the encoder reads) turns them into encoder frames, so nothing is allocated per call in
/// steady state. Timestamps count samples. `close` encodes what is buffered (a short last frame), drains the
/// encoder and writes the trailer (the MPEG-4 index) — without it an `.m4a` is not playable.
///
/// Confinement: FFmpeg contexts are not safe to use from two threads at once. Use each instance from one thread
/// at a time; handing it to another thread between calls is fine. Deliberately not `Sendable`.
public final class AACFileWriter {
    /// The sample rates AAC (and FFmpeg's native encoder) can code.
    public static let supportedSampleRates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050,
                                              16_000, 12_000, 11_025, 8_000, 7_350]
    /// Channel counts the writer takes (layouts mono, stereo, 3.0, 4.0, 5.0, 5.1, 6.1, 7.1).
    public static let supportedChannels = 1...8
    /// Samples per AAC frame (per channel).
    public static let frameSize = 1024

    public let path: String
    public let sampleRate: Int
    public let channels: Int
    public let bitrate: Int
    public let container: AACContainer
    /// Frames passed to `write` so far (what the file will hold once closed).
    public private(set) var framesWritten: Int64 = 0

    private let formatContext: UnsafeMutablePointer<AVFormatContext>
    private let codecContext: UnsafeMutablePointer<AVCodecContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frameSize: Int
    /// Frames waiting in `frame` for the encoder (0 ..< frameSize).
    private var fill = 0
    /// Frames sent to the encoder (the next frame's pts, in 1/sampleRate).
    private var framesEncoded: Int64 = 0
    /// The first write error: later calls fail with it at once.
    private var failure: FFmpegError?
    private var closed = false

    /// Creates the file and writes its header.
    /// - Parameters:
    ///   - container: the container; nil picks it from the extension (`.m4a`/`.mp4` → MPEG-4, `.aac` → ADTS).
    ///   - bitrate: target bits per second for all channels together.
    public init(path: String, sampleRate: Int, channels: Int, bitrate: Int = 64_000,
                container: AACContainer? = nil) throws(FFmpegError) {
        try FFmpeg.requireLibraries("create", path, kind: .cannotCreate)
        FFmpeg.configureLogging()
        func unsupported(_ why: String) -> FFmpegError {
            FFmpegError(kind: .unsupportedFormat, path: path, message: "cannot create \(path): \(why)")
        }
        guard let container = container ?? AACContainer(pathExtension: URL(fileURLWithPath: path).pathExtension) else {
            throw unsupported("cannot tell the container from the extension; use .m4a, .mp4 or .aac")
        }
        guard Self.supportedSampleRates.contains(sampleRate) else {
            throw unsupported("AAC cannot code \(sampleRate) Hz; use one of "
                + Self.supportedSampleRates.map(String.init).joined(separator: ", "))
        }
        guard Self.supportedChannels.contains(channels) else {
            throw unsupported("the AAC writer takes 1 to 8 channels, not \(channels)")
        }
        guard bitrate > 0 else { throw unsupported("invalid bitrate \(bitrate)") }
        let handles = try Self.open(path: path, sampleRate: sampleRate, channels: channels, bitrate: bitrate,
                                    container: container)
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        self.bitrate = bitrate
        self.container = container
        formatContext = handles.format
        codecContext = handles.codec
        stream = handles.stream
        frame = handles.frame
        packet = handles.packet
        frameSize = handles.frameSize
    }

    private struct Handles {
        var format: UnsafeMutablePointer<AVFormatContext>
        var codec: UnsafeMutablePointer<AVCodecContext>
        var stream: UnsafeMutablePointer<AVStream>
        var frame: UnsafeMutablePointer<AVFrame>
        var packet: UnsafeMutablePointer<AVPacket>
        var frameSize: Int
    }

    /// Sets up muxer, encoder, frame and packet and writes the header; frees all of it if a step fails.
    private static func open(path: String, sampleRate: Int, channels: Int, bitrate: Int,
                             container: AACContainer) throws(FFmpegError) -> Handles {
        func unsupported(_ why: String, _ code: Int32? = nil) -> FFmpegError {
            FFmpegError(kind: .unsupportedFormat, path: path, message: "cannot create \(path): \(why)", code: code)
        }
        guard let codec = avcodec_find_encoder_by_name("aac") else {
            throw unsupported("this FFmpeg has no native aac encoder")
        }
        var formatContext: UnsafeMutablePointer<AVFormatContext>?
        var codecContext: UnsafeMutablePointer<AVCodecContext>?
        var frame: UnsafeMutablePointer<AVFrame>?
        var packet: UnsafeMutablePointer<AVPacket>?
        var succeeded = false
        defer {
            if !succeeded {
                if let formatContext {
                    if formatContext.pointee.pb != nil { avio_closep(&formatContext.pointee.pb) }
                    avformat_free_context(formatContext)
                }
                avcodec_free_context(&codecContext)
                av_frame_free(&frame)
                av_packet_free(&packet)
            }
        }

        let muxer = AACContainer.muxerName(for: container, path: path)
        var rc = avformat_alloc_output_context2(&formatContext, nil, muxer, path)
        guard rc >= 0, let format = formatContext else {
            throw unsupported("no \(muxer) muxer: \(FFmpeg.errorText(rc))", rc)
        }
        codecContext = avcodec_alloc_context3(codec)
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let stream = avformat_new_stream(format, nil), let context = codecContext, let frame, let packet else {
            throw unsupported("out of memory")
        }

        context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        context.pointee.sample_rate = Int32(sampleRate)
        if av_channel_layout_from_string(&context.pointee.ch_layout, channelLayoutName(channels)) < 0 {
            av_channel_layout_default(&context.pointee.ch_layout, Int32(channels))
        }
        context.pointee.bit_rate = Int64(bitrate)
        context.pointee.profile = FF_PROFILE_AAC_LOW
        context.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        if format.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        rc = avcodec_open2(context, codec, nil)
        guard rc >= 0 else {
            throw unsupported("the aac encoder refused \(sampleRate) Hz, \(channels) channels, \(bitrate) b/s: "
                + FFmpeg.errorText(rc), rc)
        }
        let frameSize = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : Self.frameSize
        rc = avcodec_parameters_from_context(stream.pointee.codecpar, context)
        guard rc >= 0 else { throw unsupported(FFmpeg.errorText(rc), rc) }
        stream.pointee.time_base = context.pointee.time_base

        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.sample_rate = Int32(sampleRate)
        rc = av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        if rc >= 0 { rc = av_frame_get_buffer(frame, 0) }
        guard rc >= 0 else { throw unsupported("cannot allocate a frame: \(FFmpeg.errorText(rc))", rc) }

        if format.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            rc = avio_open(&format.pointee.pb, path, AVIO_FLAG_WRITE)
            guard rc >= 0 else {
                throw FFmpegError(kind: .cannotCreate, path: path,
                                  message: "cannot create \(path): \(FFmpeg.errorText(rc))", code: rc)
            }
        }
        // The MPEG-4 movie timescale defaults to 1000: the edit list's duration (in that timescale) would be
        // rounded down to a millisecond, losing up to 47 samples at 48 kHz. At the sample rate it is exact.
        var options: OpaquePointer? = nil
        if container == .mp4 { av_dict_set(&options, "movie_timescale", String(sampleRate), 0) }
        rc = avformat_write_header(format, &options)
        av_dict_free(&options)
        guard rc >= 0 else {
            throw FFmpegError(kind: .cannotCreate, path: path,
                              message: "cannot write the header of \(path): \(FFmpeg.errorText(rc))", code: rc)
        }
        succeeded = true
        return Handles(format: format, codec: context, stream: stream, frame: frame, packet: packet,
                       frameSize: frameSize)
    }

    deinit {
        try? close()
    }

    /// Encodes interleaved frames; `samples.count` must be a multiple of `channels`.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(FFmpegError) {
        precondition(samples.count % channels == 0,
                     "\(samples.count) samples is not a whole number of \(channels)-channel frames")
        if let failure { throw failure }
        guard !closed else {
            throw FFmpegError(kind: .io, path: path, message: "cannot write \(path): the file is closed")
        }
        guard let source = samples.baseAddress else { return }
        let total = samples.count / channels
        let channels = self.channels
        var offset = 0
        while offset < total {
            if fill == 0 {
                // The encoder may still hold a reference to the frame's buffer; in steady state it has let go
                // (every packet was drained), so this allocates nothing.
                let rc = av_frame_make_writable(frame)
                guard rc >= 0 else { throw fail("cannot write \(path): \(FFmpeg.errorText(rc))", rc) }
            }
            let count = min(frameSize - fill, total - offset)
            for channel in 0..<channels {
                let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!)
                    .assumingMemoryBound(to: Float.self) + fill
                var input = source + offset * channels + channel
                for index in 0..<count {
                    plane[index] = input.pointee
                    input += channels
                }
            }
            fill += count
            offset += count
            framesWritten += Int64(count)
            if fill == frameSize { try encodeBufferedFrame() }
        }
    }

    /// Encodes what is buffered, drains the encoder and writes the trailer (the MPEG-4 index), then closes the
    /// file and frees everything. Safe to call more than once (later calls do nothing); also done, without
    /// reporting errors, by deinit. After a failed `write` it still tries to leave a playable file.
    public func close() throws(FFmpegError) {
        guard !closed else { return }
        closed = true
        defer { release() }
        var firstError: FFmpegError? = nil
        func keep(_ rc: Int32) {
            if rc < 0, firstError == nil, failure == nil {
                firstError = FFmpegError(kind: .io, path: path,
                                         message: "cannot finish \(path): \(FFmpeg.errorText(rc))", code: rc)
            }
        }
        if failure == nil {
            do {
                if fill > 0 { try encodeBufferedFrame() }
                try send(nil)
            } catch {
                firstError = error
            }
        }
        keep(av_write_trailer(formatContext))
        if formatContext.pointee.pb != nil { keep(avio_closep(&formatContext.pointee.pb)) }
        if let firstError { throw firstError }
    }

    // MARK: Encoding

    private func encodeBufferedFrame() throws(FFmpegError) {
        frame.pointee.nb_samples = Int32(fill)
        frame.pointee.pts = framesEncoded
        framesEncoded += Int64(fill)
        fill = 0
        try send(frame)
    }

    /// Sends a frame (nil: flush) and writes every packet the encoder has ready.
    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) {
        var rc = avcodec_send_frame(codecContext, frame)
        guard rc >= 0 else { throw fail("cannot encode \(path): \(FFmpeg.errorText(rc))", rc) }
        while true {
            rc = avcodec_receive_packet(codecContext, packet)
            if rc == FFmpeg.again || rc == FFmpeg.endOfFile { return }
            guard rc >= 0 else { throw fail("cannot encode \(path): \(FFmpeg.errorText(rc))", rc) }
            packet.pointee.stream_index = stream.pointee.index
            av_packet_rescale_ts(packet, codecContext.pointee.time_base, stream.pointee.time_base)
            // Takes the packet's reference (and leaves `packet` blank for the next one).
            rc = av_interleaved_write_frame(formatContext, packet)
            guard rc >= 0 else { throw fail("cannot write \(path): \(FFmpeg.errorText(rc))", rc) }
        }
    }

    private func fail(_ message: String, _ code: Int32) -> FFmpegError {
        let error = FFmpegError(kind: .io, path: path, message: message, code: code)
        failure = error
        return error
    }

    /// Frees every FFmpeg object (closing the file if still open, without a trailer). Called once, by `close`.
    private func release() {
        if formatContext.pointee.pb != nil { avio_closep(&formatContext.pointee.pb) }
        avformat_free_context(formatContext)
        var codecContext: UnsafeMutablePointer<AVCodecContext>? = codecContext
        avcodec_free_context(&codecContext)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
    }
}
