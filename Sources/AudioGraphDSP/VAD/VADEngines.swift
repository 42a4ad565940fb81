import AudioGraphCore
import Synchronization

/// A `vad` engine: the frame classifier behind the node's `engine` parameter. The decision logic after it
/// (`VADStateMachine`: `minSpeechMs`, `hangoverMs`, `preRollMs`, `pauseHintMs`, `maxSpeechMs`) is the same for all.
public struct VADEngine: Sendable {
    /// The `engine` value (`spectral`).
    public let name: String
    /// One line for docs/nodes.md and `audiograph inspect vad`.
    public let summary: String
    /// Parameters of its own, set on the node beside the common ones (checked when the graph is built).
    public let parameters: [ParameterSpec]
    /// The input rates it works at (the builder puts a resampler in front for others).
    public let sampleRates: [Int]
    /// Checks what it needs before audio flows (a model file: exit 69 at `nodes.ID.model`).
    public let validate: @Sendable (NodeConfiguration) throws -> Void
    /// Whether `engine: "auto"` may pick it (its default model is installed).
    public let availableByDefault: @Sendable () -> Bool
    /// Why it is not available, with what to do (for `auto`'s note); nil when it is.
    public let unavailableReason: @Sendable () -> String?
    /// A classifier for one stream at `sampleRate` (one of `sampleRates`).
    public let make: @Sendable (_ node: NodeConfiguration, _ sampleRate: Int, _ settings: VADConfiguration) throws
        -> any VADFrameClassifier

    public init(name: String, summary: String, parameters: [ParameterSpec] = [], sampleRates: [Int],
                validate: @escaping @Sendable (NodeConfiguration) throws -> Void = { _ in },
                availableByDefault: @escaping @Sendable () -> Bool = { true },
                unavailableReason: @escaping @Sendable () -> String? = { nil },
                make: @escaping @Sendable (NodeConfiguration, Int, VADConfiguration) throws -> any VADFrameClassifier) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.sampleRates = sampleRates
        self.validate = validate
        self.availableByDefault = availableByDefault
        self.unavailableReason = unavailableReason
        self.make = make
    }
}

/// The process-wide table of `vad` engines. `spectral` is built into this module; `silero` (whisper.cpp's VAD
/// API) is registered by the speech module (`NodeRegistry.builtins` does it), as this one does not link whisper.
/// A name is registered once, as in `RecognizerEngines`.
public enum VADEngines {
    /// The `spectral` engine: spectral flatness over an adaptive noise floor (`SpectralFrameClassifier`).
    public static let spectral = VADEngine(
        name: "spectral",
        summary: "spectral flatness of the speech band over an adaptive noise floor (FFTW), no model",
        sampleRates: VADNode.supportedSampleRates,
        make: { _, sampleRate, settings in
            SpectralFrameClassifier(sampleRate: sampleRate,
                                    classifier: VADClassifier(thresholds: .aggressiveness(settings.aggressiveness)))
        })

    private static let table = EngineTable(kind: "vad engine", builtIns: ["spectral": spectral], preference: autoPreference)
    private static let builtInNames = Mutex<Set<String>>(["spectral"])

    /// The `engine` value that picks the first engine of `autoPreference` that is registered and available.
    public static let auto = "auto"
    /// The `engine` a `vad` node without one uses.
    public static let defaultEngine = "spectral"
    /// What `engine: "auto"` tries, in order.
    public static let autoPreference = ["silero", "spectral"]

    /// Adds an engine; a name already registered is refused (`.invalidConfig`, exit 65). `builtIn` engines are
    /// listed in docs/nodes.md.
    public static func register(_ engine: VADEngine, builtIn: Bool = false) throws(GraphError) {
        try table.register(engine, named: engine.name)
        if builtIn { builtInNames.withLock { _ = $0.insert(engine.name) } }
    }

    public static func engine(named name: String) -> VADEngine? { table.engine(named: name) }

    public static var names: [String] { table.names }

    /// The config error for an `engine` value no engine answers to (`nodes.ID.engine`, did-you-mean, the list).
    public static func unknownEngine(_ name: String, in configuration: NodeConfiguration) -> GraphError {
        table.unknownEngine(name, in: configuration)
    }

    /// Registered engines, those of `autoPreference` first, then the others by name.
    public static var all: [VADEngine] { table.all }

    /// The engine an `engine` value names, and for `auto` why it was picked (nil reason for a named one).
    public static func choose(_ name: String) -> (engine: VADEngine, reason: String?)? {
        guard name == auto else { return engine(named: name).map { ($0, nil) } }
        var skipped: [String] = []
        for candidate in autoPreference {
            guard let engine = engine(named: candidate) else { continue }
            guard engine.availableByDefault() else {
                skipped.append(engine.unavailableReason() ?? "\(candidate) is not available")
                continue
            }
            return (engine, "auto: " + (skipped.isEmpty ? "\(candidate) available" : skipped.joined(separator: "; ")))
        }
        return nil
    }

    /// The `vad` node's parameter groups: each registered engine's own parameters, picked by `engine`.
    static let parameterGroups = ParameterGroups(
        selector: "engine",
        all: { all.map(group) },
        resolve: { name in choose(name).map { group($0.engine) } })

    private static func group(_ engine: VADEngine) -> ParameterGroups.Group {
        ParameterGroups.Group(name: engine.name, summary: engine.summary, parameters: engine.parameters,
                              builtIn: builtInNames.withLock { $0.contains(engine.name) })
    }
}
