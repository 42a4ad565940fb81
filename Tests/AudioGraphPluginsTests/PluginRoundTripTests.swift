@testable import AudioGraphPluginKit
@testable import AudioGraphPlugins
import AudioGraphTestKit
import CAudioGraphPlugin
import Foundation
import Testing

/// Both sides of the ABI in one process: a table made by the plugin kit, adopted by the host, driven through the
/// host's proxies with the test harness. (Across dlopen the same tables are used; the CLI tests load real
/// plugin libraries.)
@Suite struct PluginRoundTripTests {
    /// A plugin-side node that uses every call: scales audio, counts events, answers commands, fails on demand.
    final class ProbeNode: AudioNode {
        static let scaleParameter = Parameter.number("scale", range: 0...10, default: 2, doc: "Factor.")
        static let failAfterParameter = Parameter.integer("failAfter", range: 0...1000, default: 0,
                                                          doc: "Fail on buffer N (0: never).")
        static let outputRateParameter = Parameter.integer("outputRate", range: 0...192000, default: 0,
                                                           doc: "Claim this output rate.")
        static let descriptor = NodeDescriptor(
            type: "probe", summary: "A probe", category: .filter,
            parameters: [scaleParameter.spec, failAfterParameter.spec, outputRateParameter.spec],
            inputs: [.init(requires: [.audio])], outputs: [.init(produces: [.audio, "probe"], forwardsInput: true)],
            acceptedFormats: FormatRequirement(sampleRates: [16000, 48000], channels: 1...2))

        let scale: Float
        let failAfter: Int
        let outputRate: Int
        var buffers = 0

        init(configuration: NodeConfiguration) throws {
            scale = Float(configuration[Self.scaleParameter])
            failAfter = configuration[Self.failAfterParameter]
            outputRate = configuration[Self.outputRateParameter]
            if configuration.double("scale") == 7 { throw configuration.error("7 is unlucky", parameter: "scale") }
        }

        func outputFormat(for input: AudioFormat?) throws -> AudioFormat? {
            guard var format = input else { return nil }
            if outputRate > 0 { format.sampleRate = outputRate }
            return format
        }

        func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
            buffers += 1
            if buffers == failAfter { throw ProbeFailure.failed(buffers) }
            var scaled = buffer
            scaled.samples = buffer.samples.map { $0 * scale }
            context.emit(scaled)
            context.emit(.custom(type: "probed", kind: "probe", fields: ["n": .number(Double(buffers))]), at: buffer.startTime)
        }

