import AudioGraphCore
import CPulseAudio
import Foundation

/// A PulseAudio record stream through the blocking `pa_simple` API: 32-bit float, interleaved, at the rate and
/// channel count asked for (the server converts from whatever the device does). PipeWire serves the same
/// protocol (pipewire-pulse), so this reaches a microphone on either.
///
/// ```swift
/// let mic = try PulseAudioCapture(sampleRate: 16000, channels: 1)   // the default source
/// var block = [Float](repeating: 0, count: 320)
/// try block.withUnsafeMutableBufferPointer { buffer throws(MicrophoneError) in
///     try mic.read(into: buffer, frames: 320)                        // blocks ~20 ms
/// }
/// mic.close()
/// ```
///
/// Confinement: not `Sendable`. Use an instance from one thread at a time (a source node's thread); `close()`
/// must not race a `read`.
public final class PulseAudioCapture {
    public let sampleRate: Int
    public let channels: Int
    /// The source name (`pactl list short sources`), or nil for the server's default source.
    public let device: String?
    /// The server address (`unix:/path`, `tcp:host:port`), or nil for the default (`PULSE_SERVER`, else the
    /// user's session).
    public let server: String?
    /// Frames the server sends at a time (`fragsize`): small, so a read returns soon after the audio exists.
    public let fragmentFrames: Int
    /// Frames the stream may hold before the server drops audio (`maxlength`): how far behind the reader may
    /// fall without losing anything.
    public let bufferFrames: Int
    private var handle: OpaquePointer?

    /// Connects to the server and opens a record stream.
    ///
    /// - Parameters:
    ///   - fragmentFrames: frames per transfer from the server; default 20 ms.
    ///   - bufferSeconds: how much audio the stream buffers for a reader that falls behind (default 2 s).
    /// - Throws: `.unavailable` (no server), `.permissionDenied` (refused), `.deviceNotFound`, `.streamRejected`.
    public init(device: String? = nil, sampleRate: Int = 16000, channels: Int = 1, server: String? = nil,
                fragmentFrames: Int? = nil, bufferSeconds: Double = 2,
                clientName: String = "audiograph", streamName: String = "microphone") throws(MicrophoneError) {
        precondition(sampleRate > 0 && channels > 0 && channels <= Int(PA_CHANNELS_MAX))
        self.sampleRate = sampleRate
        self.channels = channels
        self.device = device
        self.server = server
        self.fragmentFrames = max(1, fragmentFrames ?? sampleRate / 50)
        self.bufferFrames = max(self.fragmentFrames * 4, Int(bufferSeconds * Double(sampleRate)))

        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(sampleRate), channels: UInt8(channels))
        // The default map has no layout for 7 channels; `extend` fills any count (with AUX positions).
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_DEFAULT)
        let bytesPerFrame = UInt32(channels * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(
            maxlength: UInt32(self.bufferFrames) * bytesPerFrame,
            tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,   // playback only
            fragsize: UInt32(self.fragmentFrames) * bytesPerFrame)
        var error: Int32 = 0
        handle = pa_simple_new(server, clientName, PA_STREAM_RECORD, device, streamName, &spec, &map, &attributes,
                               &error)
        if handle == nil {
            throw Self.openError(error, server: server, device: device, sampleRate: sampleRate, channels: channels)
        }
    }

    deinit { close() }

    /// Fills `buffer` with the next `frames` frames (interleaved), blocking until they have been captured.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int) throws(MicrophoneError) {
        precondition(frames >= 0 && frames * channels <= buffer.count, "buffer too small")
        guard let handle else {
            throw MicrophoneError(kind: .io, message: "microphone capture failed: the stream is closed")
        }
        var error: Int32 = 0
        if pa_simple_read(handle, buffer.baseAddress, frames * channels * MemoryLayout<Float>.size, &error) < 0 {
            throw MicrophoneError(
                kind: .io,
                message: "microphone capture failed reading \(Self.describe(device: device)) from the sound server at "
                    + "\(Self.describe(server: server)): \(Self.reason(error))",
                pulseError: error)
        }
    }

    /// How far behind the capture the reader is: audio captured and not yet read, plus the device's own
    /// latency, in seconds. Nil when the server has not reported timing yet.
    public func latencySeconds() -> Double? {
        guard let handle else { return nil }
        var error: Int32 = 0
        let microseconds = pa_simple_get_latency(handle, &error)
        if microseconds == UInt64.max { return nil }
        return Double(microseconds) / 1_000_000
    }

    /// Closes the stream and the connection. Idempotent.
    public func close() {
        if let handle {
            pa_simple_free(handle)
            self.handle = nil
        }
    }

    // MARK: Errors

    /// The error for a failed `pa_simple_new`, by PulseAudio error code.
    static func openError(_ code: Int32, server: String?, device: String?, sampleRate: Int,
                          channels: Int) -> MicrophoneError {
        let at = describe(server: server)
        let reason = reason(code)
        let (kind, message): (MicrophoneError.Kind, String)
        switch pa_error_code(UInt32(bitPattern: code)) {
        case PA_ERR_CONNECTIONREFUSED, PA_ERR_INVALIDSERVER, PA_ERR_TIMEOUT, PA_ERR_CONNECTIONTERMINATED:
            kind = .unavailable
            message = "\(MicrophoneError.unavailablePrefix): no sound server (PulseAudio/PipeWire) at \(at): "
                + "\(reason); start one (`pulseaudio -D`, or a desktop session with PipeWire) or point "
                + "PULSE_SERVER at it"
        case PA_ERR_ACCESS, PA_ERR_AUTHKEY:
            kind = .permissionDenied
            message = "\(MicrophoneError.permissionDeniedPrefix): the sound server at \(at) refused this client: "
                + "\(reason); check the auth cookie (~/.config/pulse/cookie or PULSE_COOKIE) or the app's "
                + "microphone permission"
        case PA_ERR_NOENTITY:
            kind = .deviceNotFound
            message = "\(MicrophoneError.unavailablePrefix): no capture device "
                + (device.map { "\"\($0)\"" } ?? "(no default source)")
                + " on the sound server at \(at); list them with `pactl list short sources`"
        default:
            kind = .streamRejected
            message = "\(MicrophoneError.unavailablePrefix): the sound server at \(at) rejected a \(sampleRate) Hz "
                + "\(channels)-channel capture stream from \(describe(device: device)): \(reason)"
        }
        return MicrophoneError(kind: kind, message: message, pulseError: code)
    }

    static func reason(_ code: Int32) -> String {
        pa_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }

    static func describe(server: String?) -> String {
        if let server { return server }
        if let environment = ProcessInfo.processInfo.environment["PULSE_SERVER"], !environment.isEmpty {
            return "\(environment) (from PULSE_SERVER)"
        }
        return "the default address"
    }

    static func describe(device: String?) -> String {
        device.map { "\"\($0)\"" } ?? "the default source"
    }
}

/// Checks that the microphone can be opened, for sessions that want to say so before recording starts.
public enum MicrophoneAccess {
    /// Opens a capture stream with these settings and closes it at once.
    ///
    /// - Throws: `MicrophoneError` with kind `.unavailable`, `.permissionDenied`, `.deviceNotFound` or
    ///   `.streamRejected`.
    public static func check(device: String? = nil, sampleRate: Int = 16000, channels: Int = 1,
                             server: String? = nil) throws(MicrophoneError) {
        let capture = try PulseAudioCapture(device: device, sampleRate: sampleRate, channels: channels,
                                            server: server, streamName: "access check")
        capture.close()
    }
}
