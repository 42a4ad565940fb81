import AudioGraphCore
import AudioGraphIO
import AudioGraphWebSocket
import Foundation
import Synchronization

/// What `audiograph join` sends: interleaved float samples in one format, from a file or a microphone.
public protocol JoinAudioSource: AnyObject {
    var format: AudioFormat { get }
    /// Whether the source paces itself (a microphone delivers audio as it is spoken); a file is paced by the
    /// clock instead.
    var isLive: Bool { get }
    /// Reads up to `maxFrames` frames; 0 at the end.
    func read(into buffer: UnsafeMutableBufferPointer<Float>, maxFrames: Int) throws(GraphError) -> Int
    func close()
}

/// A file as a participant's audio, decoded by `file-source`'s readers (libsndfile, then FFmpeg). More than two
/// channels are mixed to mono (the endpoint takes 1 or 2).
public final class JoinFileSource: JoinAudioSource {
    private let reader: any AudioFileReader
    private var scratch: [Float] = []
    public let format: AudioFormat
    public var isLive: Bool { false }
    /// The file's length in seconds, when known.
    public var durationSeconds: Double? { reader.frameCount.map { Double($0) / Double(reader.sampleRate) } }

    /// Opens `path`: 66 when it is missing, 65 when it is not audio (as `file-source`).
    public init(path: String) throws(GraphError) {
        reader = try AudioFileReaders.open(path: path, location: path)
        guard CallJoin.sampleRates.contains(reader.sampleRate) else {
            reader.close()
            throw GraphError(.invalidConfig, at: path, "its sample rate is \(reader.sampleRate) Hz; a call takes "
                             + "\(CallJoin.sampleRates.lowerBound) to \(CallJoin.sampleRates.upperBound) Hz (resample it first)")
        }
        format = AudioFormat(sampleRate: reader.sampleRate, channels: reader.channels > 2 ? 1 : reader.channels)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>, maxFrames: Int) throws(GraphError) -> Int {
        let channels = reader.channels
        do {
            if channels <= 2 { return try reader.read(into: buffer, maxFrames: maxFrames) }
            if scratch.count < maxFrames * channels { scratch = [Float](repeating: 0, count: maxFrames * channels) }
            let frames = try scratch.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: maxFrames) }
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels { sum += scratch[frame * channels + channel] }
                buffer[frame] = sum / Float(channels)
            }
            return frames
        } catch {
            throw GraphError(.io, at: reader.path, "reading failed: \(error)")
        }
    }

    public func close() { reader.close() }
}

/// The microphone (PulseAudio/PipeWire) as a participant's audio: 16 kHz mono.
public final class JoinMicrophoneSource: JoinAudioSource {
    private let capture: PulseAudioCapture
    public let format: AudioFormat
    public var isLive: Bool { true }

    /// Opens the default source, or `device`; 69 when there is no sound server or no such device.
    public init(device: String? = nil) throws(GraphError) {
        do {
            capture = try PulseAudioCapture(device: device, sampleRate: 16000, channels: 1, streamName: "audiograph join")
        } catch {
            throw GraphError(.unavailable, at: device ?? "microphone", error.message)
        }
        format = AudioFormat(sampleRate: 16000, channels: 1)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>, maxFrames: Int) throws(GraphError) -> Int {
        do {
            try capture.read(into: buffer, frames: maxFrames)
        } catch {
            throw GraphError(.io, at: "microphone", error.message)
        }
        return maxFrames
    }

    public func close() { capture.close() }
}

/// Sends a participant's audio into a live call over the participant audio WebSocket
/// (`/v1/sessions/{id}/participants/{speaker}/audio`, docs/calls.md) while reading the session's captions, the
/// way a call's own client does: `audiograph join` is this with a command line.
///
/// 1. The captions stream is opened first (so nothing the participant says is missed), then the WebSocket.
/// 2. Audio goes as s16le at the source's own rate and channels (the server resamples), in messages of
///    `messageSeconds`; a file is paced by the wall clock at `rate` × real time (the server itself paces at
///    its `--max-ingest-rate` and slows a faster sender through TCP), a microphone by itself.
/// 3. At the end (or on `stop()`) a close frame 1000 goes out and the server's close is awaited: the server then
///    finalizes the participant's last sentence.
/// 4. Captions keep coming until the speaker's last sentence is final: no segment of theirs shown as a partial
///    is pending, and a final of theirs reaches (within `tailSeconds`) the last moment of the audio sent that
///    was louder than -40 dBFS (the client tracks it as it sends; caption times count from the connection's
///    first sample). At most `lingerSeconds` after the close (a last sentence the recognizer drops as noise
///    never comes).
///
/// `run` blocks its thread; `stop()` may be called from any other (a signal handler's task).
public final class CallJoin: Sendable {
    /// The sample rates the participant audio endpoint takes.
    public static let sampleRates = 8000...48000

