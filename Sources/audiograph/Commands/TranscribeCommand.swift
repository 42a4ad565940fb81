import AudioGraph
import Foundation

/// `audiograph transcribe FILE...`: the built-in transcription pipeline (`TranscriptionPipeline`) over each file,
/// through the batch machinery (`BatchRunner`), writing NAME.srt and so on next to each input or into --out-dir.
struct TranscribeCommand: Command {
    static let name = "transcribe"
    static let abstract = "Transcribe audio files to SRT, WebVTT, JSON or text (the built-in pipeline)"
    static let usage = "audiograph transcribe FILE... [-o srt,vtt,json,txt] [--out-dir DIR] [--language CODE] [--engine NAME] "
        + "[--set NODE.PARAM=VALUE]... [--force] [--jobs N] [--json] [--print-config] [--quiet]"
    static let options = CommandOptions([
        .valued("-o", "FORMATS", "Outputs, comma-separated: srt, vtt, json, txt (default: srt)."),
        .valued("--out-dir", "DIR", "Write the outputs into DIR (created if missing) instead of next to each input."),
        .valued("--language", "CODE", "The spoken language (the recognizer's language, e.g. en-US; see `audiograph "
            + "inspect recognizer`)."),
        .valued("--engine", "NAME", "The recognizer engine (default auto: whisper when its model is installed, else "
            + "pocketsphinx)."),
        .valued("--set", "NODE.PARAM=VALUE", "Override a parameter of the pipeline (nodes src, rs, vad, asr, and "
            + "srt, vtt, json, txt) or session.KEY; repeatable."),
        .flag("--force", "Overwrite outputs that exist (without it an existing output is an error and nothing is "
            + "written)."),
        .valued("--jobs", "N", "Files at once (default: the number of cores)."),
        .flag("--json", "Print the summary as JSON on stdout."),
        .flag("--print-config", "Print the pipeline's config (for the first FILE) and exit."),
        .flag("--quiet", "No progress bar and no per-file lines on stderr."),
        .verbose,
    ])
    static let help = """
        \(abstract).

        USAGE: \(usage)

        Runs file-source → resampler (16 kHz mono) → vad → recognizer → one caption-sink per output format, with
        transcription on, and writes NAME.srt (and so on) next to each FILE, or into --out-dir. The pipeline is an
        ordinary config: --print-config prints it, and `audiograph run` runs the printed file the same way.

        \(options.help)

        EXIT CODES: 0 every file transcribed; 64 bad arguments (an unknown format or language); 65 a bad option value or outputs that collide;
        66 a FILE is missing; 69 no recognizer engine; 73 an output exists (without --force; its path is named,
        nothing is written) or cannot be created; 75 some of several files failed (each is listed); 130 interrupted.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        guard !args.positionals.isEmpty else { throw GraphError(.usage, at: "", "missing FILE; see --help") }
        let here = FileManager.default.currentDirectoryPath
        let inputs = args.positionals.map { NodeConfiguration.resolve($0, against: here) }
        let pipeline = TranscriptionPipeline(
            outputs: try TranscriptionPipeline.outputs(from: args.value("-o") ?? "srt"),
            outputDirectory: args.value("--out-dir").map { NodeConfiguration.resolve($0, against: here) },
            language: args.value("--language"), engine: args.value("--engine") ?? "auto")
        if let language = args.value("--language"), !SessionSettings.supportedLanguages.contains(language) {
            throw GraphError(.usage, at: "--language", "unsupported language \"\(language)\""
                + Suggestions.hint(for: language, in: SessionSettings.supportedLanguages)
                + "; supported: " + SessionSettings.supportedLanguages.joined(separator: ", "))
        }
        let overrides = args.values("--set")
        if args.flag("--print-config") {
            Console.writeOut(try pipeline.configText(input: inputs[0], overrides: overrides))
            return 0
        }
        for (input, given) in zip(inputs, args.positionals) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw GraphError(.missingInput, at: given, isDirectory.boolValue ? "is a folder, not an audio file" : "no such file")
            }
        }
        if !args.flag("--force") { try refuseExisting(inputs.flatMap(pipeline.outputPaths(for:))) }

        // Which engine transcribes, said before anything runs (issue 38: a silent fallback to pocketsphinx cost
        // accuracy without a word).
        let engineName = args.value("--engine") ?? "auto"
        let choice = RecognizerEngines.choose(engineName)
        let language = args.value("--language") ?? SessionSettings().captionLanguage
        let model = choice.flatMap { RecognizerEngines.defaultModelPath(of: $0.engine, language: language) }
        if let choice, !args.flag("--quiet") {
            printError("audiograph: note: engine \(choice.engine.name)" + (model.map { ", model \($0)" } ?? "")
                + (choice.reason.map { " (\($0))" } ?? ""))
        }
        if let choice, engineName == RecognizerEngines.auto, choice.engine.name != "whisper" {
            printError("audiograph: warning: no whisper model is installed, so \(choice.engine.name) transcribes (less "
                + "accurate); `audiograph models install \(RecognizerEngines.whisperModelName(forLanguage: language))` "
                + "installs one")
        }
        let batch = try BatchPipeline(spec: pipeline.spec(input: inputs[0], overrides: overrides, baseDirectory: here),
                                      configPath: "transcribe pipeline")
        let items = inputs.map { WorkItem(key: $0, path: $0) }
        let runner = try BatchOptions.runner(pipeline: batch, args: args, store: nil, registry: registry,
                                             firstPath: inputs[0], items: items, control: BatchControl())
        return try TranscribeRun(pipeline: pipeline, runner: runner, items: items, jobs: BatchOptions.jobs(args),
                                 json: args.flag("--json"), quiet: args.flag("--quiet"),
                                 engine: choice?.engine.name ?? engineName, model: model).run()
    }

    /// Exit 73 naming the first output that exists (and how many more do), before anything is written.
    static func refuseExisting(_ outputs: [String]) throws(GraphError) {
        let existing = outputs.filter { FileManager.default.fileExists(atPath: $0) }
        guard let first = existing.first else { return }
        throw GraphError(.cannotCreateOutput, at: first, "exists"
            + (existing.count > 1 ? " (and \(existing.count - 1) more output\(existing.count > 2 ? "s" : ""))" : "")
            + "; nothing was written: pass --force to overwrite, or --out-dir DIR to write elsewhere")
    }
}
