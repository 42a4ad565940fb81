/// `participant-source`: one participant's audio in a call, as it arrives over the network (a WebSocket, an SFU's
/// egress). It lives in the config's `participant` block; the runtime makes a branch of that block for every
/// participant who connects and attaches their `ParticipantAudioFeed` before it starts. `sampleRate` and
/// `channels` are the format the participant sends, given per connection; the block's other nodes (a resampler)
/// bring it to what they need.
public final class ParticipantSourceNode: ParticipantFeedSource, @unchecked Sendable {
    // `@unchecked Sendable`: `feed` is set once by the runtime before the node starts, and read only on the
    // source's thread after that; `position` is confined to that thread.
    static let sampleRate = Parameter.integer("sampleRate", range: 8000...48000, default: 16000,
        doc: "Sample rate the participant sends, in Hz (set per connection).")
    static let channels = Parameter.integer("channels", range: 1...2, default: 1,
        doc: "Channels the participant sends (set per connection).")

    public static let descriptor = NodeDescriptor(
        type: ParticipantTemplate.sourceType,
        summary: "A call participant's audio from the network (only in the config's participant block).",
        category: .source,
        parameters: [sampleRate.spec, channels.spec],
        inputs: [],
        outputs: [.init(produces: [.audio], forwardsInput: false)])

    public let format: AudioFormat
    private var feed: ParticipantAudioFeed?
    private var position: Int64 = 0

    public init(configuration: NodeConfiguration) throws {
        format = AudioFormat(sampleRate: configuration[Self.sampleRate], channels: configuration[Self.channels])
    }

    public func attach(_ feed: ParticipantAudioFeed) { self.feed = feed }

    /// Audio comes as the participant speaks.
    public var isRealtime: Bool { true }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    public func produce(_ context: NodeContext) throws -> SourceStatus {
        guard let feed else { return .finished }
        // A short wait, so cancellation (the call ending) is seen promptly.
        switch feed.read(timeout: 0.1) {
        case .waiting:
            return .more
        case .ended:
            return .finished
        case .samples(let samples):
            let buffer = AudioBuffer(format: format, samples: samples, position: position)
            position += Int64(buffer.frameCount)
            context.emit(buffer)
            return .more
        }
    }

    public func stop() { feed?.consumerEnded() }
}
