import AudioGraphCore
import CFFmpeg
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// When `rtp-source`'s blocking reads give up: FFmpeg calls `shouldInterrupt` (through the format context's
/// `AVIOInterruptCB`) while it waits on the UDP socket, every 100 ms, and an interrupted read returns at once.
/// It gives up when the graph is cancelled or when no packet came before the deadline, which each packet moves on.
///
/// The deadline runs on the monotonic wall clock, not the graph's media clock: it measures the network.
final class RTPWatchdog: Sendable {
    private let deadline = Atomic<UInt64>(.max)
    let cancellation: CancellationFlag

    init(cancellation: CancellationFlag) {
        self.cancellation = cancellation
    }

    /// Gives up `seconds` from now (nil: never, until cancelled).
    func restart(seconds: Double?) {
        deadline.store(seconds.map { Self.now() &+ UInt64(max(0, $0) * 1e9) } ?? .max, ordering: .relaxed)
    }

    /// No packet came in time.
    var expired: Bool { Self.now() >= deadline.load(ordering: .relaxed) }
    var shouldInterrupt: Bool { cancellation.isCancelled || expired }

    /// Nanoseconds on the monotonic clock.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// FFmpeg's interrupt callback: `opaque` is the receiver's `RTPWatchdog`, which outlives the format context.
private let rtpInterruptCallback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    guard let opaque else { return 0 }
    return Unmanaged<RTPWatchdog>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
}

/// Receives one RTP audio stream described by an SDP file through libavformat's `sdp` demuxer (protocols
/// `file,udp,rtp`), decodes it with libavcodec (Opus, PCMU, PCMA, L16) and converts it to interleaved float at a
/// fixed rate and channel count. Each decoded frame is placed on the sender's RTP clock (`RTPTimeline`), so lost
/// packets become silence of their length.
///
/// Confinement: FFmpeg contexts are used from one thread at a time (the source's). Not `Sendable`.
final class RTPReceiver {
    /// What `next` got.
    enum Next: Equatable {
        /// `silence` frames of concealment, then `frames` decoded frames in `samples`.
        case audio(frames: Int, silence: Int)
        /// No packet for the timeout: the decoder is drained; nothing more comes.
        case timedOut
        /// The graph was cancelled.
        case cancelled
    }

    let path: String
    let session: RTPSessionDescription
    let sampleRate: Int
    let channels: Int
    /// Seconds without a packet after which the stream ends.
    let timeout: Double
    private(set) var timeline: RTPTimeline

    private let watchdog: RTPWatchdog
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let streamIndex: Int32
    private let timeBase: AVRational
    private let converter: FFmpegSampleConverter
    /// The decoder was sent its end (the sender stopped): drain it, then report `.timedOut`.
    private var draining = false
    private var drained = false

    /// The converted frames of the last `.audio`, interleaved.
    var samples: ArraySlice<Float> { converter.output[0..<(lastFrames * channels)] }
    private var lastFrames = 0

