/// A kind of frame a node can consume or produce. Node declarations use these so the graph builder can
/// reject, before any audio flows, a link whose consumer needs frames its producer cannot make.
///
/// Extensible: a plugin can declare its own kinds (`FrameKind("keyword")`).
public struct FrameKind: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let name: String

    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }

    /// Raw audio buffers.
    public static let audio: FrameKind = "audio"
    /// Level readings from a level meter.
    public static let level: FrameKind = "level"
    /// `speechStarted` / `speechEnded` from a voice-activity detector.
    public static let speech: FrameKind = "speech"
    /// Partial and final transcript results from a recognizer.
    public static let transcript: FrameKind = "transcript"

    public var description: String { name }
    public static func < (lhs: FrameKind, rhs: FrameKind) -> Bool { lhs.name < rhs.name }
}
