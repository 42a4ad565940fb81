/// The JSON that crosses the plugin ABI (audiograph_plugin.h): how descriptors, configurations, events,
/// commands and recognizer values are spelled as text between the host and a plugin. Both sides use this same
/// code (each links its own copy), so what one writes the other reads. Exact: nothing is rounded.
///
/// Decoding throws `WireFormatError` naming what is wrong, so a plugin that sends garbage is refused with a
/// message instead of crashing the host.
public enum WireFormat {
    // MARK: Node descriptors

    public static func encode(_ descriptor: NodeDescriptor) -> JSONValue {
        var object: JSONObject = [
            "type": .string(descriptor.type), "summary": .string(descriptor.summary),
            "category": .string(descriptor.category.rawValue),
        ]
        object["parameters"] = .array(descriptor.parameters.map(encode))
        object["inputs"] = .array(descriptor.inputs.map { port in
            .object(["name": .string(port.name), "requires": .array(port.requires.sorted().map { .string($0.name) })])
        })
        object["outputs"] = .array(descriptor.outputs.map { port in
            .object(["name": .string(port.name), "produces": .array(port.produces.sorted().map { .string($0.name) }),
                     "forwardsInput": .bool(port.forwardsInput)])
        })
        object["acceptedFormats"] = encode(descriptor.acceptedFormats)
        switch descriptor.execution {
        case .inline: object["execution"] = .object(["mode": "inline"])
        case .queued(let capacity): object["execution"] = .object(["mode": "queued", "capacity": .number(Double(capacity))])
        }
        return .object(object)
    }

    public static func descriptor(_ value: JSONValue) throws(WireFormatError) -> NodeDescriptor {
        let object = try value.wireObject("descriptor")
        guard let category = NodeDescriptor.Category(rawValue: try object.wireString("category")) else {
            throw WireFormatError("descriptor.category must be source, filter or sink")
        }
        let parameters = try object.wireArray("parameters").map { value throws(WireFormatError) in try parameter(value) }
        let inputs = try object.wireArray("inputs").map { value throws(WireFormatError) -> NodeDescriptor.InputPort in
            let port = try value.wireObject("input port")
            return NodeDescriptor.InputPort(try port.wireString("name"), requires: Set(try port.wireStrings("requires").map { FrameKind($0) }))
        }
        let outputs = try object.wireArray("outputs").map { value throws(WireFormatError) -> NodeDescriptor.OutputPort in
            let port = try value.wireObject("output port")
            return NodeDescriptor.OutputPort(try port.wireString("name"), produces: Set(try port.wireStrings("produces").map { FrameKind($0) }),
                                             forwardsInput: try port.wireBool("forwardsInput"))
        }
        let execution: NodeDescriptor.Execution
        let executionObject = try (object["execution"] ?? .object(["mode": "inline"])).wireObject("execution")
        switch try executionObject.wireString("mode") {
        case "inline": execution = .inline
        case "queued": execution = .queued(capacity: max(1, try executionObject.wireInt("capacity")))
        default: throw WireFormatError("execution.mode must be inline or queued")
        }
        return NodeDescriptor(type: try object.wireString("type"), summary: try object.wireString("summary"), category: category,
                              parameters: parameters, inputs: inputs, outputs: outputs,
                              acceptedFormats: try formatRequirement(object["acceptedFormats"] ?? .object([:])),
                              execution: execution)
    }

    /// A list of parameters, as a declaration's `"parameters"` (and an engine's `parameters_json`) hold them.
    public static func encode(parameters: [ParameterSpec]) -> JSONValue { .array(parameters.map(encode)) }

    /// The list `encode(parameters:)` writes.
    public static func parameters(_ value: JSONValue) throws(WireFormatError) -> [ParameterSpec] {
        guard let items = value.arrayValue else { throw WireFormatError("parameters: expected an array") }
        var specs: [ParameterSpec] = []
        for item in items { specs.append(try parameter(item)) }
        return specs
    }

