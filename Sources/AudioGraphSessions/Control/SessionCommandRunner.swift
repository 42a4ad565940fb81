import AudioGraphCore
import Synchronization

/// Runs session control commands (`SessionCommand`) on a `TranscriptionSession` and answers every one, never
/// with silence: an acknowledgement, `{"type":"ack","command":…,"transcribing":…,"captions":…,
/// "captionLanguage":…}` with the session's state after the command, or an error (`SessionCommandError.json`).
/// How the answers are shown or sent is the caller's (`report`); reading lines or keys is too.
public final class SessionCommandRunner: Sendable {
    private let session: TranscriptionSession
    private let report: @Sendable (JSONObject) -> Void
    private let stopped = Atomic<Bool>(false)

    /// - Parameter report: receives each acknowledgement and error object.
    public init(session: TranscriptionSession, report: @escaping @Sendable (JSONObject) -> Void) {
        self.session = session
        self.report = report
    }

    /// The user asked to stop (`stop`): a normal end, not an interruption.
    public var stopRequested: Bool { stopped.load(ordering: .acquiring) }

    /// Runs one command given as a JSON line (`SessionCommand.parse(line:)`); a blank line is ignored.
    public func perform(line: String) async {
        do throws(SessionCommandError) {
            guard let command = try SessionCommand.parse(line: line) else { return }
            await perform(command)
        } catch {
            report(error.json)
        }
    }

    /// Runs one command. `stop` is acknowledged before the session is cancelled: once cancelled, the run may end
    /// (and the process exit) before anything more is written.
    public func perform(_ command: SessionCommand) async {
        do throws(TranscriptionSessionError) {
            switch command {
            case .startTranscription: try await session.startTranscription()
            case .stopTranscription: try await session.stopTranscription()
            case .toggleTranscription:
                if session.isTranscribing { try await session.stopTranscription() } else { try await session.startTranscription() }
            case .showCaptions: try await session.showCaptions()
            case .hideCaptions: try await session.hideCaptions()
            case .toggleCaptions:
                if session.captionsEnabled { try await session.hideCaptions() } else { try await session.showCaptions() }
            case .setCaptionLanguage(let language): try await session.setCaptionLanguage(language)
            case .stop:
                stopped.store(true, ordering: .releasing)
                report(Self.acknowledgement(command.name, session: session))
                session.cancel()
                return
            }
            report(Self.acknowledgement(command.name, session: session))
        } catch {
            report(SessionCommandError(command: command.name, error.description, code: error.code).json)
        }
    }

    /// Runs a terminal key's command (`SessionCommand(key:)`; other keys do nothing). A key whose control the
    /// session hides (`session.hideTranscriptionButton`, `hideClosedCaptionButton`) is answered with a
    /// `control_hidden` error instead of steering.
    public func key(_ byte: UInt8) async {
        guard let command = SessionCommand(key: byte) else { return }
        if let control = command.keyControl, !session.controls.isShown(control) {
            let hidden = SessionControlHidden(control: control)
            report(SessionCommandError(command: command.name, hidden.description, code: hidden.code).json)
            return
        }
        await perform(command)
    }

    /// `{"type":"ack","command":…}` with `session`'s state: `transcribing`, `captions` (visible), `captionLanguage`.
    public static func acknowledgement(_ command: String, session: TranscriptionSession) -> JSONObject {
        var ack = JSONObject([("type", "ack"), ("command", .string(command))])
        ack["transcribing"] = .bool(session.isTranscribing)
        ack["captions"] = .bool(session.captionsVisible)
        ack["captionLanguage"] = .string(session.captionLanguage)
        return ack
    }
}