    public struct Options: Sendable {
        public var url: CallJoinURL
        public var speaker: String
        public var token: String?
        /// Times real time a file is sent at (1: as spoken).
        public var rate: Double
        /// Seconds of audio per message.
        public var messageSeconds: Double
        /// At most how long to wait for the speaker's last captions after the close.
        public var lingerSeconds: Double
        /// How close to the last loud moment of the audio a final must end to count as the last one.
        public var tailSeconds: Double
        /// Seconds to connect.
        public var connectTimeout: Double
        /// Seconds to wait for the server's answer once connected (it builds the participant's branch first).
        public var answerTimeout: Double
        /// Read captions at all.
        public var captions: Bool

        public init(url: CallJoinURL, speaker: String, token: String?, rate: Double = 1, messageSeconds: Double = 0.1,
                    lingerSeconds: Double = 5, tailSeconds: Double = 1.5, connectTimeout: Double = 10, answerTimeout: Double = 60,
                    captions: Bool = true) {
            self.url = url
            self.speaker = speaker
            self.token = token
            self.rate = rate
            self.messageSeconds = messageSeconds
            self.lingerSeconds = lingerSeconds
            self.tailSeconds = tailSeconds
            self.connectTimeout = connectTimeout
            self.answerTimeout = answerTimeout
            self.captions = captions
        }
    }

    /// How a join went.
    public struct Outcome: Sendable {
        /// Seconds of audio sent.
        public var sentSeconds: Double
        /// Wall-clock seconds from the first message to the close frame.
        public var sendingSeconds: Double
        /// The speaker's finals seen.
        public var finals: Int
        /// Seconds from the close frame to the speaker's last final, when one came after it.
        public var closeToLastFinal: Double?
        /// What the server's close frame said (nil: none came in time).
        public var serverClose: WebSocketClient.CloseStatus?
        /// It was stopped (`stop()`) before the source ended.
        public var stopped: Bool
    }

    public let options: Options
    private let stopRequested = Mutex(false)
    private let state = Mutex(CaptionState())
    private let changed = DispatchSemaphore(value: 0)

    private struct CaptionState {
        /// Segments of the speaker shown as partials and not final yet.
        var open: Set<Int> = []
        var finals = 0
        /// Where the speaker's latest final ends, in seconds of this connection's audio.
        var finalEnd: Double?
        var lastFinal: Double?
        /// Captions count from here on (the ones replayed to a new viewer are older).
        var counting = false
        var ended = false
    }

    public init(options: Options) {
        self.options = options
    }

    /// Ends sending at the next message: the close goes out as at the end of a file. Any thread.
    public func stop() {
        stopRequested.withLock { $0 = true }
        changed.signal()
    }

    private var isStopped: Bool { stopRequested.withLock { $0 } }

    /// Sends `source` and shows captions through `show` (on the captions thread). Throws a `GraphError`: 69 when the
    /// server cannot be reached or refuses (no such call, 409, 501), 77 for a token it does not take (401), 74 when
    /// the server closes the connection with an error code or it is lost.
    /// `connected` is called once the WebSocket is open, before the first message.
    public func run(source: any JoinAudioSource, connected: () -> Void = {},
                    show: @escaping @Sendable (JoinCaption) -> Void) throws(GraphError) -> Outcome {
        defer { source.close() }
        let url = options.url
        let location = url.description
        var reader: CaptionEventReader?
        if options.captions {
            do {
                let ended: @Sendable () -> Void = { [self] in
                    state.withLock { $0.ended = true }
                    changed.signal()
                }
                reader = try CaptionEventReader.open(host: url.host, port: url.port, target: url.captionsTarget, token: options.token,
                                                     timeout: options.connectTimeout, answerTimeout: options.answerTimeout,
                                                     ended: ended) { [self] caption in
                    note(caption)
                    show(caption)
                }
            } catch {
                throw Self.graphError(error, at: location)
            }
        }
        defer { reader?.stop() }
        var headers: [(name: String, value: String)] = []
        if let token = options.token { headers.append(("Authorization", "Bearer \(token)")) }
        let socket: WebSocketClient
        do {
            socket = try WebSocketClient.connect(host: url.host, port: url.port,
                                                 target: url.audioTarget(speaker: options.speaker, format: source.format),
                                                 headers: headers, protocols: ["audiograph"], timeout: options.connectTimeout,
                                                 answerTimeout: options.answerTimeout)
        } catch {
            throw Self.graphError(error, at: location)
        }
        state.withLock { $0.counting = true }
        connected()
        let format = source.format
        var lastVoiced: Double?
        let framesPerMessage = max(1, Int(Double(format.sampleRate) * options.messageSeconds))
        var samples = [Float](repeating: 0, count: framesPerMessage * format.channels)
        var bytes = [UInt8](repeating: 0, count: framesPerMessage * format.channels * 2)
        var sentFrames = 0
        let start = TCPConnection.now()
        var stopped = false
        while true {
            if isStopped { stopped = true; break }
            var readFailure: GraphError?
            let frames = samples.withUnsafeMutableBufferPointer { buffer in
                do throws(GraphError) {
                    return try source.read(into: buffer, maxFrames: framesPerMessage)
                } catch {
                    readFailure = error
                    return 0
                }
            }
            if let readFailure {
                socket.close(code: 1000, timeout: 1)
                throw readFailure
            }
            if frames == 0 { break }
            Self.encode(samples, count: frames * format.channels, into: &bytes)
            if Self.isVoiced(samples, count: frames * format.channels) {
                lastVoiced = Double(sentFrames + frames) / Double(format.sampleRate)
            }
            do throws(WebSocketClientError) {
                var sendFailure: WebSocketClientError?
                bytes.withUnsafeBytes { raw in
                    do throws(WebSocketClientError) {
                        try socket.send(binary: UnsafeRawBufferPointer(rebasing: raw[..<(frames * format.channels * 2)]))
                    } catch {
                        sendFailure = error
                    }
                }
                if let sendFailure { throw sendFailure }
                sentFrames += frames
                if !source.isLive {
                    // Paced on the clock: the next message is due when the audio sent so far has played at `rate`.
                    let due = start + Double(sentFrames) / Double(format.sampleRate) / options.rate
                    try socket.service(until: due)
                } else {
                    try socket.service(until: TCPConnection.now())
                }
            } catch {
                socket.close(code: 1000, timeout: 1)
                throw Self.graphError(error, at: location)
            }
        }
        let closedAt = TCPConnection.now()
        let sendingSeconds = closedAt - start
        let serverClose = socket.close(code: 1000, reason: "", timeout: 5)
        if let serverClose, serverClose.code != 1000 {
            var text = "the server closed the connection with \(serverClose.code)"
            if !serverClose.reason.isEmpty { text += ": \(serverClose.reason)" }
            throw GraphError(.io, at: location, text)
        }
        if reader != nil { waitForLastCaptions(after: closedAt, lastVoiced: lastVoiced) }
        let final = state.withLock { $0 }
        return Outcome(sentSeconds: Double(sentFrames) / Double(format.sampleRate), sendingSeconds: sendingSeconds,
                       finals: final.finals, closeToLastFinal: final.lastFinal.map { $0 - closedAt }.flatMap { $0 >= 0 ? $0 : nil },
                       serverClose: serverClose, stopped: stopped)
    }

