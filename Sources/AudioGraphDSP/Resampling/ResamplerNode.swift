import AudioGraphCore

/// `resampler`: converts audio to another channel count and sample rate. Channels are mixed first (so the
/// rate converter works on as few channels as possible), then the rate is converted by libsoxr or
/// libsamplerate, streaming: memory does not grow with the length of the input.
public final class ResamplerNode: AudioNode {
    /// The engine and quality used when the config does not name them: the fastest pair whose speech-band
    /// quality passes the alias and flatness checks of `benchmarks/resample.sh` (figures in benchmarks/README.md).
    public static let defaultEngine = ResamplerEngine.soxr
    public static let defaultQuality = ResamplerQuality.medium

    static let sampleRate = Parameter.integer("sampleRate", range: 1000...384_000,
                                              doc: "Output sample rate in Hz; leave out to keep the input's.")
    static let channels = Parameter.integer("channels", range: 1...32,
                                            doc: "Output channels; leave out to keep the input's. Down-mix averages channels.")
    static let quality = Parameter.choice("quality", default: defaultQuality,
                                          doc: "best|high|medium|fastest: filter steepness against speed.")
    static let engine = Parameter.choice("engine", default: defaultEngine,
                                         doc: "soxr (libsoxr, the engine of sox and ffmpeg's best mode) or libsamplerate.")

    public static let descriptor = NodeDescriptor(
        type: "resampler",
        summary: "Converts sample rate (libsoxr or libsamplerate) and channel count (down/up-mix first).",
        category: .filter,
        parameters: [
            sampleRate.spec,
            channels.spec,
            quality.spec,
            engine.spec,
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [.audio], forwardsInput: true)])

    private let configuration: NodeConfiguration
    private let targetRate: Int?
    private let targetChannels: Int?
    private let quality: ResamplerQuality
    private let engine: ResamplerEngine
    private var converter: (any SampleRateConverter)?
    private var mixed: [Float] = []
    private var converted: [Float] = []
    private var outputPosition: Int64?
    private var outputFormatValue: AudioFormat?

    public init(configuration: NodeConfiguration) throws {
        self.configuration = configuration
        targetRate = configuration[Self.sampleRate]
        targetChannels = configuration[Self.channels]
        quality = configuration[Self.quality]
        engine = configuration[Self.engine]
    }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? {
        guard let input else { return nil }
        return AudioFormat(sampleRate: targetRate ?? input.sampleRate, channels: targetChannels ?? input.channels)
    }

    public func start(_ context: NodeContext) throws {
        guard let input = context.inputFormat, let output = context.outputFormat else { return }
        outputFormatValue = output
        if input.sampleRate != output.sampleRate {
            do {
                converter = try makeSampleRateConverter(engine: engine, inputRate: input.sampleRate,
                                                        outputRate: output.sampleRate, channels: output.channels,
                                                        quality: quality)
            } catch {
                throw configuration.error(error.message, code: .unavailable)
            }
        }
        let blockGuess = 4096 * max(input.channels, output.channels)
        mixed.reserveCapacity(blockGuess)
        converted.reserveCapacity(blockGuess * max(1, output.sampleRate / max(1, input.sampleRate) + 1))
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        guard let output = outputFormatValue else { return }
        if outputPosition == nil {
            outputPosition = buffer.position * Int64(output.sampleRate) / Int64(buffer.format.sampleRate)
        }
        if buffer.format == output {
            emit(buffer.samples, output, context)
            return
        }
        // Mix channels into `mixed` (reused storage).
        let channelsDiffer = buffer.format.channels != output.channels
        if channelsDiffer {
            mixed.removeAll(keepingCapacity: true)
            buffer.samples.withUnsafeBufferPointer {
                ChannelMixer.mix($0, from: buffer.format.channels, to: output.channels, into: &mixed)
            }
        }
        guard let converter else {
            emit(mixed, output, context)
            return
        }
        converted.removeAll(keepingCapacity: true)
        do {
            if channelsDiffer {
                try mixed.withUnsafeBufferPointer { input throws(ResamplerError) in try converter.process(input, into: &converted) }
            } else {
                try buffer.samples.withUnsafeBufferPointer { input throws(ResamplerError) in try converter.process(input, into: &converted) }
            }
        } catch {
            throw configuration.error(error.message, code: .nodeFailed)
        }
        if !converted.isEmpty { emit(converted, output, context) }
    }

    public func finish(_ context: NodeContext) throws {
        guard let converter, let output = outputFormatValue else { return }
        converted.removeAll(keepingCapacity: true)
        do {
            try converter.flush(into: &converted)
        } catch {
            throw configuration.error(error.message, code: .nodeFailed)
        }
        if !converted.isEmpty { emit(converted, output, context) }
    }

    private func emit(_ samples: [Float], _ format: AudioFormat, _ context: NodeContext) {
        let position = outputPosition ?? 0
        let buffer = AudioBuffer(format: format, samples: samples, position: position)
        outputPosition = position + Int64(buffer.frameCount)
        context.emit(buffer)
    }

    public func stop() { converter = nil }
}
