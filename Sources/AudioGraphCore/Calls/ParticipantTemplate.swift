/// The config's `participant` block: the nodes every participant of a call gets, declared once. One node is a
/// `participant-source` (the participant's audio, over the network); links may go from the block's nodes to
/// the graph's own nodes (caption sinks, the store, a mixer), which then take any number of participants.
///
/// ```json
/// "participant": {
///   "nodes": {
///     "in":  { "type": "participant-source" },
///     "rs":  { "type": "resampler", "sampleRate": 16000, "channels": 1 },
///     "vad": { "type": "vad" },
///     "asr": { "type": "recognizer" }
///   },
///   "links": ["in -> rs -> vad -> asr -> captions", "asr -> store"]
/// }
/// ```
public struct ParticipantTemplate: Sendable {
    public var nodes: [NodeSpec]
    public var links: [LinkSpec]

    /// The node type that brings a participant's audio in.
    public static let sourceType = "participant-source"

    public init(nodes: [NodeSpec], links: [LinkSpec]) {
        self.nodes = nodes
        self.links = links
    }
}
