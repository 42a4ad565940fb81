import AudioGraphSessions
import AudioGraphTestKit
import Testing

@Suite(.ownThreads) struct VoiceCaptureStateMachineTests {
    typealias Input = VoiceCaptureStateMachine.Input

    /// A machine driven to `state` through legal transitions.
    func machine(in state: VoiceCaptureState) throws -> VoiceCaptureStateMachine {
        var machine = VoiceCaptureStateMachine()
        let path: [Input]
        switch state {
        case .idle: path = []
        case .requestingPermissions: path = [.start]
        case .recording: path = [.start, .recordingStarted]
        case .transcribing: path = [.start, .recordingStarted, .stop]
        }
        for input in path { try machine.apply(input) }
        #expect(machine.state == state)
        return machine
    }

    @Test(arguments: [
        (VoiceCaptureState.idle, Input.start, VoiceCaptureState.requestingPermissions),
        (.requestingPermissions, .recordingStarted, .recording),
        (.requestingPermissions, .startFailed, .idle),
        (.requestingPermissions, .cancel, .idle),
        (.recording, .stop, .transcribing),
        (.recording, .cancel, .idle),
        (.recording, .recordingFailed, .idle),
        (.transcribing, .transcriptionEnded, .idle),
        (.transcribing, .cancel, .idle),
    ])
    func legalTransitions(from: VoiceCaptureState, input: Input, to: VoiceCaptureState) throws {
        var machine = try machine(in: from)
        try machine.apply(input)
        #expect(machine.state == to)
    }

    @Test(arguments: [
        (VoiceCaptureState.requestingPermissions, Input.start, "startRecording"),
        (.recording, .start, "startRecording"),
        (.transcribing, .start, "startRecording"),
        (.idle, .stop, "stopAndTranscribe"),
        (.requestingPermissions, .stop, "stopAndTranscribe"),
        (.transcribing, .stop, "stopAndTranscribe"),
    ])
    func wrongStateCallsAreErrorsAndChangeNothing(state: VoiceCaptureState, input: Input, operation: String) throws {
        var machine = try machine(in: state)
        #expect(throws: VoiceCaptureError.invalidState(operation: operation, state: state)) { try machine.apply(input) }
        #expect(machine.state == state)
    }

    /// Issue 17: `cancel()` on an idle capture is a harmless no-op, as in the SDK.
    @Test func cancelWhenIdleIsANoOp() throws {
        var machine = VoiceCaptureStateMachine()
        try machine.apply(.cancel)
        #expect(machine.state == .idle)
        try machine.apply(.start)
        #expect(machine.state == .requestingPermissions)
    }

    @Test(arguments: [Input.recordingStarted, .startFailed, .transcriptionEnded, .recordingFailed])
    func lateOutcomesAfterACancelAreIgnored(input: Input) throws {
        var machine = VoiceCaptureStateMachine()
        try machine.apply(input)
        #expect(machine.state == .idle)
    }

    @Test func errorCodesAreStable() {
        let codes = [VoiceCaptureError.microphoneUnavailable(""), .microphonePermissionDenied(""), .recognizerUnavailable(""),
                     .speechRecognitionPermissionDenied(""),
                     .emptyTranscript, .recordingFailed(""), .cannotKeepRecording(""), .transcriptionFailed(""), .cancelled,
                     .invalidState(operation: "x", state: .idle)].map(\.code)
        #expect(codes == ["microphone_unavailable", "microphone_permission_denied", "recognizer_unavailable",
                          "speech_recognition_permission_denied",
                          "empty_transcript", "recording_failed", "cannot_keep_recording", "transcription_failed",
                          "cancelled", "invalid_state"])
    }
}
