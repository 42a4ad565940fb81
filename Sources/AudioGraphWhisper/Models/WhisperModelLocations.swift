import Foundation

/// Where whisper models live: the project's data folder (XDG), with the default model's file name.
public enum WhisperModelLocations {
    /// The model the `whisper` engine uses when a config gives no `model`.
    public static let defaultModelName = "tiny.en"
    /// The multilingual model `audiograph models install` knows (for captions in languages other than English).
    public static let multilingualModelName = "base"

    /// `$AUDIOGRAPH_MODELS_DIR`, else `$XDG_DATA_HOME/audiograph/models`, else `~/.local/share/audiograph/models`.
    public static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["AUDIOGRAPH_MODELS_DIR"], !explicit.isEmpty { return explicit }
        let data: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = xdg
        } else {
            data = (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        }
        return data + "/audiograph/models"
    }

    /// The ggml file of a model by name: `ggml-NAME.bin` in the models folder.
    public static func path(ofModel name: String,
                            environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        folder(environment: environment) + "/ggml-\(name).bin"
    }

    /// The default model's file.
    public static func defaultModelPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        path(ofModel: defaultModelName, environment: environment)
    }

    /// The model a config without `model` decodes a caption language with: tiny.en for English (en-US, en-GB),
    /// the multilingual model for every other language.
    public static func defaultModelName(forLanguage code: String) -> String {
        WhisperLanguages.english.contains(code) ? defaultModelName : multilingualModelName
    }

    /// The file of `defaultModelName(forLanguage:)`.
    public static func defaultModelPath(forLanguage code: String,
                                        environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        path(ofModel: defaultModelName(forLanguage: code), environment: environment)
    }
}
