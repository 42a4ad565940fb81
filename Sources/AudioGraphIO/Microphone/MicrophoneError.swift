import AudioGraphCore

/// Why the microphone could not be opened or read.
///
/// `message` is for people and always starts with one of two fixed prefixes, so code holding only the
/// `GraphError` (which has no room for a kind) can still tell the cases apart:
/// - ``unavailablePrefix`` (`"microphone unavailable"`): no sound server, or no such capture device;
/// - ``permissionDeniedPrefix`` (`"microphone permission denied"`): the server refused this client.
///
/// Both map to `GraphError.Code.unavailable` (exit 69); a read failure mid-stream maps to `.io` (exit 74).
public struct MicrophoneError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No sound server (PulseAudio, or PipeWire's PulseAudio service) answered at the address.
        case unavailable
        /// The server is there but has no capture device (source) of that name.
        case deviceNotFound
        /// The server refused this client: a wrong or missing auth cookie, or a sandbox without microphone
        /// permission.
        case permissionDenied
        /// The server rejected the stream itself (e.g. an unsupported sample format).
        case streamRejected
        /// Reading failed after the stream was open (the server went away).
        case io
    }

    public static let unavailablePrefix = "microphone unavailable"
    public static let permissionDeniedPrefix = "microphone permission denied"

    public let kind: Kind
    public let message: String
    /// The PulseAudio error code (`pa_error_code`), when the failure came from libpulse.
    public let pulseError: Int32?

    public init(kind: Kind, message: String, pulseError: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.pulseError = pulseError
    }

    public var description: String { message }

    /// The `GraphError` a `mic-source` node reports: exit 69 for everything at open time, 74 for a read
    /// failure. Located at the parameter to fix (`nodes.<id>.device` for a missing device, `nodes.<id>.server`
    /// when the server was set in the config), else at the node (`nodes.<id>`).
    public func graphError(for configuration: NodeConfiguration) -> GraphError {
        let parameter: String?
        switch kind {
        case .deviceNotFound: parameter = "device"
        case .unavailable, .permissionDenied:
            parameter = configuration.string("server") != nil ? "server" : nil
        case .streamRejected, .io: parameter = nil
        }
        return configuration.error(message, parameter: parameter, code: kind == .io ? .io : .unavailable)
    }
}

extension GraphError {
    /// The microphone error kind this error reports, read from its message's fixed prefix: `.unavailable`
    /// (also for a missing device), `.permissionDenied`, or nil for anything else.
    public var microphoneErrorKind: MicrophoneError.Kind? {
        if message.hasPrefix(MicrophoneError.permissionDeniedPrefix) { return .permissionDenied }
        if message.hasPrefix(MicrophoneError.unavailablePrefix) { return .unavailable }
        return nil
    }
}
