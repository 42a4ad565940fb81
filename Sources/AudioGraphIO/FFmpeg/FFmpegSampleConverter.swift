import CFFmpeg

/// Converts decoded FFmpeg frames, whatever their sample format, rate and channel layout, to interleaved 32-bit
/// float at a fixed `sampleRate` and `channels` through swresample. Shared by `FFmpegAudioReader` (a file) and
/// the `rtp-source` receiver (a network stream).
///
/// The swresample context is set up for the first frame and again only when the decoder's output changes
/// mid-stream; a layout with the output's channel count is kept as is, so nothing is remixed.
///
/// Confinement: as the decoder it follows, use an instance from one thread at a time. Not `Sendable`.
final class FFmpegSampleConverter {
    let sampleRate: Int
    let channels: Int
    /// Named in error messages: the file or SDP the audio comes from.
    let path: String
    /// Interleaved frames of the last `convert`: the first `convert(_:)` result's count of frames are valid.
    private(set) var output: [Float] = []

    private var resampler: OpaquePointer?
    /// The input the resampler was set up for.
    private var resamplerInput: (format: Int32, rate: Int32, layout: AVChannelLayout)?

    init(sampleRate: Int, channels: Int, path: String) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.path = path
    }

    deinit { close() }

    /// Whether a frame was converted yet (only then does a flush have anything to give).
    var isPrepared: Bool { resampler != nil }

    /// Converts `frame` (nil: what the resampler holds back, at the end) into `output`; returns the frames
    /// written there.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>?) throws(FFmpegError) -> Int {
        if let frame { try prepare(for: frame) }
        guard let resampler else { return 0 }
        let inputFrames = frame.map { Int32($0.pointee.nb_samples) } ?? 0
        let capacity = Int(swr_get_out_samples(resampler, inputFrames))
        guard capacity > 0 else { return 0 }
        if output.count < capacity * channels {
            output = [Float](repeating: 0, count: capacity * channels)
        }
        let converted = output.withUnsafeMutableBytes { bytes -> Int32 in
            var destination: UnsafeMutablePointer<UInt8>? = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let input = frame.map {
                UnsafeMutableRawPointer($0.pointee.extended_data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            }
            return swr_convert(resampler, &destination, Int32(capacity), input, inputFrames)
        }
        guard converted >= 0 else {
            throw FFmpegError(kind: .io, path: path,
                              message: "cannot convert the audio of \(path): \(FFmpeg.errorText(converted))",
                              code: converted)
        }
        return Int(converted)
    }

    /// Frees the swresample context. Idempotent; calls into FFmpeg only when there is something to free (so a
    /// converter made before FFmpeg was found missing goes away quietly).
    func close() {
        guard resampler != nil || resamplerInput != nil else { return }
        swr_free(&resampler)
        if var layout = resamplerInput?.layout { av_channel_layout_uninit(&layout) }
        resamplerInput = nil
    }

    /// Sets up swresample for the frame's sample format, rate and layout (once, and again only if the decoder's
    /// output changes).
    private func prepare(for frame: UnsafeMutablePointer<AVFrame>) throws(FFmpegError) {
        if let current = resamplerInput, resampler != nil, current.format == frame.pointee.format,
           current.rate == frame.pointee.sample_rate {
            var layout = current.layout
            if av_channel_layout_compare(&layout, &frame.pointee.ch_layout) == 0 { return }
        }
        close()

        var inputLayout = AVChannelLayout()
        if frame.pointee.ch_layout.nb_channels > 0 {
            _ = av_channel_layout_copy(&inputLayout, &frame.pointee.ch_layout)
        } else {
            av_channel_layout_default(&inputLayout, Int32(channels))
        }
        if inputLayout.order == AV_CHANNEL_ORDER_UNSPEC {
            let count = inputLayout.nb_channels
            av_channel_layout_uninit(&inputLayout)
            av_channel_layout_default(&inputLayout, count)
        }
        var outputLayout = AVChannelLayout()
        if Int(inputLayout.nb_channels) == channels {
            _ = av_channel_layout_copy(&outputLayout, &inputLayout)
        } else {
            av_channel_layout_default(&outputLayout, Int32(channels))
        }
        defer { av_channel_layout_uninit(&outputLayout) }
        let inputRate = frame.pointee.sample_rate > 0 ? frame.pointee.sample_rate : Int32(sampleRate)
        var rc = swr_alloc_set_opts2(&resampler, &outputLayout, AV_SAMPLE_FMT_FLT, Int32(sampleRate),
                                     &inputLayout, AVSampleFormat(rawValue: frame.pointee.format), inputRate, 0, nil)
        if rc >= 0 { rc = swr_init(resampler) }
        guard rc >= 0 else {
            swr_free(&resampler)
            av_channel_layout_uninit(&inputLayout)
            resamplerInput = nil
            throw FFmpegError(kind: .io, path: path,
                              message: "cannot convert the audio of \(path): \(FFmpeg.errorText(rc))", code: rc)
        }
        av_channel_layout_uninit(&inputLayout)
        // Kept as the frame had it, to compare with the next frames.
        var key = AVChannelLayout()
        _ = av_channel_layout_copy(&key, &frame.pointee.ch_layout)
        resamplerInput = (frame.pointee.format, frame.pointee.sample_rate, key)
    }
}
