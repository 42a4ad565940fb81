import Foundation

/// How many cues an SRT or WebVTT file holds, so a run can say when one ended with none (an empty SRT and a
/// header-only WebVTT are valid files that show nothing).
public enum CaptionFileCues {
    /// The number of cue timing lines (`00:00:01,200 --> 00:00:03,400`) in the file at `path`; nil when it
    /// cannot be read.
    public static func count(at path: String) -> Int? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return count(in: String(decoding: data, as: UTF8.self))
    }

    /// The number of cue timing lines in `text`.
    public static func count(in text: String) -> Int {
        text.split(whereSeparator: \.isNewline).filter { $0.contains(" --> ") }.count
    }
}
