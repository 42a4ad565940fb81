/// A role: a node that draws on the terminal while the graph runs (live captions), through
/// `TerminalScreen.shared` like the CLI's own messages and status line. The session layer uses it to tell
/// whether captions would show anything (`SilentOutputWarning`).
public protocol TerminalWriter: AnyObject {
    /// Whether this node writes to the terminal in its current configuration.
    var writesToTerminal: Bool { get }
}