    static func encode(_ parameter: ParameterSpec) -> JSONValue {
        var object: JSONObject = ["name": .string(parameter.name), "doc": .string(parameter.doc),
                                  "required": .bool(parameter.required)]
        switch parameter.kind {
        case .integer(let range):
            object["kind"] = "integer"
            if let range { object["range"] = .array([.number(Double(range.lowerBound)), .number(Double(range.upperBound))]) }
        case .number(let range):
            object["kind"] = "number"
            if let range { object["range"] = .array([.number(range.lowerBound), .number(range.upperBound)]) }
        case .boolean: object["kind"] = "boolean"
        case .string: object["kind"] = "string"
        case .choice(let options):
            object["kind"] = "choice"
            object["options"] = .array(options.map { .string($0) })
        case .path(let role):
            object["kind"] = "path"
            object["role"] = .string(role.name)
        }
        if let value = parameter.defaultValue { object["default"] = value }
        return .object(object)
    }

    static func parameter(_ value: JSONValue) throws(WireFormatError) -> ParameterSpec {
        let object = try value.wireObject("parameter")
        let name = try object.wireString("name")
        let kind: ParameterSpec.Kind
        let range = object["range"]?.arrayValue?.compactMap(\.doubleValue)
        switch try object.wireString("kind") {
        case "integer":
            // Whole numbers only (below 9e15): 1e999 or 1e19 has no Int, and converting it would trap.
            let items = object["range"]?.arrayValue ?? []
            let bounds: [Int] = items.compactMap(\.intValue)
            guard bounds.count == items.count else {
                throw WireFormatError("parameter \(name): an integer range must be two whole numbers below 9e15")
            }
            kind = .integer(range: bounds.count == 2 && bounds[0] <= bounds[1] ? bounds[0]...bounds[1] : nil)
        case "number":
            // Finite bounds only: 1e999 parses as infinity, which JSON cannot carry back (it encodes as null).
            guard range?.allSatisfy(\.isFinite) ?? true else {
                throw WireFormatError("parameter \(name): a number range must be two finite numbers")
            }
            kind = .number(range: range.flatMap { $0.count == 2 && $0[0] <= $0[1] ? $0[0]...$0[1] : nil })
        case "boolean": kind = .boolean
        case "string": kind = .string
        case "choice": kind = .choice(try object.wireStrings("options"))
        case "path":
            let role = try object.wireString("role")
            guard let known = ParameterSpec.PathRole.allCases.first(where: { $0.name == role }) else {
                throw WireFormatError("parameter \(name): unknown path role \"\(role)\"; roles: "
                    + ParameterSpec.PathRole.allCases.map(\.name).joined(separator: ", "))
            }
            kind = .path(known)
        case let other: throw WireFormatError("parameter \(name): unknown kind \"\(other)\"")
        }
        return ParameterSpec(name, kind, default: object["default"], required: object["required"]?.boolValue ?? false,
                             doc: object["doc"]?.stringValue ?? "")
    }

    static func encode(_ requirement: FormatRequirement) -> JSONValue {
        var object = JSONObject()
        if let rates = requirement.sampleRates { object["sampleRates"] = .array(rates.map { .number(Double($0)) }) }
        if let channels = requirement.channels {
            object["channels"] = .array([.number(Double(channels.lowerBound)), .number(Double(channels.upperBound))])
        }
        return .object(object)
    }

    static func formatRequirement(_ value: JSONValue) throws(WireFormatError) -> FormatRequirement {
        let object = try value.wireObject("acceptedFormats")
        let rates = object["sampleRates"]?.arrayValue?.compactMap(\.intValue)
        let channels = object["channels"]?.arrayValue?.compactMap(\.intValue)
        guard channels == nil || (channels!.count == 2 && channels![0] <= channels![1] && channels![0] >= 1) else {
            throw WireFormatError("acceptedFormats.channels must be [low, high]")
        }
        return FormatRequirement(sampleRates: rates, channels: channels.map { $0[0]...$0[1] })
    }

