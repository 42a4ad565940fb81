import CSoxr

/// Streaming conversion with libsoxr (`soxr_create` / `soxr_process`), float32 interleaved
/// in and out (`SOXR_FLOAT32_I`), single-threaded.
///
/// Quality mapping (`soxr_quality_spec(recipe, 0)`):
/// - `best`    -> `SOXR_VHQ` (28-bit precision, very high quality)
/// - `high`    -> `SOXR_HQ`  (20-bit precision; soxr's default)
/// - `medium`  -> `SOXR_MQ`  (16-bit precision, medium rolloff)
/// - `fastest` -> `SOXR_LQ`  (16-bit, large roll-off; SOXR_QQ has no anti-alias filter at all and let a 12 kHz
///   tone alias to 4 kHz at -0.9 dB when downsampling to 16 kHz, so it is not offered)
///
/// Equal input and output rates pass the samples through unchanged (the library is not called).
///
/// Not `Sendable`: one thread at a time.
public final class SoxrConverter: SampleRateConverter {
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    public let quality: ResamplerQuality

    private let soxr: soxr_t
    private let ratio: Double
    private var scratch: ResamplerScratch
    private static let maxChunkFrames = 16_384

    public init(inputRate: Int, outputRate: Int, channels: Int, quality: ResamplerQuality) throws(ResamplerError) {
        guard inputRate > 0, outputRate > 0, channels > 0 else {
            throw ResamplerError(message: "soxr: invalid rates \(inputRate) -> \(outputRate) or channels \(channels)")
        }
        let recipe: Int32
        switch quality {
        case .best: recipe = SOXR_VHQ
        case .high: recipe = SOXR_HQ
        case .medium: recipe = SOXR_MQ
        case .fastest: recipe = SOXR_LQ
        }
        var ioSpec = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var qualitySpec = soxr_quality_spec(UInt(recipe), 0)
        var runtimeSpec = soxr_runtime_spec(1)  // one thread: deterministic, no thread pool
        var error: soxr_error_t? = nil
        let created = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels),
                                  &error, &ioSpec, &qualitySpec, &runtimeSpec)
        if let error {
            if let created { soxr_delete(created) }
            throw ResamplerError(message: "soxr: soxr_create failed: \(String(cString: error))")
        }
        guard let created else {
            throw ResamplerError(message: "soxr: soxr_create failed")
        }
        self.soxr = created
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        self.quality = quality
        self.ratio = Double(outputRate) / Double(inputRate)
        self.scratch = ResamplerScratch(capacity: 1024 * channels)
    }

    deinit {
        soxr_delete(soxr)
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
        let estimate = Int((Double(remaining) * ratio).rounded(.up)) + 16
        scratch.ensure(min(estimate, Self.maxChunkFrames) * channels)
        let capacityFrames = scratch.capacity / channels

        // Keep calling while input is left, or while the output buffer came back full
        // (soxr may have more ready).
        while true {
            var used = 0
            var made = 0
            let error = soxr_process(soxr, UnsafeRawPointer(inPointer), remaining, &used,
                                     UnsafeMutableRawPointer(scratch.pointer), capacityFrames, &made)
            if let error {
                throw ResamplerError(message: "soxr: soxr_process failed: \(String(cString: error))")
            }
            append(frames: made, to: &output)
            inPointer += used * channels
            remaining -= used
            if remaining == 0 && made < capacityFrames { break }
            if used == 0 && made == 0 {
                throw ResamplerError(message: "soxr: soxr_process made no progress")
            }
        }
    }

    public func flush(into output: inout [Float]) throws(ResamplerError) {
        if inputRate == outputRate { return }
        scratch.ensure(1024 * channels)
        let capacityFrames = scratch.capacity / channels
        while true {
            var made = 0
            // A nil input means end of input: soxr drains its filter.
            let error = soxr_process(soxr, nil, 0, nil,
                                     UnsafeMutableRawPointer(scratch.pointer), capacityFrames, &made)
            if let error {
                throw ResamplerError(message: "soxr: soxr_process (flush) failed: \(String(cString: error))")
            }
            if made == 0 { break }
            append(frames: made, to: &output)
        }
        soxr_clear(soxr)
    }

    private func append(frames: Int, to output: inout [Float]) {
        guard frames > 0 else { return }
        output.append(contentsOf: UnsafeBufferPointer(start: scratch.pointer, count: frames * channels))
    }
}
