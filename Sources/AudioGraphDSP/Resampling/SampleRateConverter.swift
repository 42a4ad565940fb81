/// Resampling quality, mapped by each engine to one of its own settings.
///
/// | quality   | libsamplerate            | soxr        |
/// |-----------|--------------------------|-------------|
/// | `best`    | `SRC_SINC_BEST_QUALITY`  | `SOXR_VHQ`  |
/// | `high`    | `SRC_SINC_MEDIUM_QUALITY`| `SOXR_HQ`   |
/// | `medium`  | `SRC_SINC_FASTEST`       | `SOXR_MQ`   |
/// | `fastest` | `SRC_LINEAR`             | `SOXR_QQ`   |
public enum ResamplerQuality: String, Sendable, CaseIterable {
    /// libsamplerate `SRC_SINC_BEST_QUALITY` (~145 dB SNR, 97% bandwidth);
    /// soxr `SOXR_VHQ` (28-bit precision, very high quality).
    case best
    /// libsamplerate `SRC_SINC_MEDIUM_QUALITY` (~121 dB SNR, 90% bandwidth);
    /// soxr `SOXR_HQ` (20-bit precision).
    case high
    /// libsamplerate `SRC_SINC_FASTEST` (~97 dB SNR, 80% bandwidth);
    /// soxr `SOXR_MQ` (16-bit precision, medium rolloff).
    case medium
    /// libsamplerate `SRC_LINEAR` (linear interpolation, no anti-alias filter);
    /// soxr `SOXR_QQ` (quick cubic interpolation).
    case fastest
}

/// The C library that does the resampling.
public enum ResamplerEngine: String, Sendable, CaseIterable {
    case libsamplerate, soxr
}

public struct ResamplerError: Error, CustomStringConvertible, Sendable {
    public let message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// A streaming sample-rate converter for interleaved 32-bit float frames.
///
/// Feed input with `process` as it arrives, then call `flush` once at end of input. After
/// `flush` the converter is reset and can take a new, unrelated stream.
///
/// Confinement: implementations own C state that must not be used from two threads at once.
/// Use each instance from one thread (or one task / actor) at a time; it is not `Sendable`.
public protocol SampleRateConverter: AnyObject {
    var inputRate: Int { get }
    var outputRate: Int { get }
    var channels: Int { get }
    /// Appends converted interleaved frames to output. Never allocates in steady state once output has capacity.
    /// `input.count` must be a multiple of `channels`.
    func process(_ input: UnsafeBufferPointer<Float>, into output: inout [Float]) throws(ResamplerError)
    /// End of input: appends every remaining frame.
    func flush(into output: inout [Float]) throws(ResamplerError)
}

/// Makes a converter from `inputRate` to `outputRate` Hz for `channels` interleaved channels.
/// Equal rates are allowed: the samples then pass through unchanged.
public func makeSampleRateConverter(
    engine: ResamplerEngine, inputRate: Int, outputRate: Int, channels: Int, quality: ResamplerQuality
) throws(ResamplerError) -> any SampleRateConverter {
    guard inputRate > 0, outputRate > 0 else {
        throw ResamplerError(message: "invalid sample rates \(inputRate) Hz -> \(outputRate) Hz")
    }
    guard channels > 0, channels <= 1024 else {
        throw ResamplerError(message: "invalid channel count \(channels)")
    }
    switch engine {
    case .libsamplerate:
        return try LibSampleRateConverter(inputRate: inputRate, outputRate: outputRate,
                                          channels: channels, quality: quality)
    case .soxr:
        return try SoxrConverter(inputRate: inputRate, outputRate: outputRate,
                                 channels: channels, quality: quality)
    }
}

/// A growable scratch buffer of floats for C output, reused across calls.
struct ResamplerScratch: ~Copyable {
    private(set) var pointer: UnsafeMutablePointer<Float>
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        self.pointer = .allocate(capacity: self.capacity)
    }

    /// Makes room for at least `count` floats; allocates only when growing.
    mutating func ensure(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        capacity = max(count, capacity * 2)
        pointer = .allocate(capacity: capacity)
    }

    deinit { pointer.deallocate() }
}
