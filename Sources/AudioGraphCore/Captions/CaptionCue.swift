/// One caption on screen: from `start` to `end` (stream seconds, whole milliseconds), one to `maxLines` lines.
public struct CaptionCue: Sendable, Equatable, CustomStringConvertible {
    public var start: Double
    public var end: Double
    public var lines: [String]

    public init(start: Double, end: Double, lines: [String]) {
        self.start = start
        self.end = end
        self.lines = lines
    }

    /// The cue's words, in order (its lines split at spaces; a run of Chinese or Japanese is one).
    public var words: [String] { lines.flatMap { $0.split(separator: " ").map(String.init) } }

    public var duration: Double { end - start }

    public var description: String {
        "\(CaptionTime.format(start, style: .webVTT)) --> \(CaptionTime.format(end, style: .webVTT)) \(lines)"
    }
}

/// Time stamps as the caption formats spell them.
public enum CaptionTime {
    public enum Style: Sendable {
        /// `00:01:02,345`
        case srt
        /// `00:01:02.345`
        case webVTT
        /// `01:02.34`, or `1:01:02.34` from an hour on: the live renderer's short form.
        case short
    }

    /// Whole milliseconds of `seconds` (negative and non-finite times read as 0).
    public static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int((seconds * 1000).rounded())
    }

    public static func format(_ seconds: Double, style: Style) -> String {
        let ms = milliseconds(seconds)
        let hours = ms / 3_600_000
        let minutes = ms / 60_000 % 60
        let secs = ms / 1000 % 60
        let millis = ms % 1000
        switch style {
        case .srt: return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secs, 2)),\(pad(millis, 3))"
        case .webVTT: return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secs, 2)).\(pad(millis, 3))"
        case .short:
            // Centiseconds, rounded down so a range never reads longer than it is.
            let centis = millis / 10
            let tail = "\(pad(secs, 2)).\(pad(centis, 2))"
            return hours > 0 ? "\(hours):\(pad(minutes, 2)):\(tail)" : "\(pad(minutes, 2)):\(tail)"
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
