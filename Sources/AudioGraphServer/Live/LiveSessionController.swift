import AudioGraphCore
import Dispatch
import Synchronization

/// A command of the control API (`POST /v1/sessions/{id}/transcription|captions|language`).
public enum LiveSessionCommand: Sendable, Equatable {
    case startTranscription, stopTranscription, showCaptions, hideCaptions
    case setCaptionLanguage(String)

    /// The control that must be shown for this command.
    public var control: SessionControlKind {
        switch self {
        case .startTranscription, .stopTranscription: return .transcription
        case .showCaptions, .hideCaptions: return .captions
        case .setCaptionLanguage: return .language
        }
    }
}

/// Steers the session (a `SteerableSession`: a `TranscriptionSession`) behind a live session for the HTTP API, through the same calls (and so the
/// same error codes) as the terminal and `--control`.
///
/// Commands apply one at a time, in the order they reach `perform`: the HTTP worker threads block on a serial
/// queue, so two viewers' commands never interleave and every viewer sees their state events in that order.
public final class LiveSessionController: Sendable {
    public let session: any SteerableSession
    private let serial = DispatchQueue(label: "audiograph.live-session-control")

    public init(session: any SteerableSession) {
        self.session = session
    }

    /// What the session's settings show.
    public var controls: SessionControls { session.controls }

    /// Runs `command` (hidden controls refused) and answers the state after it. Blocks the calling thread until
    /// the command is in the graph: call it from a worker thread, never from a Swift concurrency thread.
    public func perform(_ command: LiveSessionCommand) throws(APIError) -> TranscriptionSessionState {
        do {
            try controls.check(command.control)
        } catch {
            throw APIError(status: 403, code: error.code, message: error.description)
        }
        let outcome: Result<TranscriptionSessionState, TranscriptionSessionError> = serial.sync {
            let box = Mutex<Result<TranscriptionSessionState, TranscriptionSessionError>?>(nil)
            let done = DispatchSemaphore(value: 0)
            let session = self.session
            Task {
                let result: Result<TranscriptionSessionState, TranscriptionSessionError>
                do throws(TranscriptionSessionError) {
                    switch command {
                    case .startTranscription: try await session.startTranscription()
                    case .stopTranscription: try await session.stopTranscription()
                    case .showCaptions: try await session.showCaptions()
                    case .hideCaptions: try await session.hideCaptions()
                    case .setCaptionLanguage(let code): try await session.setCaptionLanguage(code)
                    }
                    result = .success(session.currentState)
                } catch {
                    result = .failure(error)
                }
                box.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            return box.withLock { $0! }
        }
        switch outcome {
        case .success(let state): return state
        case .failure(let error): throw Self.apiError(error)
        }
    }

    /// The session's error as an answer: its own stable code; a language the engine cannot do is 400 with the
    /// engine and its languages, a session that cannot be steered (no recognizer, finished) 409.
    static func apiError(_ error: TranscriptionSessionError) -> APIError {
        var details = JSONObject()
        if case .unsupportedLanguage(_, let engine, let supported, let hint) = error {
            details["engine"] = .string(engine)
            details["supported"] = .array(supported.map { .string($0) })
            if let hint { details["hint"] = .string(hint) }
        }
        let status = error.code == "unsupported_language" ? 400 : 409
        return APIError(status: status, code: error.code, message: error.description, details: details)
    }

    /// `{"transcribing":…,"captions":…,"captionsVisible":…,"captionLanguage":…}`: `captions` is the captions
    /// switch (what "Show/Hide Captions" flips), `captionsVisible` whether captions show now (transcribing too).
    public static func json(_ state: TranscriptionSessionState) -> JSONObject {
        ["transcribing": .bool(state.transcribing), "captions": .bool(state.captionsOn),
         "captionsVisible": .bool(state.captionsVisible), "captionLanguage": .string(state.captionLanguage)]
    }

    /// The state event's data: the state, the shown controls and the languages the picker may offer.
    func stateEvent(_ state: TranscriptionSessionState) -> JSONObject {
        var object = Self.json(state)
        object["controls"] = .object(["transcription": .bool(controls.transcriptionShown),
                                      "captions": .bool(controls.captionsShown),
                                      "language": .bool(controls.isShown(.language))])
        object["languages"] = .array(controls.isShown(.language) ? session.supportedCaptionLanguages.map { .string($0) } : [])
        return object
    }
}
