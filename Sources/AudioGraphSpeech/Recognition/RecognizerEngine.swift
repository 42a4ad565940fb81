import AudioGraphCore
import AudioGraphWhisper
import Foundation

/// The process-wide table of recognizer engines. `whisper` and `pocketsphinx` are built in; tests, embedders and
/// plugins register more. A name is registered once, as in `NodeRegistry`.
public enum RecognizerEngines {
    /// The engines of this build (docs/nodes.md lists their parameters).
    private static let builtIns: [String: RecognizerEngine] = ["whisper": WhisperEngine.engine,
                                                               "pocketsphinx": PocketSphinxEngine.engine]
    private static let table = EngineTable(kind: "recognizer engine", builtIns: builtIns, preference: autoPreference)

    /// The `engine` value that picks the first engine of `autoPreference` that is registered and available.
    public static let auto = "auto"
    /// What `engine: "auto"` tries, in order.
    public static let autoPreference = ["whisper", "pocketsphinx"]

    /// Adds an engine; a name already registered is refused (`.invalidConfig`, exit 65).
    public static func register(_ engine: RecognizerEngine) throws(GraphError) {
        try table.register(engine, named: engine.name)
    }

    public static func engine(named name: String) -> RecognizerEngine? { table.engine(named: name) }

    public static var names: [String] { table.names }

    /// The config error for an `engine` value no engine answers to (`nodes.ID.engine`, did-you-mean, the list).
    public static func unknownEngine(_ name: String, in configuration: NodeConfiguration) -> GraphError {
        table.unknownEngine(name, in: configuration)
    }

    /// Registered engines, the built-ins of `autoPreference` first, then the others by name.
    public static var all: [RecognizerEngine] { table.all }

    /// The engine an `engine` value names, and for `auto` why it was picked.
    public struct Choice: Sendable {
        public let engine: RecognizerEngine
        /// For `auto`: why this engine ("auto: model …/ggml-tiny.en.bin found"); nil for an engine named outright.
        public let reason: String?
    }

    /// The engine `name` stands for (`auto`: the first of `autoPreference` registered and `availableByDefault`).
    public static func choose(_ name: String) -> Choice? {
        guard name == auto else { return engine(named: name).map { Choice(engine: $0, reason: nil) } }
        var skipped: [String] = []
        for candidate in autoPreference {
            guard let engine = engine(named: candidate) else {
                skipped.append("no \(candidate) engine in this build")
                continue
            }
            guard engine.availableByDefault() else {
                skipped.append(unavailableReason(engine))
                continue
            }
            let why = skipped.isEmpty ? availableReason(engine) : skipped.joined(separator: "; ")
            return Choice(engine: engine, reason: "auto: " + why)
        }
        return nil
    }

    /// The model file `engine` uses when a config names none, for `language` (whisper's follows the language:
    /// tiny.en for English, the multilingual base for the others); nil for an engine without a model file.
    public static func defaultModelPath(of engine: RecognizerEngine, language: String) -> String? {
        if engine.name == "whisper" {
            return WhisperModelLocations.path(ofModel: WhisperModelLocations.defaultModelName(forLanguage: language))
        }
        return defaultModel(engine)?.path
    }

    /// The whisper model `audiograph models install` puts in place for `language` (`tiny.en`, `base`).
    public static func whisperModelName(forLanguage language: String) -> String {
        WhisperModelLocations.defaultModelName(forLanguage: language)
    }

    /// The default model file an engine needs: its first input path parameter with a default.
    private static func defaultModel(_ engine: RecognizerEngine) -> (name: String, path: String)? {
        // whisper's default model is found at run time (the models folder of the environment that runs), so its
        // `model` has no JSON default to read.
        if engine.name == "whisper" { return ("model", WhisperModelLocations.defaultModelPath()) }
        for spec in engine.parameters {
            guard case .path(let role) = spec.kind, [.input, .inputFolder, .model].contains(role),
                  let path = spec.defaultValue?.stringValue else { continue }
            return (spec.name, path)
        }
        return nil
    }

    private static func availableReason(_ engine: RecognizerEngine) -> String {
        if let model = defaultModel(engine) { return "\(model.name) \(model.path) found" }
        return "first available of " + autoPreference.joined(separator: ", ")
    }

    private static func unavailableReason(_ engine: RecognizerEngine) -> String {
        guard let model = defaultModel(engine) else { return "\(engine.name) is not available" }
        let install = engine.name == "whisper" ? "; audiograph models install \(WhisperModelLocations.defaultModelName)" : ""
        return "no \(engine.name) \(model.name) at \(model.path)\(install)"
    }

    /// The recognizer node's parameter groups: each registered engine's own parameters, picked by `engine`.
    static let parameterGroups = ParameterGroups(
        selector: "engine",
        all: { all.map(group) },
        resolve: { name in choose(name).map { group($0.engine) } })

    private static func group(_ engine: RecognizerEngine) -> ParameterGroups.Group {
        ParameterGroups.Group(name: engine.name, summary: engine.summary, parameters: engine.parameters,
                              builtIn: builtIns[engine.name] != nil)
    }
}
