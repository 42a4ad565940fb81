import CAudioGraphPlugin
#if canImport(Glibc)
import Glibc
#endif

/// One recognizer engine behind the C ABI.
enum EngineExport {
    final class EngineBox {
        let engine: RecognizerEngine
        init(_ engine: RecognizerEngine) { self.engine = engine }
    }

    final class Instance {
        let recognizer: any SpeechRecognizer
        init(_ recognizer: any SpeechRecognizer) { self.recognizer = recognizer }
    }

    static func table(for engine: RecognizerEngine) -> ag_engine_type {
        ag_engine_type(
            struct_size: UInt32(MemoryLayout<ag_engine_type>.size),
            type_context: Unmanaged.passRetained(EngineBox(engine)).toOpaque(),
            name: UnsafePointer(strdup(engine.name)),
            summary: UnsafePointer(strdup(engine.summary)),
            capabilities: { typeContext, optionsJSON in
                guard let typeContext, let optionsJSON,
                      let options = try? WireFormat.recognizerOptions(WireFormat.parse(String(cString: optionsJSON))) else { return nil }
                let engine = Unmanaged<EngineBox>.fromOpaque(typeContext).takeUnretainedValue().engine
                return cString(WireFormat.text(WireFormat.encode(engine.capabilities(options))))
            },
            validate: { typeContext, optionsJSON, failure in
                guard let typeContext, let optionsJSON else { return Int32(AG_FAILED) }
                let engine = Unmanaged<EngineBox>.fromOpaque(typeContext).takeUnretainedValue().engine
                do {
                    try engine.validate(try WireFormat.recognizerOptions(WireFormat.parse(String(cString: optionsJSON))))
                    return Int32(AG_OK)
                } catch {
                    report(error, into: failure)
                    return Int32(AG_FAILED)
                }
            },
            create: { typeContext, optionsJSON, failure in
                guard let typeContext, let optionsJSON else { return nil }
                let engine = Unmanaged<EngineBox>.fromOpaque(typeContext).takeUnretainedValue().engine
                do {
                    let recognizer = try engine.make(try WireFormat.recognizerOptions(WireFormat.parse(String(cString: optionsJSON))))
                    return Unmanaged.passRetained(Instance(recognizer)).toOpaque()
                } catch {
                    report(error, into: failure)
                    return nil
                }
            },
            start_utterance: { recognizer, failure in
                EngineExport.run(recognizer, failure) { try $0.startUtterance() }
            },
            process: { recognizer, samples, count, failure in
                EngineExport.run(recognizer, failure) { recognizer in
                    try recognizer.process(UnsafeBufferPointer(start: samples, count: samples == nil ? 0 : Int(count)))
                }
            },
            partial_hypothesis: { recognizer in
                guard let recognizer else { return nil }
                return cString(Unmanaged<Instance>.fromOpaque(recognizer).takeUnretainedValue().recognizer.partialHypothesis())
            },
            end_utterance: { recognizer, speechFrames, failure in
                guard let recognizer else { return nil }
                let instance = Unmanaged<Instance>.fromOpaque(recognizer).takeUnretainedValue()
                do {
                    let result = speechFrames >= 0
                        ? try instance.recognizer.endUtterance(speechEndsAfter: Int(speechFrames))
                        : try instance.recognizer.endUtterance()
                    return cString(WireFormat.text(WireFormat.encode(result)))
                } catch {
                    report(error, into: failure)
                    return nil
                }
            },
            destroy: { recognizer in
                guard let recognizer else { return }
                Unmanaged<Instance>.fromOpaque(recognizer).release()
            },
            parameters_json: UnsafePointer(strdup(WireFormat.text(WireFormat.encode(parameters: engine.parameters)))))
    }

    private static func run(_ recognizer: UnsafeMutableRawPointer?, _ failure: UnsafeMutablePointer<ag_error>?,
                            _ body: (any SpeechRecognizer) throws -> Void) -> Int32 {
        guard let recognizer else { return Int32(AG_FAILED) }
        do {
            try body(Unmanaged<Instance>.fromOpaque(recognizer).takeUnretainedValue().recognizer)
            return Int32(AG_OK)
        } catch {
            report(error, into: failure)
            return Int32(AG_FAILED)
        }
    }
}
