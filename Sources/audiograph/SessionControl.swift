import AudioGraph
import Foundation
import Synchronization

/// Steers a running `TranscriptionSession` from the command line: keys on a terminal (`t`, `c`, `q`) and JSON
/// lines from `--control FILE`. Every command is answered with an acknowledgement or an error, never silence.
final class SessionControl: Sendable {
    private let report: @Sendable (JSONObject) -> Void
    /// The protocol: parsing, running and answering each command.
    private let commands: SessionCommandRunner

    /// The user asked to stop (`q` or `{"command":"stop"}`): a normal end, not an interruption.
    var stopRequested: Bool { commands.stopRequested }

    /// - Parameter report: receives `{"type":"ack",…}` and `{"type":"error",…}` objects.
    init(session: TranscriptionSession, report: @escaping @Sendable (JSONObject) -> Void) {
        self.report = report
        commands = SessionCommandRunner(session: session, report: report)
    }

    /// Runs one command given as a JSON line, e.g. `{"command":"setCaptionLanguage","language":"en-US"}`.
    func perform(line: String) async { await commands.perform(line: line) }

    /// Reads JSON lines from `path` on a thread of its own for the whole run: a regular file followed like
    /// `tail -f`, a FIFO opened again after each writer (`ControlFileFollower`).
    func follow(path: String) {
        let thread = Thread { [self] in
            ControlFileFollower.follow(path: path, onLine: { line in
                Self.wait { await self.perform(line: line) }
            }, onError: { message in
                report(SessionCommandError(command: nil, message, code: "control_unavailable").json)
            })
        }
        thread.start()
    }

    /// Single-key control on a terminal: t (transcription), c (captions), q (stop), each as the session's
    /// settings allow. Returns a restore closure.
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
                let key = byte
                Self.wait { await self.commands.key(key) }
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
