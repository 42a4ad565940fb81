import AudioGraph
import Foundation
import Synchronization

/// Steers a running `TranscriptionSession` from the command line: keys on a terminal (`t`, `c`, `q`) and JSON
/// lines from `--control FILE`. Every command is answered with an acknowledgement or an error, never silence.
final class SessionControl: Sendable {
    private let session: TranscriptionSession
    private let report: @Sendable (JSONObject) -> Void
    private let stopped = Atomic<Bool>(false)

    /// The user asked to stop (`q` or `{"command":"stop"}`): a normal end, not an interruption.
    var stopRequested: Bool { stopped.load(ordering: .acquiring) }

    /// - Parameter report: receives `{"type":"ack",…}` and `{"type":"error",…}` objects.
    init(session: TranscriptionSession, report: @escaping @Sendable (JSONObject) -> Void) {
        self.session = session
        self.report = report
    }

    /// Runs one command given as a JSON line, e.g. `{"command":"setCaptionLanguage","language":"en-US"}`.
    func perform(line: String) async {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        guard let object = (try? JSONParser.parse(trimmed))?.objectValue, let name = object["command"]?.stringValue else {
            report(Self.error(command: nil, "expected a JSON object like {\"command\":\"startTranscription\"}, got: \(trimmed)"))
            return
        }
        await perform(name, language: object["language"]?.stringValue)
    }

    /// Runs a named command.
    func perform(_ name: String, language: String? = nil) async {
        do {
            switch name {
            case "startTranscription": try await session.startTranscription()
            case "stopTranscription": try await session.stopTranscription()
            case "toggleTranscription":
                if session.isTranscribing { try await session.stopTranscription() } else { try await session.startTranscription() }
            case "showCaptions": try await session.showCaptions()
            case "hideCaptions": try await session.hideCaptions()
            case "toggleCaptions":
                if session.captionsEnabled { try await session.hideCaptions() } else { try await session.showCaptions() }
            case "setCaptionLanguage":
                guard let language else {
                    report(Self.error(command: name, "setCaptionLanguage needs \"language\""))
                    return
                }
                try await session.setCaptionLanguage(language)
            case "stop":
                // Answered before the session is cancelled: once cancelled, the run may end (and the process exit)
                // before this thread writes anything more.
                stopped.store(true, ordering: .releasing)
                report(acknowledgement(name))
                session.cancel()
                return
            default:
                let known = ["startTranscription", "stopTranscription", "showCaptions", "hideCaptions",
                             "setCaptionLanguage", "stop"]
                report(Self.error(command: name, "unknown command" + Suggestions.hint(for: name, in: known)))
                return
            }
            report(acknowledgement(name))
        } catch {
            report(Self.error(command: name, error.description, code: error.code))
        }
    }

    /// `{"type":"ack","command":…}` with the session's state after the command.
    private func acknowledgement(_ command: String) -> JSONObject {
        var ack = JSONObject([("type", "ack"), ("command", .string(command))])
        ack["transcribing"] = .bool(session.isTranscribing)
        ack["captions"] = .bool(session.captionsVisible)
        ack["captionLanguage"] = .string(session.captionLanguage)
        return ack
    }

    static func error(command: String?, _ message: String, code: String = "bad_command") -> JSONObject {
        var object = JSONObject([("type", "error"), ("node", "session")])
        if let command { object["command"] = .string(command) }
        object["code"] = .string(code)
        object["message"] = .string(message)
        return object
    }

    /// Reads JSON lines from `path` (a FIFO or a file) on a thread of its own until it ends.
    func follow(path: String) {
        let thread = Thread { [self] in
            guard let handle = FileHandle(forReadingAtPath: path) else {
                report(Self.error(command: nil, "cannot open the control file \(path)", code: "control_unavailable"))
                return
            }
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    Self.wait { await self.perform(line: line) }
                }
            }
            let last = String(decoding: pending, as: UTF8.self)
            if !last.isEmpty { Self.wait { await self.perform(line: last) } }
        }
        thread.start()
    }

    /// Single-key control on a terminal: t (transcription), c (captions), q (stop). Returns a restore closure.
    func followKeys() -> (@Sendable () -> Void)? {
        guard isatty(0) == 1 else { return nil }
        var original = termios()
        guard tcgetattr(0, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { $0[Int(VMIN)] = 1; $0[Int(VTIME)] = 0 }
        tcsetattr(0, TCSANOW, &raw)
        let saved = original
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while read(0, &byte, 1) == 1 {
                switch byte {
                case UInt8(ascii: "t"): Self.wait { await self.perform("toggleTranscription") }
                case UInt8(ascii: "c"): Self.wait { await self.perform("toggleCaptions") }
                case UInt8(ascii: "q"): Self.wait { await self.perform("stop") }
                default: break
                }
            }
        }
        thread.start()
        return {
            var restore = saved
            tcsetattr(0, TCSANOW, &restore)
        }
    }

    /// Runs async work to completion from a plain thread, in order.
    private static func wait(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }
}
