import AudioGraphCore
import CAudioGraphPlugin

/// A recognizer engine exported by a plugin, as a `RecognizerEngine` the recognizer node can pick by name.
public struct PluginEngineType: Sendable {
    public let name: String
    public let summary: String
    /// The engine's own parameters (ABI 2's `parameters_json`).
    public let parameters: [ParameterSpec]
    let table: PluginTable<ag_engine_type>
    let freeString: PluginFree
    public let origin: String

    /// The engine, as the recognizer node sees it.
    public var engine: RecognizerEngine {
        let table = self.table
        let free = freeString
        let name = self.name
        return RecognizerEngine(
            name: name, summary: summary + " (plugin: \(origin))", parameters: parameters,
            capabilities: { options in
                let json = WireFormat.text(WireFormat.encode(options))
                guard let text = free.take(table.table.capabilities(table.table.type_context, json)),
                      let capabilities = try? WireFormat.capabilities(WireFormat.parse(text)) else {
                    // An engine that cannot say what it does can do nothing: every language is refused.
                    return RecognizerCapabilities(streaming: false, partialResults: false, wordTimings: false,
                                                  languages: [], sampleRate: 16000)
                }
                return capabilities
            },
            validate: { options in
                var error = ag_error()
                let json = WireFormat.text(WireFormat.encode(options))
                guard table.table.validate(table.table.type_context, json, &error) == AG_OK else {
                    throw PluginCallError.graphError(error, configuration: options.node, atBuild: true)
                }
            },
            make: { options in
                var error = ag_error()
                let json = WireFormat.text(WireFormat.encode(options))
                guard let instance = table.table.create(table.table.type_context, json, &error) else {
                    throw PluginCallError.graphError(error, configuration: options.node, atBuild: false)
                }
                let capabilities = try WireFormat.capabilities(WireFormat.parse(
                    free.take(table.table.capabilities(table.table.type_context, json)) ?? "null"))
                return PluginRecognizer(instance: instance, table: table, free: free, capabilities: capabilities,
                                        node: options.node)
            })
    }
}

/// One decoder of a plugin engine. Confinement: the recognizer node drives it from one thread at a time.
final class PluginRecognizer: SpeechRecognizer {
    let capabilities: RecognizerCapabilities
    private let instance: UnsafeMutableRawPointer
    private let table: PluginTable<ag_engine_type>
    private let free: PluginFree
    private let node: NodeConfiguration

    init(instance: UnsafeMutableRawPointer, table: PluginTable<ag_engine_type>, free: PluginFree,
         capabilities: RecognizerCapabilities, node: NodeConfiguration) {
        self.instance = instance
        self.table = table
        self.free = free
        self.capabilities = capabilities
        self.node = node
    }

    deinit { table.table.destroy(instance) }

    func startUtterance() throws {
        var error = ag_error()
        guard table.table.start_utterance(instance, &error) == AG_OK else { throw failure(error) }
    }

    func process(_ samples: UnsafeBufferPointer<Float>) throws {
        var error = ag_error()
        guard table.table.process(instance, samples.baseAddress, Int64(samples.count), &error) == AG_OK else {
            throw failure(error)
        }
    }

    func partialHypothesis() -> String {
        free.take(table.table.partial_hypothesis(instance)) ?? ""
    }

    func endUtterance() throws -> RecognitionResult { try end(-1) }

    func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult { try end(Int64(frames)) }

    private func end(_ frames: Int64) throws -> RecognitionResult {
        var error = ag_error()
        guard let text = free.take(table.table.end_utterance(instance, frames, &error)) else { throw failure(error) }
        return try WireFormat.recognitionResult(WireFormat.parse(text))
    }

    private func failure(_ error: ag_error) -> GraphError {
        PluginCallError.graphError(error, configuration: node, atBuild: false)
    }
}