    // MARK: Configurations

    public static func encode(_ configuration: NodeConfiguration) -> JSONValue {
        .object(["id": .string(configuration.id), "type": .string(configuration.type), "values": .object(configuration.values),
                 "baseDirectory": .string(configuration.baseDirectory), "session": encode(configuration.session)])
    }

    public static func configuration(_ value: JSONValue) throws(WireFormatError) -> NodeConfiguration {
        let object = try value.wireObject("configuration")
        guard case .object(let values)? = object["values"] else { throw WireFormatError("configuration.values must be an object") }
        return NodeConfiguration(id: try object.wireString("id"), type: try object.wireString("type"), values: values,
                                 baseDirectory: try object.wireString("baseDirectory"),
                                 session: try session(object["session"] ?? .object([:])))
    }

    static func encode(_ session: SessionSettings) -> JSONValue {
        var object: JSONObject = ["autoStartTranscription": .bool(session.autoStartTranscription),
                                  "captions": .bool(session.captions), "captionLanguage": .string(session.captionLanguage),
                                  "participants": .array(session.participants.map { .string($0) })]
        if let id = session.id { object["id"] = .string(id) }
        if let room = session.room { object["room"] = .string(room) }
        return .object(object)
    }

    static func session(_ value: JSONValue) throws(WireFormatError) -> SessionSettings {
        let object = try value.wireObject("session")
        return SessionSettings(id: object["id"]?.stringValue, room: object["room"]?.stringValue,
                               autoStartTranscription: object["autoStartTranscription"]?.boolValue ?? false,
                               captions: object["captions"]?.boolValue ?? false,
                               captionLanguage: object["captionLanguage"]?.stringValue ?? "en-US",
                               participants: object["participants"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    // MARK: Formats

    public static func encode(_ format: AudioFormat?) -> JSONValue {
        guard let format else { return .null }
        return .object(["sampleRate": .number(Double(format.sampleRate)), "channels": .number(Double(format.channels))])
    }

    public static func format(_ value: JSONValue?) throws(WireFormatError) -> AudioFormat? {
        guard let value, value != .null else { return nil }
        let object = try value.wireObject("format")
        let rate = try object.wireInt("sampleRate")
        let channels = try object.wireInt("channels")
        guard rate > 0, channels > 0 else { throw WireFormatError("a format needs a positive rate and channel count") }
        return AudioFormat(sampleRate: rate, channels: channels)
    }

    // MARK: Events and commands

    public static func encode(_ event: Event) -> JSONValue {
        var object: JSONObject = ["type": .string(event.payload.typeName), "node": .string(event.node),
                                  "time": .number(event.time)]
        switch event.payload {
        case .level(let reading):
            object["level"] = .number(reading.level)
            object["rmsDb"] = .array(reading.rmsDb.map { .number($0.isFinite ? $0 : -1000) })
            object["peakDb"] = .array(reading.peakDb.map { .number($0.isFinite ? $0 : -1000) })
        case .speechStarted, .speechEnded: break
        case .transcript(let update):
            object["final"] = .bool(update.isFinal)
            object["segment"] = .number(Double(update.segment))
            object["revision"] = .number(Double(update.revision))
            object["start"] = .number(update.start)
            object["end"] = .number(update.end)
            object["text"] = .string(update.text)
            if let confidence = update.confidence { object["confidence"] = .number(confidence) }
            object["words"] = encode(update.words)
            if let language = update.language { object["language"] = .string(language) }
        case .custom(_, let kind, let fields):
            object["kind"] = .string(kind.name)
            for (key, value) in fields.entries where object[key] == nil { object[key] = value }
        }
        return .object(object)
    }

    public static func event(_ value: JSONValue) throws(WireFormatError) -> Event {
        let object = try value.wireObject("event")
        let type = try object.wireString("type")
        let time = object["time"]?.doubleValue ?? 0
        let node = object["node"]?.stringValue ?? ""
        let payload: EventPayload
        switch type {
        case "level":
            payload = .level(LevelReading(level: object["level"]?.doubleValue ?? 0,
                                          rmsDb: object["rmsDb"]?.arrayValue?.compactMap(\.doubleValue) ?? [],
                                          peakDb: object["peakDb"]?.arrayValue?.compactMap(\.doubleValue) ?? []))
        case "speechStarted": payload = .speechStarted
        case "speechEnded": payload = .speechEnded
        case "transcript":
            payload = .transcript(TranscriptUpdate(
                segment: try object.wireInt("segment"), revision: try object.wireInt("revision"),
                isFinal: try object.wireBool("final"), start: object["start"]?.doubleValue ?? time,
                end: object["end"]?.doubleValue ?? time, text: try object.wireString("text"),
                confidence: object["confidence"]?.doubleValue, words: try words(object["words"]),
                language: object["language"]?.stringValue))
        default:
            var fields = object
            for key in ["type", "node", "time", "kind"] { fields[key] = nil }
            payload = .custom(type: type, kind: FrameKind(object["kind"]?.stringValue ?? type), fields: fields)
        }
        return Event(node: node, time: time, payload: payload)
    }

    public static func encode(_ command: ControlCommand) -> JSONValue {
        switch command {
        case .startTranscription: return .object(["command": "startTranscription"])
        case .stopTranscription: return .object(["command": "stopTranscription"])
        case .showCaptions: return .object(["command": "showCaptions"])
        case .hideCaptions: return .object(["command": "hideCaptions"])
        case .setLanguage(let language): return .object(["command": "setLanguage", "language": .string(language)])
        case .flush: return .object(["command": "flush"])
        case .custom(let name, let arguments):
            return .object(["command": "custom", "name": .string(name), "arguments": .object(arguments)])
        }
    }

    public static func command(_ value: JSONValue) throws(WireFormatError) -> ControlCommand {
        let object = try value.wireObject("command")
        switch try object.wireString("command") {
        case "startTranscription": return .startTranscription
        case "stopTranscription": return .stopTranscription
        case "showCaptions": return .showCaptions
        case "hideCaptions": return .hideCaptions
        case "setLanguage": return .setLanguage(try object.wireString("language"))
        case "flush": return .flush
        case "custom": return .custom(name: try object.wireString("name"), arguments: object["arguments"]?.objectValue ?? [:])
        case let other: throw WireFormatError("unknown command \"\(other)\"")
        }
    }

    // MARK: Recognizers

    public static func encode(_ options: RecognizerOptions) -> JSONValue {
        .object(["language": .string(options.language), "parameters": .object(options.parameters),
                 "verbose": .bool(options.verbose), "wantsPartials": .bool(options.wantsPartials),
                 "node": encode(options.node)])
    }

    public static func recognizerOptions(_ value: JSONValue) throws(WireFormatError) -> RecognizerOptions {
        let object = try value.wireObject("options")
        var options = RecognizerOptions(language: try object.wireString("language"),
                                        parameters: object["parameters"]?.objectValue ?? [:],
                                        verbose: object["verbose"]?.boolValue ?? false,
                                        node: try configuration(object["node"] ?? .null))
        options.wantsPartials = object["wantsPartials"]?.boolValue ?? true
        return options
    }

    public static func encode(_ capabilities: RecognizerCapabilities) -> JSONValue {
        .object(["streaming": .bool(capabilities.streaming), "partialResults": .bool(capabilities.partialResults),
                 "wordTimings": .bool(capabilities.wordTimings), "languages": .array(capabilities.languages.map { .string($0) }),
                 "sampleRate": .number(Double(capabilities.sampleRate)),
                 "context": .object(["leadIn": .number(capabilities.context.leadIn), "tail": .number(capabilities.context.tail)])])
    }

    public static func capabilities(_ value: JSONValue) throws(WireFormatError) -> RecognizerCapabilities {
        let object = try value.wireObject("capabilities")
        let rate = try object.wireInt("sampleRate")
        guard rate > 0 else { throw WireFormatError("capabilities.sampleRate must be positive") }
        // A plugin built before `context` existed sends none: the node's default.
        var context = UtteranceContext()
        if let declared = object["context"]?.objectValue {
            context.leadIn = declared["leadIn"]?.doubleValue ?? context.leadIn
            context.tail = declared["tail"]?.doubleValue ?? context.tail
            guard context.leadIn >= 0, context.tail >= 0 else {
                throw WireFormatError("capabilities.context.leadIn and .tail must not be negative")
            }
        }
        return RecognizerCapabilities(streaming: try object.wireBool("streaming"), partialResults: try object.wireBool("partialResults"),
                                      wordTimings: try object.wireBool("wordTimings"), languages: try object.wireStrings("languages"),
                                      sampleRate: rate, context: context)
    }

    public static func encode(_ result: RecognitionResult) -> JSONValue {
        var object: JSONObject = ["text": .string(result.text), "words": encode(result.words)]
        if let confidence = result.confidence { object["confidence"] = .number(confidence) }
        return .object(object)
    }

    public static func recognitionResult(_ value: JSONValue) throws(WireFormatError) -> RecognitionResult {
        let object = try value.wireObject("result")
        return RecognitionResult(text: try object.wireString("text"), confidence: object["confidence"]?.doubleValue,
                                 words: try words(object["words"]))
    }

    static func encode(_ words: [TranscriptUpdate.Word]) -> JSONValue {
        .array(words.map { word in
            var object: JSONObject = ["word": .string(word.word), "start": .number(word.start), "end": .number(word.end)]
            if let confidence = word.confidence { object["confidence"] = .number(confidence) }
            return .object(object)
        })
    }

    static func words(_ value: JSONValue?) throws(WireFormatError) -> [TranscriptUpdate.Word] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value else { throw WireFormatError("words must be an array") }
        return try items.map { item throws(WireFormatError) in
            let object = try item.wireObject("word")
            return TranscriptUpdate.Word(word: try object.wireString("word"), start: object["start"]?.doubleValue ?? 0,
                                         end: object["end"]?.doubleValue ?? 0, confidence: object["confidence"]?.doubleValue)
        }
    }

    // MARK: Text

    /// Parses JSON text that came over the ABI.
    public static func parse(_ text: String) throws(WireFormatError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw WireFormatError("not JSON: \(error)")
        }
    }

    public static func text(_ value: JSONValue) -> String { JSONWriter.exact(value) }
}

/// JSON from the other side of the plugin ABI that does not say what it should.
public struct WireFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension JSONValue {
    public func wireObject(_ what: String) throws(WireFormatError) -> JSONObject {
        guard case .object(let object) = self else { throw WireFormatError("\(what) must be a JSON object") }
        return object
    }
}

extension JSONObject {
    public func wireString(_ key: String) throws(WireFormatError) -> String {
        guard let value = self[key]?.stringValue else { throw WireFormatError("\"\(key)\" must be a string") }
        return value
    }

    public func wireInt(_ key: String) throws(WireFormatError) -> Int {
        guard let value = self[key]?.intValue else { throw WireFormatError("\"\(key)\" must be an integer") }
        return value
    }

    public func wireBool(_ key: String) throws(WireFormatError) -> Bool {
        guard let value = self[key]?.boolValue else { throw WireFormatError("\"\(key)\" must be true or false") }
        return value
    }

    public func wireArray(_ key: String) throws(WireFormatError) -> [JSONValue] {
        guard case .array(let items)? = self[key] else { throw WireFormatError("\"\(key)\" must be an array") }
        return items
    }

    public func wireStrings(_ key: String) throws(WireFormatError) -> [String] {
        let items = try wireArray(key)
        let strings = items.compactMap(\.stringValue)
        guard strings.count == items.count else { throw WireFormatError("\"\(key)\" must be an array of strings") }
        return strings
    }
}
