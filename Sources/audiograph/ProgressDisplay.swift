import AudioGraph
import Foundation
import Synchronization

/// The run's status line on stderr: progress of file sources and the latest level, redrawn 10 times a second as
/// the screen's status line (`TerminalScreen`), on its own row under live captions. Does nothing when stderr is
/// not a terminal.
final class ProgressDisplay: Sendable {
    private let progress: @Sendable () -> [SourceProgress]
    private let ticker: StatusLineTicker
    private let level = Mutex<Double?>(nil)

    init(progress: @escaping @Sendable () -> [SourceProgress], enabled: Bool) {
        self.progress = progress
        ticker = StatusLineTicker(every: 0.1, enabled: enabled)
    }

    func start() {
        ticker.start { [self] in Self.line(progress(), level: level.withLock { $0 }) }
    }

    func observe(_ event: Event) {
        guard ticker.enabled, case .level(let reading) = event.payload else { return }
        level.withLock { $0 = reading.level }
    }

    func stop() { ticker.stop() }

    /// Removes the status line (drawn again on the next tick unless stopped).
    func clear() { ticker.clear() }

    /// Each source's bar (or its clock when its length is unknown) and the level; nil when there is neither.
    static func line(_ sources: [SourceProgress], level: Double?) -> String? {
        var parts: [String] = []
        for source in sources {
            if let fraction = source.fraction {
                let total = source.totalFrames.map { Double($0) / Double(source.sampleRate ?? 1) } ?? 0
                parts.append("\(source.node) [\(StatusText.bar(fraction, width: 30))] \(Int(fraction * 100))% "
                    + "\(StatusText.clock(source.seconds))/\(StatusText.clock(total))")
            } else {
                parts.append("\(source.node) \(StatusText.clock(source.seconds))")
            }
        }
        if let level { parts.append("level [\(StatusText.levelBar(level, width: 20))]") }
        return parts.isEmpty ? nil : parts.joined(separator: "  ")
    }
}