    /// Opens the SDP and binds its UDP port (and the next one, for RTCP). `startTimeout`: seconds to wait for the
    /// first packet (nil: until cancelled). Errors name `nodes.<id>.sdp`: a port in use or no UDP is
    /// `.unavailable` (69), an SDP FFmpeg refuses `.invalidConfig` (65).
    init(path: String, session: RTPSessionDescription, sampleRate: Int, channels: Int, timeout: Double,
         startTimeout: Double?, reorderQueueSize: Int?, cancellation: CancellationFlag,
         configuration: NodeConfiguration) throws(GraphError) {
        if let reason = FFmpeg.unavailableReason {
            throw configuration.error("cannot receive RTP: \(reason)", parameter: "sdp", code: .unavailable)
        }
        FFmpeg.configureLogging()
        self.path = path
        self.session = session
        self.sampleRate = sampleRate
        self.channels = channels
        self.timeout = timeout
        timeline = RTPTimeline(tolerance: 0.005, maximumGap: timeout)
        watchdog = RTPWatchdog(cancellation: cancellation)
        converter = FFmpegSampleConverter(sampleRate: sampleRate, channels: channels, path: path)
        watchdog.restart(seconds: startTimeout)

        var succeeded = false
        var format = avformat_alloc_context()
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            if !succeeded {
                avcodec_free_context(&codec)
                av_frame_free(&frame)
                av_packet_free(&packet)
                avformat_close_input(&format)
            }
        }
        guard let allocated = format, frame != nil, packet != nil else {
            throw configuration.error("cannot receive RTP: out of memory", parameter: "sdp", code: .io)
        }
        allocated.pointee.interrupt_callback = AVIOInterruptCB(
            callback: rtpInterruptCallback, opaque: Unmanaged.passUnretained(watchdog).toOpaque())
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "protocol_whitelist", "file,udp,rtp", 0)
        if let reorderQueueSize { av_dict_set(&options, "reorder_queue_size", String(reorderQueueSize), 0) }
        var rc = avformat_open_input(&format, path, av_find_input_format("sdp"), &options)
        guard rc >= 0, let format else {
            // FFmpeg reports a failed bind as invalid data: say what it is when a port is taken. The RTCP port
            // first: when only it is taken, FFmpeg 5.1 keeps the RTP port it bound before (until the process ends).
            if let busy = Self.portInUse(session.port + 1) ?? Self.portInUse(session.port) {
                throw configuration.error("cannot receive RTP on UDP port \(busy): the port is in use (another "
                    + "program receives on it; `ss -ulpn 'sport = :\(busy)'` shows which). RTP needs port "
                    + "\(session.port) and the next one, \(session.port + 1), for RTCP",
                    parameter: "sdp", code: .unavailable)
            }
            throw configuration.error("FFmpeg cannot open the RTP session of \(path) (\(session.summary)): "
                + FFmpeg.errorText(rc), parameter: "sdp")
        }
        var found: UnsafePointer<AVCodec>?
        rc = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &found, 0)
        if rc == audiograph_averror_decoder_not_found() {
            throw configuration.error("this FFmpeg has no decoder for \(session.codec.displayName)",
                                      parameter: "sdp", code: .unavailable)
        }
        guard rc >= 0, let decoder = found, let stream = format.pointee.streams[Int(rc)] else {
            throw configuration.error("FFmpeg finds no audio stream in \(path)", parameter: "sdp")
        }
        streamIndex = rc
        timeBase = stream.pointee.time_base
        codec = avcodec_alloc_context3(decoder)
        guard let codec else {
            throw configuration.error("cannot receive RTP: out of memory", parameter: "sdp", code: .io)
        }
        rc = avcodec_parameters_to_context(codec, stream.pointee.codecpar)
        if rc >= 0 {
            codec.pointee.pkt_timebase = stream.pointee.time_base
            rc = avcodec_open2(codec, decoder, nil)
        }
        guard rc >= 0 else {
            throw configuration.error("cannot open the \(String(cString: decoder.pointee.name)) decoder for \(path): "
                + FFmpeg.errorText(rc), parameter: "sdp")
        }
        formatContext = format
        codecContext = codec
        self.frame = frame
        self.packet = packet
        succeeded = true
    }

    deinit { close() }

    /// Whether UDP port `port` is taken (binding it fails with EADDRINUSE): the port, or nil.
    static func portInUse(_ port: Int) -> Int? {
        guard (1...65535).contains(port) else { return nil }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { Glibc.close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = INADDR_ANY
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return rc != 0 && errno == EADDRINUSE ? port : nil
    }

    /// Waits for, decodes and converts the next frame. Errors: a failed read is `.io` (74), naming the SDP.
    func next(node: String) throws(GraphError) -> Next {
        guard let formatContext, let codecContext, let frame, let packet else { return .timedOut }
        while true {
            if drained { return .timedOut }
            var rc = avcodec_receive_frame(codecContext, frame)
            if rc >= 0 {
                defer { av_frame_unref(frame) }
                let rate = Double(frame.pointee.sample_rate > 0 ? frame.pointee.sample_rate : Int32(session.clockRate))
                let noValue = audiograph_av_nopts_value()
                let timestamp = frame.pointee.pts != noValue ? frame.pointee.pts : frame.pointee.best_effort_timestamp
                let start = timestamp == noValue ? nil
                    : Double(timestamp) * Double(timeBase.num) / Double(timeBase.den)
                let gap = timeline.place(start: start, duration: Double(frame.pointee.nb_samples) / rate)
                try convert(frame, node: node)
                return .audio(frames: lastFrames, silence: Int((gap * Double(sampleRate)).rounded()))
            }
            if rc == FFmpeg.endOfFile {
                drained = true
                // A resampler that changes the rate holds a few frames back.
                if converter.isPrepared {
                    try convert(nil, node: node)
                    if lastFrames > 0 { return .audio(frames: lastFrames, silence: 0) }
                }
                return .timedOut
            }
            guard rc == FFmpeg.again else {
                throw GraphError(.io, at: path, "cannot decode the RTP stream: \(FFmpeg.errorText(rc))", node: node)
            }
            if draining { return .timedOut }
            rc = av_read_frame(formatContext, packet)
            if rc < 0 {
                if watchdog.cancellation.isCancelled { return .cancelled }
                if watchdog.expired || rc == FFmpeg.endOfFile {
                    // The sender stopped: let the decoder give what it holds.
                    draining = true
                    _ = avcodec_send_packet(codecContext, nil)
                    continue
                }
                throw GraphError(.io, at: path, "cannot receive RTP: \(FFmpeg.errorText(rc))", node: node)
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            watchdog.restart(seconds: timeout)
            rc = avcodec_send_packet(codecContext, packet)
            // A corrupt packet is skipped (as a lost one): the stream goes on.
            if rc < 0, rc != FFmpeg.again, rc != audiograph_averror_invaliddata() {
                throw GraphError(.io, at: path, "cannot decode the RTP stream: \(FFmpeg.errorText(rc))", node: node)
            }
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>?, node: String) throws(GraphError) {
        do {
            lastFrames = try converter.convert(frame)
        } catch {
            throw GraphError(.io, at: path, error.message, node: node)
        }
    }

    /// Closes the sockets and frees the decoder. Idempotent; also done by deinit.
    func close() {
        converter.close()
        avcodec_free_context(&codecContext)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avformat_close_input(&formatContext)
    }
}
