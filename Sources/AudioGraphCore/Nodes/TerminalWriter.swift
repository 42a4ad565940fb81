/// A role: a node that draws on the terminal while the graph runs (live captions). The CLI hides its own
/// status line while such a node shares the terminal, so the two do not overwrite each other.
public protocol TerminalWriter: AnyObject {
    /// Whether this node writes to the terminal in its current configuration.
    var writesToTerminal: Bool { get }
}
