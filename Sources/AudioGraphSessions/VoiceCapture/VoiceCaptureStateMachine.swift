/// Where a voice-capture session is.
public enum VoiceCaptureState: String, Sendable, Equatable, CaseIterable {
    case idle
    /// Checking the microphone and the recognizer before recording.
    case requestingPermissions
    case recording
    case transcribing
}

/// The session's transitions as a pure value type (tested alone): every request either moves the state or is
/// refused with `invalidState`; outcomes of work in progress move it back.
public struct VoiceCaptureStateMachine: Sendable, Equatable {
    public enum Input: Sendable, Equatable {
        /// `startRecording()` was called.
        case start
        /// The microphone and recognizer checks passed and recording began.
        case recordingStarted
        /// The checks (or starting the recording) failed.
        case startFailed
        /// `stopAndTranscribe()` was called.
        case stop
        /// Transcription finished, well or not.
        case transcriptionEnded
        /// Recording failed by itself.
        case recordingFailed
        /// `cancel()` was called.
        case cancel
    }

    public private(set) var state: VoiceCaptureState = .idle

    public init() {}

    /// Applies an input. Requests that make no sense in the current state throw and change nothing.
    public mutating func apply(_ input: Input) throws(VoiceCaptureError) {
        switch (state, input) {
        case (.idle, .start): state = .requestingPermissions
        case (.requestingPermissions, .recordingStarted): state = .recording
        case (.requestingPermissions, .startFailed): state = .idle
        case (.recording, .stop): state = .transcribing
        case (.recording, .recordingFailed): state = .idle
        case (.transcribing, .transcriptionEnded): state = .idle
        case (.requestingPermissions, .cancel), (.recording, .cancel), (.transcribing, .cancel): state = .idle
        case (.idle, .cancel): break  // nothing to cancel: a harmless no-op, as in the SDK
        case (_, .start): throw .invalidState(operation: "startRecording", state: state)
        case (_, .stop): throw .invalidState(operation: "stopAndTranscribe", state: state)
        case (_, .recordingStarted), (_, .startFailed), (_, .transcriptionEnded), (_, .recordingFailed):
            // Outcomes of work that a cancel already ended: nothing to do.
            break
        }
    }
}
