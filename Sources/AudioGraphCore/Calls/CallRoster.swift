import Synchronization

/// A call's participants while its graph runs, and the steering state a newcomer must start in: part of the
/// runtime's one locked state (`GraphRuntime.RuntimeState`), so a participant who connects while a command is
/// sent either gets it posted or starts in the state after it, never neither.
struct CallRoster {
    enum Phase: Equatable { case notOpened, open, ended }

    private(set) var phase = Phase.notOpened
    /// The participant-source of every branch that runs now.
    private(set) var sources: [RunningNode] = []
    /// Each branch's cancellation: a branch whose node failed stops alone; the call's `cancel` stops them all.
    private var flags: [ObjectIdentifier: CancellationFlag] = [:]
    /// Branches each participant has had (a reconnection is a new branch).
    private var branches: [String: Int] = [:]
    /// The last command of each steering kind (transcription, captions, language), in the order sent.
    private var steering: [(kind: String, command: ControlCommand)] = []

    /// Opens the call when the graph has started; false when it ended first (cancelled before it ran).
    mutating func open() -> Bool {
        guard phase == .notOpened else { return false }
        phase = .open
        return true
    }

    /// Ends the call: true when it was open (its shared nodes get the call's end of stream now). A call never
    /// opened stays closed.
    mutating func end() -> Bool {
        defer { phase = .ended }
        return phase == .open
    }

    /// Keeps `command` when it sets a steering state a newcomer must start in.
    mutating func record(_ command: ControlCommand) {
        let kind: String
        switch command {
        case .startTranscription, .stopTranscription: kind = "transcription"
        case .showCaptions, .hideCaptions: kind = "captions"
        case .setLanguage: kind = "language"
        case .flush, .custom: return
        }
        steering.removeAll { $0.kind == kind }
        steering.append((kind, command))
    }

    /// The commands a participant who connects now starts with, after the session's `initial` ones.
    func startingCommands(after initial: [ControlCommand]) -> [ControlCommand] {
        initial + steering.map(\.command)
    }

    /// Adds a branch's source; false when the call is not open (ended, or not yet started).
    mutating func join(_ source: RunningNode, cancellation: CancellationFlag) -> Bool {
        guard phase == .open else { return false }
        sources.append(source)
        flags[ObjectIdentifier(source)] = cancellation
        return true
    }

    mutating func leave(_ source: RunningNode) {
        sources.removeAll { $0 === source }
        flags[ObjectIdentifier(source)] = nil
    }

    /// The segment base of `participant`'s next branch: 0 for their first, then `SpeakerLabel.segmentsPerBranch`
    /// more for each reconnection.
    mutating func nextSegmentBase(for participant: String) -> Int {
        let count = branches[participant, default: 0]
        branches[participant] = count + 1
        return count * SpeakerLabel.segmentsPerBranch
    }

    /// Every branch's cancellation, to stop them all.
    func cancelAll() -> [CancellationFlag] { Array(flags.values) }
}