        func handle(_ command: ControlCommand, _ context: NodeContext) throws {
            if case .custom(let name, _) = command, name == "ping" {
                context.warn("pong")
                context.send(.custom(name: "pong", arguments: [:]))
                return
            }
            context.send(command)
        }
    }

    enum ProbeFailure: Error, CustomStringConvertible {
        case failed(Int)
        var description: String { if case .failed(let n) = self { "gave up on buffer \(n)" } else { "" } }
    }

    /// A plugin-side recognizer: "hears" one word per 1600 samples.
    final class CountingRecognizer: SpeechRecognizer {
        let capabilities = RecognizerCapabilities(streaming: true, partialResults: true, wordTimings: true,
                                                  languages: ["en-US", "de-DE"], sampleRate: 16000)
        var samples = 0
        func startUtterance() throws { samples = 0 }
        func process(_ samples: UnsafeBufferPointer<Float>) throws { self.samples += samples.count }
        func partialHypothesis() -> String { Array(repeating: "w", count: samples / 1600).joined(separator: " ") }
        func endUtterance() throws -> RecognitionResult {
            RecognitionResult(text: partialHypothesis(), confidence: 0.5,
                              words: (0..<(samples / 1600)).map { .init(word: "w", start: Double($0) * 0.1, end: Double($0 + 1) * 0.1) })
        }
    }

    static let engine = RecognizerEngine(
        name: "test-plugin-counting", summary: "counts",
        capabilities: { options in
            RecognizerCapabilities(streaming: true, partialResults: true, wordTimings: true,
                                   languages: options.parameters["languages"]?.arrayValue?.compactMap(\.stringValue) ?? ["en-US"],
                                   sampleRate: 16000)
        },
        validate: { options in
            if options.parameters["keyphrase"]?.stringValue == "bad" {
                throw options.node.error("no such keyphrase", parameter: "keyphrase")
            }
        },
        make: { _ in CountingRecognizer() })

    static let library: PluginLibrary = {
        let table = PluginTable.make(name: "probe-plugin", version: "9.9", nodes: [ProbeNode.self], engines: [engine])
        return try! PluginLibrary.adopt(UnsafePointer(table), path: "/test/probe.so")
    }()

    func makeNode(_ values: JSONObject = ["scale": 2, "failAfter": 0, "outputRate": 0], input: AudioFormat) throws -> NodeHarness<PluginNode> {
        let type = try #require(Self.library.nodeTypes.first)
        let node = try type.make(NodeConfiguration(id: "p", type: "probe", values: values, baseDirectory: "/"))
        return try NodeHarness(node as! PluginNode, id: "p", input: input)
    }

    @Test func theDeclarationCrossesIntact() throws {
        #expect(Self.library.name == "probe-plugin" && Self.library.version == "9.9")
        let descriptor = try #require(Self.library.nodeTypes.first?.descriptor)
        #expect(descriptor.type == "probe" && descriptor.category == .filter)
        #expect(descriptor.parameters.map(\.name) == ["scale", "failAfter", "outputRate"])
        #expect(descriptor.parameters[0].kind == .number(range: 0...10))
        #expect(descriptor.parameters[0].defaultValue == .number(2))
        #expect(descriptor.parameters[1].kind == .integer(range: 0...1000))
        #expect(descriptor.acceptedFormats == FormatRequirement(sampleRates: [16000, 48000], channels: 1...2))
        #expect(descriptor.outputs.first?.produces == [.audio, "probe"])
        #expect(descriptor.outputs.first?.forwardsInput == true)
        #expect(Self.library.engines.map(\.name) == ["test-plugin-counting"])
    }

    @Test func audioEventsAndCommandsCrossBothWays() throws {
        let harness = try makeNode(input: AudioFormat(sampleRate: 16000, channels: 2))
        try harness.push(AudioBuffer(format: AudioFormat(sampleRate: 16000, channels: 2), samples: [0.1, -0.2, 0.3, -0.4], position: 160))
        let out = try #require(harness.buffers().first)
        #expect(out.samples == [0.2, -0.4, 0.6, -0.8])
        #expect(out.position == 160 && out.format == AudioFormat(sampleRate: 16000, channels: 2))
        // A new event is stamped with the node's id; an upstream event passes unchanged.
        let made = try #require(harness.events.first)
        #expect(made.node == "p" && made.time == 0.01)
        #expect(made.payload == .custom(type: "probed", kind: "probe", fields: ["n": 1]))
        harness.clearOutput()
        let upstream = Event(node: "asr", time: 1.5, payload: .transcript(TranscriptUpdate(
            segment: 3, revision: 2, isFinal: true, start: 1, end: 1.5, text: "go", confidence: 0.25,
            words: [.init(word: "go", start: 1, end: 1.5, confidence: 0.75)], language: "en-US")))
        try harness.push(upstream)
        #expect(harness.events == [upstream])
        harness.clearOutput()
        try harness.push(.setLanguage("de-DE"))
        try harness.push(.custom(name: "ping", arguments: ["x": 1]))
        let commands = harness.output.compactMap { if case .control(let command) = $0.frame { command } else { nil } }
        #expect(commands == [.setLanguage("de-DE"), .custom(name: "pong", arguments: [:])])
        #expect(harness.warnings == ["p: pong"])
        try harness.finish()
        harness.stop()
    }

    @Test func outputFormatsComeFromThePlugin() throws {
        let harness = try makeNode(["scale": 1, "failAfter": 0, "outputRate": 48000], input: AudioFormat(sampleRate: 16000, channels: 1))
        #expect(harness.outputFormat == AudioFormat(sampleRate: 48000, channels: 1))
        #expect(harness.node.acceptedFormats.sampleRates == [16000, 48000])
    }

    @Test func errorsCarryTheNodeIdAndTheParameterPath() throws {
        let type = try #require(Self.library.nodeTypes.first)
        #expect(throws: GraphError(.invalidConfig, at: "nodes.p.scale", "7 is unlucky", node: "p")) {
            try type.make(NodeConfiguration(id: "p", type: "probe", values: ["scale": 7, "failAfter": 0, "outputRate": 0],
                                            baseDirectory: "/"))
        }
        let harness = try makeNode(["scale": 1, "failAfter": 2, "outputRate": 0], input: AudioFormat(sampleRate: 16000, channels: 1))
        try harness.push(AudioBuffer(format: AudioFormat(sampleRate: 16000, channels: 1), samples: [0.1], position: 0))
        #expect(throws: GraphError(.nodeFailed, at: "node p", "gave up on buffer 2", node: "p")) {
            try harness.push(AudioBuffer(format: AudioFormat(sampleRate: 16000, channels: 1), samples: [0.1], position: 1))
        }
    }

    @Test func enginesCrossToo() throws {
        let engine = try #require(Self.library.engines.first).engine
        let node = NodeConfiguration(id: "asr", type: "recognizer", values: [:], baseDirectory: "/")
        var options = RecognizerOptions(language: "de-DE", parameters: ["languages": ["en-US", "de-DE"]], verbose: false, node: node)
        #expect(engine.capabilities(options).languages == ["en-US", "de-DE"])
        try engine.validate(options)
        let recognizer = try engine.make(options)
        try recognizer.startUtterance()
        let samples = [Float](repeating: 0.1, count: 4000)
        try samples.withUnsafeBufferPointer { try recognizer.process($0) }
        #expect(recognizer.partialHypothesis() == "w w")
        let result = try recognizer.endUtterance(speechEndsAfter: 3200)
        #expect(result == RecognitionResult(text: "w w", confidence: 0.5,
                                            words: [.init(word: "w", start: 0, end: 0.1), .init(word: "w", start: 0.1, end: 0.2)]))
        options.parameters["keyphrase"] = "bad"
        #expect(throws: GraphError(.invalidConfig, at: "nodes.asr.keyphrase", "no such keyphrase", node: "asr")) {
            try engine.validate(options)
        }
    }

    @Test func aTableForAnotherABIIsRefusedBeforeItIsRead() throws {
        var plugin = ag_plugin()
        plugin.abi_version = 99
        #expect(throws: PluginLoadError.abiMismatch("/x.so", plugin: 99, host: 2)) {
            _ = try withUnsafePointer(to: &plugin) { pointer throws(PluginLoadError) in try PluginLibrary.adopt(pointer, path: "/x.so") }
        }
        #expect(PluginLoadError.abiMismatch("/x.so", plugin: 99, host: 2).description.contains("built for plugin ABI 99"))
    }
}
