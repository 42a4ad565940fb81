import AudioGraphCore
import Foundation

/// The built-in transcription pipeline `audiograph transcribe` runs, as an ordinary config: file source →
/// resampler (16 kHz mono) → VAD → recognizer → one caption sink per output format, with transcription on.
/// Each sink's path names the input (`InputTemplates`): `{dir}/{stem}.srt` next to the input, or
/// `OUT/{stem}.srt` in an output folder, so one config serves every file of a batch.
public struct TranscriptionPipeline: Sendable, Equatable {
    /// An output format: its name on the command line is its file extension.
    public enum Output: String, CaseIterable, Sendable {
        case srt, vtt, json, txt

        /// The `caption-sink` format that writes it.
        public var captionFormat: String { self == .vtt ? "webvtt" : rawValue }
    }

    public var outputs: [Output]
    /// The folder the outputs go to (absolute); nil: next to each input.
    public var outputDirectory: String?
    /// The recognizer's `language` (and the session's caption language); nil: the recognizer's default.
    public var language: String?
    /// The recognizer engine (`auto` picks whisper when its model is installed).
    public var engine: String

    public init(outputs: [Output] = [.srt], outputDirectory: String? = nil, language: String? = nil,
                engine: String = "auto") {
        self.outputs = outputs
        self.outputDirectory = outputDirectory
        self.language = language
        self.engine = engine
    }

    /// `srt,vtt`: the formats in the order given, each once; a usage error naming `option` for an unknown one.
    public static func outputs(from text: String, option: String = "-o") throws(GraphError) -> [Output] {
        var outputs: [Output] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            let alias = name == "webvtt" ? "vtt" : name
            guard let output = Output(rawValue: alias) else {
                throw GraphError(.usage, at: option, "unknown output format \"\(name)\""
                    + Suggestions.hint(for: name, in: Output.allCases.map(\.rawValue))
                    + "; formats: " + Output.allCases.map(\.rawValue).joined(separator: ", "))
            }
            if !outputs.contains(output) { outputs.append(output) }
        }
        return outputs
    }

    /// The id of the node that reads the input.
    public static let sourceNode = "src"

    /// The node writing `output`.
    public static func sinkNode(_ output: Output) -> String { output.rawValue }

    /// The path template a sink writes, with `InputTemplates` placeholders.
    public func pathTemplate(_ output: Output) -> String {
        (outputDirectory ?? "{dir}") + "/{stem}." + output.rawValue
    }

    /// The files transcribing `input` (an absolute path) writes, in the order of `outputs`.
    public func outputPaths(for input: String) -> [String] {
        outputs.map { InputTemplates.expand(pathTemplate($0), input: input, session: nil) }
    }

    /// The config, reading `input` (a path as the config should name it).
    public func config(input: String) -> JSONValue {
        var session: [(key: String, value: JSONValue)] = [("autoStartTranscription", .bool(true))]
        if let language { session.append(("captionLanguage", .string(language))) }
        var recognizer: [(key: String, value: JSONValue)] = [("type", "recognizer"), ("engine", .string(engine))]
        if let language { recognizer.append(("language", .string(language))) }
        var nodes: [(key: String, value: JSONValue)] = [
            (Self.sourceNode, .object(JSONObject([("type", "file-source"), ("path", .string(input))]))),
            ("rs", .object(JSONObject([("type", "resampler"), ("sampleRate", 16000), ("channels", 1)]))),
            ("vad", .object(JSONObject([("type", "vad")]))),
            ("asr", .object(JSONObject(recognizer))),
        ]
        var links: [JSONValue] = []
        for (index, output) in outputs.enumerated() {
            nodes.append((Self.sinkNode(output), .object(JSONObject([
                ("type", "caption-sink"), ("format", .string(output.captionFormat)),
                ("path", .string(pathTemplate(output))),
            ]))))
            links.append(.string(index == 0 ? "\(Self.sourceNode) -> rs -> vad -> asr -> \(Self.sinkNode(output))"
                : "asr -> \(Self.sinkNode(output))"))
        }
        return .object(JSONObject([
            ("version", .number(Double(GraphSpec.currentVersion))),
            ("session", .object(JSONObject(session))),
            ("nodes", .object(JSONObject(nodes))),
            ("links", .array(links)),
        ]))
    }

    /// The config as `audiograph transcribe --print-config` prints it (pretty JSON), with `overrides`
    /// (`--set NODE.PARAM=VALUE`) applied.
    public func configText(input: String, overrides: [String] = []) throws(GraphError) -> String {
        var root = config(input: input)
        for override in overrides { try ConfigLoader.apply(override: override, to: &root) }
        return JSONWriter.pretty(root) + "\n"
    }

    /// The config as a spec whose relative paths are from `baseDirectory`.
    public func spec(input: String, overrides: [String] = [], baseDirectory: String) throws(GraphError) -> GraphSpec {
        try ConfigLoader.parse(configText(input: input, overrides: overrides), baseDirectory: baseDirectory,
                               fileName: "transcribe pipeline")
    }
}
