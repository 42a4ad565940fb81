import CSampleRate

/// Streaming conversion with libsamplerate (`src_new` / `src_process`).
///
/// Quality mapping:
/// - `best`    -> `SRC_SINC_BEST_QUALITY`   (band-limited sinc, ~145 dB SNR, 97% bandwidth; slowest)
/// - `high`    -> `SRC_SINC_MEDIUM_QUALITY` (band-limited sinc, ~121 dB SNR, 90% bandwidth)
/// - `medium`  -> `SRC_SINC_FASTEST`        (band-limited sinc, ~97 dB SNR, 80% bandwidth)
/// - `fastest` -> `SRC_LINEAR`              (linear interpolation; aliases, no filter)
///
/// libsamplerate accepts ratios between 1/256 and 256. Equal input and output rates pass the
/// samples through unchanged (`SRC_LINEAR` would otherwise delay them by one frame and the sinc
/// converters would band-limit them).
///
/// Not `Sendable`: one thread at a time.
public final class LibSampleRateConverter: SampleRateConverter {
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    public let quality: ResamplerQuality

    private let state: OpaquePointer
    private let ratio: Double
    private var scratch: ResamplerScratch
    /// Output frames per `src_process` call; large inputs are handled in several calls.
    private static let maxChunkFrames = 16_384
    /// Two frames: [previous input frame, current single input frame]. Works around a
    /// libsamplerate 0.2.2 `SRC_LINEAR` bug: given a one-frame input, `linear_vari_process`
    /// reads `data_in[-channels]` (the frame *before* the buffer). Passing `linearStaging + channels`
    /// makes that read land on the real previous frame, so the result is correct and identical
    /// to feeding the same samples in one buffer.
    private let linearStaging: UnsafeMutablePointer<Float>
    private var linearHasPrevious = false

    public init(inputRate: Int, outputRate: Int, channels: Int, quality: ResamplerQuality) throws(ResamplerError) {
        guard inputRate > 0, outputRate > 0, channels > 0 else {
            throw ResamplerError(message: "libsamplerate: invalid rates \(inputRate) -> \(outputRate) or channels \(channels)")
        }
        let ratio = Double(outputRate) / Double(inputRate)
        guard ratio >= 1.0 / 256.0, ratio <= 256.0 else {
            throw ResamplerError(message: "libsamplerate: ratio \(outputRate)/\(inputRate) is outside 1/256...256")
        }
        let converterType: Int
        switch quality {
        case .best: converterType = SRC_SINC_BEST_QUALITY
        case .high: converterType = SRC_SINC_MEDIUM_QUALITY
        case .medium: converterType = SRC_SINC_FASTEST
        case .fastest: converterType = SRC_LINEAR
        }
        var error: Int32 = 0
        guard let state = src_new(Int32(converterType), Int32(channels), &error) else {
            throw ResamplerError(message: "libsamplerate: src_new failed: \(LibSampleRateConverter.text(error))")
        }
        self.state = state
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        self.quality = quality
        self.ratio = ratio
        self.scratch = ResamplerScratch(capacity: 1024 * channels)
        self.linearStaging = .allocate(capacity: 2 * channels)
        self.linearStaging.initialize(repeating: 0, count: 2 * channels)
    }

    deinit {
        src_delete(state)
        linearStaging.deallocate()
    }

    public func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) throws(ResamplerError) {
        precondition(input.count % channels == 0,
                     "\(input.count) samples is not a whole number of \(channels)-channel frames")
        var remaining = input.count / channels
        guard remaining > 0, var inPointer = input.baseAddress else { return }
        if inputRate == outputRate {
            output.append(contentsOf: input)
            return
        }
        // Enough room for all output of this call (plus slack), up to a cap.
        let estimate = Int((Double(remaining) * ratio).rounded(.up)) + 16
        scratch.ensure(min(estimate, Self.maxChunkFrames) * channels)
        let capacityFrames = scratch.capacity / channels

        let linear = quality == .fastest
        if linear && remaining == 1 {
            // See `linearStaging`. Before the first frame of a stream libsamplerate uses the
            // frame itself as "previous", so mirror that.
            let current = linearStaging + channels
            current.update(from: inPointer, count: channels)
            if !linearHasPrevious { linearStaging.update(from: current, count: channels) }
            inPointer = UnsafePointer(current)
        }

        // libsamplerate may report all input as used while holding back output that did not
        // fit: keep calling (with no new input) until a call leaves room in the output.
        while true {
            var data = SRC_DATA()
            data.data_in = inPointer
            data.input_frames = remaining
            data.data_out = scratch.pointer
            data.output_frames = capacityFrames
            data.end_of_input = 0
            data.src_ratio = ratio
            let rc = src_process(state, &data)
            if rc != 0 {
                throw ResamplerError(message: "libsamplerate: src_process failed: \(Self.text(rc))")
            }
            append(frames: data.output_frames_gen, to: &output)
            let used = data.input_frames_used
            inPointer += used * channels
            remaining -= used
            if remaining == 0 && data.output_frames_gen < capacityFrames { break }
            if used == 0 && data.output_frames_gen == 0 {
                throw ResamplerError(message: "libsamplerate: src_process made no progress")
            }
        }
        if linear {
            // All input is consumed: remember its last frame as the next call's "previous".
            linearStaging.update(from: inPointer - channels, count: channels)
            linearHasPrevious = true
        }
    }

    public func flush(into output: inout [Float]) throws(ResamplerError) {
        if inputRate == outputRate { return }
        scratch.ensure(1024 * channels)
        let capacityFrames = scratch.capacity / channels
        // data_in must NOT be NULL here: with a NULL data_in libsamplerate's sinc converters
        // skip the end-of-input padding and silently drop the last half filter length.
        var dummy: Float = 0
        while true {
            var data = SRC_DATA()
            data.input_frames = 0
            data.data_out = scratch.pointer
            data.output_frames = capacityFrames
            data.end_of_input = 1
            data.src_ratio = ratio
            let rc = withUnsafePointer(to: &dummy) { pointer in
                data.data_in = pointer
                return src_process(state, &data)
            }
            if rc != 0 {
                throw ResamplerError(message: "libsamplerate: src_process (flush) failed: \(Self.text(rc))")
            }
            if data.output_frames_gen == 0 { break }
            append(frames: data.output_frames_gen, to: &output)
        }
        src_reset(state)
        linearHasPrevious = false
    }

    private func append(frames: Int, to output: inout [Float]) {
        guard frames > 0 else { return }
        output.append(contentsOf: UnsafeBufferPointer(start: scratch.pointer, count: frames * channels))
    }

    private static func text(_ code: Int32) -> String {
        guard let cText = src_strerror(code) else { return "error \(code)" }
        return String(cString: cText)
    }
}
