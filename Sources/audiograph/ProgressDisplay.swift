import AudioGraph
import Dispatch
import Foundation
import Synchronization

/// The terminal status line on stderr: progress of file sources and the latest level, redrawn 10 times a
/// second as the screen's status line (`TerminalScreen`), on its own row under live captions. Does nothing
/// when stderr is not a terminal.
/// `@unchecked Sendable`: `timer` is a dispatch source (thread-safe); the rest is behind a mutex.
final class ProgressDisplay: @unchecked Sendable {
    private let progress: @Sendable () -> [SourceProgress]
    private let enabled: Bool
    private let level = Mutex<Double?>(nil)
    private let timer: any DispatchSourceTimer

    init(progress: @escaping @Sendable () -> [SourceProgress], enabled: Bool) {
        self.progress = progress
        self.enabled = enabled
        timer = DispatchSource.makeTimerSource(queue: .global())
    }

    func start() {
        guard enabled else { return }
        timer.schedule(deadline: .now() + 0.1, repeating: 0.1)
        timer.setEventHandler { [self] in draw() }
        timer.resume()
    }

    func observe(_ event: Event) {
        guard enabled, case .level(let reading) = event.payload else { return }
        level.withLock { $0 = reading.level }
    }

    func stop() {
        guard enabled else { return }
        timer.cancel()
        clear()
    }

    /// Removes the status line (drawn again on the next tick unless stopped).
    func clear() {
        guard enabled else { return }
        Console.setStatus(nil)
    }

    private func draw() {
        var parts: [String] = []
        for source in progress() {
            if let fraction = source.fraction {
                let width = 30
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                let total = source.totalFrames.map { Double($0) / Double(source.sampleRate ?? 1) } ?? 0
                parts.append("\(source.node) [\(bar)] \(Int(fraction * 100))% \(Self.clock(source.seconds))/\(Self.clock(total))")
            } else {
                parts.append("\(source.node) \(Self.clock(source.seconds))")
            }
        }
        if let level = level.withLock({ $0 }) {
            let width = 20
            let filled = Int(level * Double(width))
            parts.append("level [" + String(repeating: "|", count: filled) + String(repeating: " ", count: width - filled) + "]")
        }
        guard !parts.isEmpty else { return }
        Console.setStatus(parts.joined(separator: "  "))
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds)
        return String(format: "%02d:%02d", total / 60, total % 60)
    }
}
