/// The shape of the audio on a link: sample rate and channel count. Samples are always 32-bit float,
/// interleaved, nominally in -1…1.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// `16000 Hz mono`, `44100 Hz 2 ch`.
    public var description: String {
        let layout: String
        switch channels {
        case 1: layout = "mono"
        case 2: layout = "stereo"
        default: layout = "\(channels) ch"
        }
        return "\(sampleRate) Hz \(layout)"
    }
}

/// The formats a node input accepts. `nil` means any.
public struct FormatRequirement: Sendable, Equatable, CustomStringConvertible {
    public var sampleRates: [Int]?
    public var channels: ClosedRange<Int>?

    public init(sampleRates: [Int]? = nil, channels: ClosedRange<Int>? = nil) {
        self.sampleRates = sampleRates
        self.channels = channels
    }

    public static let any = FormatRequirement()

    public func accepts(_ format: AudioFormat) -> Bool {
        (sampleRates?.contains(format.sampleRate) ?? true) && (channels?.contains(format.channels) ?? true)
    }

    /// The accepted format closest to `format`: the lowest accepted rate at or above it (else the highest),
    /// and the channel count clamped into range.
    public func closest(to format: AudioFormat) -> AudioFormat {
        var result = format
        if let rates = sampleRates?.sorted(), !rates.isEmpty, !rates.contains(format.sampleRate) {
            result.sampleRate = rates.first { $0 >= format.sampleRate } ?? rates.last!
        }
        if let channels {
            result.channels = min(max(format.channels, channels.lowerBound), channels.upperBound)
        }
        return result
    }

    public var description: String {
        var parts: [String] = []
        if let sampleRates { parts.append(sampleRates.map { "\($0)" }.joined(separator: "|") + " Hz") }
        if let channels {
            parts.append(channels.lowerBound == channels.upperBound
                ? "\(channels.lowerBound) ch" : "\(channels.lowerBound)-\(channels.upperBound) ch")
        }
        return parts.isEmpty ? "any" : parts.joined(separator: " ")
    }
}
