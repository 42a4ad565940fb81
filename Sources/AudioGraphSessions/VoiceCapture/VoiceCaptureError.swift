import Foundation

/// Everything a voice-capture session can fail with. Cases and their `code`s are stable: apps switch on them.
/// As a `LocalizedError`, `localizedDescription` is `description`.
public enum VoiceCaptureError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// No sound server (PulseAudio/PipeWire) or no such device.
    case microphoneUnavailable(String)
    /// The sound server refused access.
    case microphonePermissionDenied(String)
    /// The recognizer's model (or engine) is missing.
    case recognizerUnavailable(String)
    /// The recognizer's model exists but this process may not read it (the SDK's "speech recognition
    /// permission denied").
    case speechRecognitionPermissionDenied(String)
    /// The recording held no recognizable speech.
    case emptyTranscript
    /// Recording failed part way (the device vanished, the disk filled).
    case recordingFailed(String)
    /// `keepRecording` names something that is not a regular file (a folder, a device, a FIFO…) or a path
    /// whose folder does not exist: refused before recording starts, and left untouched.
    case cannotKeepRecording(String)
    /// Transcribing the recording failed.
    case transcriptionFailed(String)
    /// `cancel()` was called.
    case cancelled
    /// The call is not allowed in the session's current state.
    case invalidState(operation: String, state: VoiceCaptureState)

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .microphoneUnavailable: return "microphone_unavailable"
        case .microphonePermissionDenied: return "microphone_permission_denied"
        case .recognizerUnavailable: return "recognizer_unavailable"
        case .speechRecognitionPermissionDenied: return "speech_recognition_permission_denied"
        case .emptyTranscript: return "empty_transcript"
        case .recordingFailed: return "recording_failed"
        case .cannotKeepRecording: return "cannot_keep_recording"
        case .transcriptionFailed: return "transcription_failed"
        case .cancelled: return "cancelled"
        case .invalidState: return "invalid_state"
        }
    }

    public var description: String {
        switch self {
        case .microphoneUnavailable(let why): return "microphone unavailable: \(why)"
        case .microphonePermissionDenied(let why): return "microphone permission denied: \(why)"
        case .recognizerUnavailable(let why): return "recognizer unavailable: \(why)"
        case .speechRecognitionPermissionDenied(let why): return "speech recognition permission denied: \(why)"
        case .emptyTranscript: return "no speech was recognized in the recording"
        case .recordingFailed(let why): return "recording failed: \(why)"
        case .cannotKeepRecording(let why): return "cannot keep the recording: \(why)"
        case .transcriptionFailed(let why): return "transcription failed: \(why)"
        case .cancelled: return "cancelled"
        case .invalidState(let operation, let state): return "\(operation) is not allowed while \(state.rawValue)"
        }
    }

    public var errorDescription: String? { description }
}
