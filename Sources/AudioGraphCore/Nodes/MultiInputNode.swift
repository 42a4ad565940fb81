/// Which of a node's feeders a frame came from: the upstream node's id (for messages) and a number of the
/// runtime's own, unique for the run, so that two participants' branches with the same node ids stay apart.
public struct FeederID: Hashable, Sendable, CustomStringConvertible {
    /// The feeding node's id.
    public let node: String
    /// Unique among the run's running nodes.
    public let serial: Int

    public init(node: String, serial: Int) {
        self.node = node
        self.serial = serial
    }

    public var description: String { "\(node)#\(serial)" }
}

/// A node that tells its feeders apart (a mixer): the runtime says which feeder each block of audio came from,
/// and when each feeder's stream ends. Its input port is declared with `acceptsManyLinks`, so any number of
/// links (and a call's participants, as they come and go) feed it; the builder gives it a queue, so every call
/// still comes from one thread at a time.
///
/// Events and commands arrive through `handle` as for any node; `finish` comes once, after every feeder ended.
public protocol MultiInputNode: AudioNode {
    /// Audio from one feeder.
    func process(_ buffer: AudioBuffer, from feeder: FeederID, _ context: NodeContext) throws
    /// `feeder` has ended its stream (a file ended, a participant left). Nothing more comes from it.
    func feederEnded(_ feeder: FeederID, _ context: NodeContext) throws
}

extension MultiInputNode {
    public func feederEnded(_ feeder: FeederID, _ context: NodeContext) throws {}
}
