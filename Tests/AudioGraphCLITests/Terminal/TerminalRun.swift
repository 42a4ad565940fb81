import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// `audiograph` running on a pseudo-terminal opened by the test (stdin, stdout and stderr all on it, as in a
/// shell), `columns` × `rows`: the test types keys and reads the screen a terminal would show
/// (`ScreenModel`), not the bytes written.
final class TerminalRun: Sendable {
    let pty: PseudoTerminal
    private let model: Mutex<ScreenModel>
    private let exit: Task<Harness.Exit, any Error>

    init(_ arguments: [String], in directory: TemporaryFolder, columns: Int = 200, rows: Int = 30) throws {
        pty = try #require(PseudoTerminal(columns: columns, rows: rows))
        model = Mutex(ScreenModel(columns: columns, rows: rows))
        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        let terminal = FileHandle(fileDescriptor: pty.slave, closeOnDealloc: false)
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        exit = Task { try await Harness.runToExit(process) }
    }

    /// The screen now: its rows, trailing blanks cut, trailing empty rows dropped.
    func screen() -> [String] {
        model.withLock { model in
            model.feed(pty.drain())
            return model.text
        }
    }

    /// Control characters or escape sequences other than the line drawing ones that reached the terminal.
    var unknownSequences: [String] { model.withLock { $0.unknown } }

    /// Polls the screen until `condition` holds: whether it held, and the last screen seen.
    func waitFor(timeout: Double = 30, _ condition: @escaping ([String]) -> Bool) async throws -> (held: Bool, screen: [String]) {
        var last: [String] = []
        let held = await eventually(timeout: timeout) {
            last = screen()
            return condition(last)
        }
        return (held, last)
    }

    /// Types `text` (keys) on the terminal.
    func type(_ text: String) { pty.type(text) }

    /// Waits for the process to exit, reading the terminal meanwhile (a full pty buffer would block it).
    func exited() async throws -> Harness.Exit {
        let reader = Task {
            while !Task.isCancelled {
                _ = screen()
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let result = try await exit.value
        reader.cancel()
        _ = screen()
        return result
    }
}
