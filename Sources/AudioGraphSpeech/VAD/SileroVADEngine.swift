import AudioGraphCore
import AudioGraphDSP
import AudioGraphWhisper

/// The `vad` node's `silero` engine: Silero VAD through whisper.cpp's VAD API, with the model
/// `audiograph models install silero` puts in the models folder (`ggml-silero.bin`) or any Silero ggml file.
public enum SileroVADEngine {
    /// The catalog name of the default model.
    public static let defaultModelName = WhisperModelCatalog.sileroVAD.name

    /// The default model file (the models folder of the environment that runs).
    public static func defaultModelPath() -> String {
        WhisperModelLocations.path(ofModel: defaultModelName)
    }

    static let threshold = Parameter.number(
        "threshold", range: 0.05...0.95, default: 0.5,
        doc: "Speech probability at which a 32 ms window is speech (it stays speech down to 0.15 "
            + "below, as silero-vad does). Default 0.5, silero-vad's.")

    public static let parameters: [ParameterSpec] = [
        ParameterSpec("model", .path(.input),
                      doc: "A Silero VAD ggml file; default: ggml-silero.bin in the models folder "
                          + "(`audiograph models install silero` puts it there)."),
        threshold.spec,
    ]

    static func modelPath(_ node: NodeConfiguration) -> String {
        node.path("model") ?? defaultModelPath()
    }

    /// Checks the model file (exit 69 at `nodes.ID.model`, naming the install command).
    static func validate(_ node: NodeConfiguration) throws {
        let path = modelPath(node)
        if case .failure(let problem) = SileroVADModelHeader.read(path) { throw modelError(problem, path, node) }
    }

    static func modelError(_ problem: SileroVADModelHeader.Problem, _ path: String, _ node: NodeConfiguration) -> GraphError {
        let what: String
        switch problem {
        case .missing: what = "no Silero VAD model at \(path)"
        case .notAFile: what = "\(path) is not a file"
        case .unreadable: what = "cannot read \(path)"
        case .notSilero(let reason): what = "\(path) is not a Silero VAD ggml model (\(reason))"
        }
        return node.error("silero vad model unavailable: \(what); install it with `audiograph models install "
                          + "\(defaultModelName)`", parameter: "model", code: .unavailable)
    }

    /// The engine for `VADEngines`.
    public static let engine = VADEngine(
        name: "silero",
        summary: "the Silero VAD model (ggml) through whisper.cpp's VAD API, 16 kHz",
        parameters: parameters,
        sampleRates: [SileroVADModel.sampleRate],
        validate: validate,
        availableByDefault: {
            if case .success = SileroVADModelHeader.read(defaultModelPath()) { return true }
            return false
        },
        unavailableReason: {
            if case .success = SileroVADModelHeader.read(defaultModelPath()) { return nil }
            return "no silero model at \(defaultModelPath()); audiograph models install \(defaultModelName)"
        },
        make: { node, _, _ in
            let path = modelPath(node)
            try validate(node)
            guard let model = SileroVADModel(path: path) else {
                throw modelError(.notSilero("whisper.cpp could not load it"), path, node)
            }
            return SileroFrameClassifier(model: model, threshold: Float(node[threshold]))
        })

    /// Adds the engine to `VADEngines` once (`NodeRegistry.builtins` calls it).
    public static func register() {
        _ = registration
    }

    private static let registration: Bool = {
        do {
            try VADEngines.register(engine, builtIn: true)
            return true
        } catch {
            return false
        }
    }()
}
