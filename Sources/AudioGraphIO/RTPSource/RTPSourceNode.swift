import AudioGraphCore
import Foundation

/// `rtp-source`: receives one participant's audio as RTP, described by an SDP file — what Janus `rtp_forward`,
/// mediasoup's PlainTransport and Asterisk's externalMedia send. Read through libavformat's `sdp` demuxer
/// (protocols `file,udp,rtp`), decoded by libavcodec: Opus, PCMU, PCMA and L16.
///
/// - Live: `isLive` is true (queued nodes behind it drop and count instead of stalling the socket).
/// - Time: the stream runs on the sender's RTP clock, from the first packet on. A hole in it (lost packets) is
///   filled with silence of its length (`RTPTimeline`), so the stream keeps its length and every later time
///   stays right; Opus's own loss concealment is not used (FFmpeg 5.1's decoders do not expose it).
/// - End: when no packet came for `timeout` seconds, the decoder is drained and the stream ends cleanly, so the
///   nodes downstream finalize (the last sentence is recognized and stored). Before the first packet it waits
///   `startTimeout` seconds (0: until stopped). Cancellation is seen within 100 ms (FFmpeg's poll interval).
///
/// The SDP is read and checked when the graph is built (`audiograph validate` needs no network); the UDP port is
/// bound in `start`.
public final class RTPSourceNode: SourceNode {
    static let timeout = Parameter.number("timeout", range: 0.1...3600, default: 10,
        doc: "Seconds without a packet after which the stream ends cleanly (the sender stopped): downstream "
            + "nodes finalize, so the last sentence is stored.")
    static let startTimeout = Parameter.number("startTimeout", range: 0...86400, default: 60,
        doc: "Seconds to wait for the first packet before ending the stream; 0 waits until stopped.")
    static let sampleRate = Parameter<Int?>.integer("sampleRate", range: 8000...192_000,
        doc: "Sample rate in Hz of the audio sent downstream. Default: the SDP's clock rate (Opus: 48000).")
    static let channels = Parameter<Int?>.integer("channels", range: 1...8,
        doc: "Channels sent downstream. Default: the SDP's (Opus: 2).")
    static let reorderQueueSize = Parameter<Int?>.integer("reorderQueueSize", range: 0...10_000,
        doc: "Packets FFmpeg's RTP demuxer holds to put reordered packets back in order (its "
            + "`reorder_queue_size`). Default: FFmpeg's (500). 0 turns reordering off, so that a sender that "
            + "restarts (new sequence numbers) is taken at once: with a queue, FFmpeg drops a restarted sender's "
            + "packets numbered below the last one's, and the stream ends after `timeout`.")

    public static let descriptor = NodeDescriptor(
        type: "rtp-source",
        summary: "Receives RTP audio (Opus, PCMU, PCMA, L16) described by an SDP file, e.g. from Janus, mediasoup or Asterisk (live).",
        category: .source,
        parameters: [
            ParameterSpec("sdp", .path(.input), required: true,
                          doc: "The SDP file describing the stream (`m=audio <port> RTP/AVP <payload>`, `c=`, "
                              + "`a=rtpmap`), relative to the config file. The node listens on its port."),
            timeout.spec,
            startTimeout.spec,
            sampleRate.spec,
            channels.spec,
            reorderQueueSize.spec,
        ],
        inputs: [],
        outputs: [.init(produces: [.audio], forwardsInput: false)])

    public let format: AudioFormat
    /// The SDP file.
    public let path: String
    let session: RTPSessionDescription
    private let configuration: NodeConfiguration
    private let timeout: Double
    private let startTimeout: Double
    private let reorderQueueSize: Int?
    private var receiver: RTPReceiver?
    private var position: Int64 = 0

    public init(configuration: NodeConfiguration) throws {
        self.configuration = configuration
        path = configuration.path("sdp")!
        let location = configuration.jsonPath("sdp").description
        try FileKind.requireRegularFile(path, at: location, node: configuration.id)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw configuration.error("cannot read \(path)", parameter: "sdp", code: .missingInput)
        }
        do {
            session = try RTPSessionDescription(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw configuration.error("\(path) is not an SDP file rtp-source can use: \(error.reason)",
                                      parameter: "sdp")
        }
        format = AudioFormat(sampleRate: configuration[Self.sampleRate] ?? session.clockRate,
                             channels: configuration[Self.channels] ?? session.channels)
        timeout = configuration[Self.timeout]
        startTimeout = configuration[Self.startTimeout]
        reorderQueueSize = configuration[Self.reorderQueueSize]
    }

    public var isLive: Bool { true }

    /// What arrives, for people: "Opus 48000 Hz 2 ch, payload 97, UDP port 5004".
    public var formatName: String { session.summary }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    /// Binds the SDP's UDP port. Errors: a port in use is exit 69; an SDP FFmpeg refuses is exit 65.
    public func start(_ context: NodeContext) throws {
        guard receiver == nil else { return }
        receiver = try RTPReceiver(path: path, session: session, sampleRate: format.sampleRate,
                                   channels: format.channels, timeout: timeout,
                                   startTimeout: startTimeout > 0 ? startTimeout : nil,
                                   reorderQueueSize: reorderQueueSize, cancellation: context.cancellationFlag,
                                   configuration: configuration)
        position = 0
    }

    public func produce(_ context: NodeContext) throws -> SourceStatus {
        if context.isCancelled { return .finished }
        guard let receiver else {
            throw GraphError(.nodeFailed, at: configuration.jsonPath().description,
                             "rtp-source produced before start", node: context.nodeID)
        }
        switch try receiver.next(node: context.nodeID) {
        case .audio(let frames, let silence):
            if silence > 0 {
                let zeros = [Float](repeating: 0, count: silence * format.channels)
                context.emit(AudioBuffer(format: format, samples: zeros, position: position))
                position += Int64(silence)
            }
            if frames > 0 {
                context.emit(AudioBuffer(format: format, samples: Array(receiver.samples), position: position))
                position += Int64(frames)
            }
            return .more
        case .timedOut, .cancelled:
            let timeline = receiver.timeline
            var notes: [String] = []
            if timeline.concealedGaps > 0 {
                notes.append("filled \(timeline.concealedGaps) gap(s) of lost RTP packets with "
                    + "\(Int((timeline.concealedSeconds * 1000).rounded())) ms of silence")
            }
            if timeline.discontinuities > 0 {
                notes.append("\(timeline.discontinuities) RTP timestamp jump(s) taken as a restarted sender "
                    + "(nothing inserted)")
            }
            if !notes.isEmpty { context.warn(notes.joined(separator: "; ")) }
            return .finished
        }
    }

    /// Closes the socket. Idempotent.
    public func stop() {
        receiver?.close()
        receiver = nil
    }
}