    /// Waits until none of the speaker's segments is pending and a final of theirs reaches `lastVoiced` (less
    /// `tailSeconds`), or the caption stream ended, or `lingerSeconds` passed.
    private func waitForLastCaptions(after closedAt: Double, lastVoiced: Double?) {
        let deadline = closedAt + options.lingerSeconds
        while TCPConnection.now() < deadline {
            let done = state.withLock { state in
                state.ended || (state.open.isEmpty
                    && (lastVoiced.map { voiced in (state.finalEnd ?? -1) >= voiced - options.tailSeconds } ?? true))
            }
            if done { return }
            _ = changed.wait(timeout: .now() + max(0.01, deadline - TCPConnection.now()))
        }
    }

    private func note(_ caption: JoinCaption) {
        guard caption.speaker == options.speaker else { return }
        state.withLock { state in
            guard state.counting else { return }
            let now = TCPConnection.now()
            switch caption.kind {
            case .partial:
                if let segment = caption.segment { state.open.insert(segment) }
            case .final:
                if let segment = caption.segment { state.open.remove(segment) }
                state.finals += 1
                state.lastFinal = now
                if let end = caption.end { state.finalEnd = max(state.finalEnd ?? end, end) }
            case .clear:
                state.open.removeAll()
            }
        }
        changed.signal()
    }

    /// Whether the RMS of the first `count` samples is above -40 dBFS.
    static func isVoiced(_ samples: [Float], count: Int) -> Bool {
        guard count > 0 else { return false }
        var sum: Float = 0
        for index in 0..<count { sum += samples[index] * samples[index] }
        return sum / Float(count) > 1e-4
    }

    /// Float samples (-1…1) as s16le.
    static func encode(_ samples: [Float], count: Int, into bytes: inout [UInt8]) {
        for index in 0..<count {
            let clamped = max(-1, min(1, samples[index].isFinite ? samples[index] : 0))
            let value = Int16((clamped * 32767).rounded())
            let bits = UInt16(bitPattern: value)
            bytes[index * 2] = UInt8(bits & 0xFF)
            bytes[index * 2 + 1] = UInt8(bits >> 8)
        }
    }

    /// A client error as the CLI reports it: 69 when the server cannot be reached or will not take the audio,
    /// 77 for a token it refuses, 74 for a connection that fails or is closed with an error code.
    static func graphError(_ error: WebSocketClientError, at location: String) -> GraphError {
        switch error.kind {
        case .unreachable:
            return GraphError(.unavailable, at: location, error.message)
        case .refused(let status, _) where status == 401 || status == 403:
            return GraphError(.permissionDenied, at: location,
                              error.message + " (a token from `audiograph tokens create`, in --token or AUDIOGRAPH_TOKEN)")
        case .refused(let status, _) where status == 404:
            return GraphError(.unavailable, at: location,
                              error.message + " (is the call running, and are you one of its participants?)")
        case .refused:
            return GraphError(.unavailable, at: location, error.message)
        case .badHandshake, .closedByServer, .connectionLost:
            return GraphError(.io, at: location, error.message)
        }
    }
}
