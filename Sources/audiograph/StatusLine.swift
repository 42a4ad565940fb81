import Dispatch
import Foundation

/// The pieces the terminal status lines are drawn from (run, batch and capture use the same ones).
enum StatusText {
    /// `fraction` (clamped to 0…1) of `width` cells drawn with `full`, the rest with `empty`; no brackets.
    static func bar(_ fraction: Double, width: Int, full: Character = "#", empty: Character = "-") -> String {
        let cells = Int(min(1, max(0, fraction.isFinite ? fraction : 0)) * Double(width))
        return String(repeating: full, count: cells) + String(repeating: empty, count: width - cells)
    }

    /// A level bar (`|` cells on blanks), as the run and capture status lines show it.
    static func levelBar(_ level: Double, width: Int) -> String { bar(level, width: width, full: "|", empty: " ") }

    /// `mm:ss` of whole seconds.
    static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds.isFinite ? seconds : 0))
        return String(format: "%02d:%02d", total / 60, total % 60)
    }
}

/// Redraws the terminal status line (`Console.setStatus`) every `interval` seconds, until stopped; nothing at all
/// when not enabled (stderr is not a terminal, or `--quiet`).
/// `@unchecked Sendable`: the timer is a dispatch source (thread-safe), made in `init` and never replaced.
final class StatusLineTicker: @unchecked Sendable {
    private let interval: Double
    /// Made only when enabled: a dispatch source released without ever being resumed traps.
    private let timer: (any DispatchSourceTimer)?

    init(every interval: Double, enabled: Bool) {
        self.interval = interval
        timer = enabled ? DispatchSource.makeTimerSource(queue: .global()) : nil
    }

    var enabled: Bool { timer != nil }

    /// Starts redrawing; call once.
    /// - Parameter line: the status line to show now; nil leaves the last one as it is.
    func start(line: @escaping @Sendable () -> String?) {
        guard let timer else { return }
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler {
            if let text = line() { Console.setStatus(text) }
        }
        timer.resume()
    }

    /// Stops redrawing and removes the status line.
    func stop() {
        guard let timer else { return }
        timer.cancel()
        clear()
    }

    /// Removes the status line (drawn again on the next tick unless stopped).
    func clear() {
        guard enabled else { return }
        Console.setStatus(nil)
    }
}
