import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit
import Testing

/// Issue 15, "`audiograph inspect recognizer` lists the common parameters and then each engine's own, and so do
/// the generated docs": `NodeDocumentation` and `ConfigSchema` read the recognizer's engine parameter groups.
@Suite(.ownThreads) struct EngineDocumentationTests {
    static func registry() -> NodeRegistry {
        _ = try? RecognizerEngines.register(EngineParameterTests.engine)  // the first call registers it; later ones find it there
        var registry = NodeRegistry()
        try! registry.register(RecognizerNode.self)
        return registry
    }

    @Test("inspect: the common parameters, then a heading per registered engine with its summary and parameters")
    func inspectListsEachEngine() throws {
        _ = Self.registry()
        let text = NodeDocumentation.inspect(RecognizerNode.descriptor)
        let common = try #require(text.range(of: "  maxUtteranceSeconds  number"))
        let pocketsphinx = try #require(text.range(of: "PARAMETERS OF ENGINE pocketsphinx (engine: \"pocketsphinx\"):\n  CMU PocketSphinx"))
        let hmm = try #require(text.range(of: "  hmm  path (input folder)"))
        let probe = try #require(text.range(of: "PARAMETERS OF ENGINE param-probe (engine: \"param-probe\"):\n  Records the options"))
        let beam = try #require(text.range(of: "  beam  integer 1…8  default 3"))
        #expect(common.upperBound < pocketsphinx.lowerBound && pocketsphinx.upperBound < hmm.lowerBound)
        #expect(hmm.upperBound < probe.lowerBound && probe.upperBound < beam.lowerBound)
        #expect(text.range(of: "  hmm  ")!.lowerBound > common.upperBound, "hmm is no common parameter any more")
    }

    @Test("docs: a section per built-in engine; engines registered at run time are left out")
    func markdownListsBuiltInEngines() throws {
        let markdown = NodeDocumentation.markdown(Self.registry())
        let section = try #require(markdown.range(of: "### engine `pocketsphinx`"))
        #expect(markdown.range(of: "| `maxActiveHMMs` |")!.lowerBound > section.upperBound)
        #expect(markdown.range(of: "| `partials` |")!.lowerBound < section.lowerBound)
        #expect(!markdown.contains("param-probe"))
    }

    @Test("schema: engine parameters are properties, and each engine's if/then allows only the common ones and its own")
    func schemaPerEngine() throws {
        let schema = ConfigSchema.make(Self.registry())
        let variants = schema.objectValue?["properties"]?.objectValue?["nodes"]?.objectValue?["additionalProperties"]?
            .objectValue?["oneOf"]?.arrayValue ?? []
        let recognizer = try #require(variants.first { $0.objectValue?["title"]?.stringValue == "recognizer" }?.objectValue)
        let properties = recognizer["properties"]?.objectValue?.keys ?? []
        #expect(properties.contains("hmm") && properties.contains("beam") && properties.contains("engine"))
        let conditions = recognizer["allOf"]?.arrayValue ?? []
        func allowed(_ engine: String) -> [String]? {
            conditions.first {
                $0.objectValue?["if"]?.objectValue?["properties"]?.objectValue?["engine"]?.objectValue?["const"]?.stringValue == engine
            }?.objectValue?["then"]?.objectValue?["propertyNames"]?.objectValue?["enum"]?.arrayValue?.compactMap(\.stringValue)
        }
        let pocketsphinx = try #require(allowed("pocketsphinx"))
        #expect(pocketsphinx.contains("hmm") && pocketsphinx.contains("partials") && !pocketsphinx.contains("beam"))
        let probe = try #require(allowed("param-probe"))
        #expect(probe.contains("beam") && !probe.contains("hmm"))
    }
}
