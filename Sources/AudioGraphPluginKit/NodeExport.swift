import CAudioGraphPlugin
#if canImport(Glibc)
import Glibc
#endif

/// One node type behind the C ABI: the function table the host calls, and the Swift instance behind each
/// `void *node`.
enum NodeExport {
    /// What `type_context` points at: the Swift type and its descriptor, for the life of the process.
    final class TypeBox {
        let type: any AudioNode.Type
        init(_ type: any AudioNode.Type) { self.type = type }
    }

    /// One instance: the node, its context (made at `start`), and the host of the call in progress.
    final class Instance {
        let node: any AudioNode
        var context: NodeContext?
        var api: UnsafePointer<ag_host_api>?
        /// Valid only during the host's call that set it.
        var host: OpaquePointer?

        init(_ node: any AudioNode) { self.node = node }
    }

    static func table(for type: any AudioNode.Type) -> ag_node_type {
        let descriptor = WireFormat.text(WireFormat.encode(type.descriptor))
        return ag_node_type(
            struct_size: UInt32(MemoryLayout<ag_node_type>.size),
            type_context: Unmanaged.passRetained(TypeBox(type)).toOpaque(),
            descriptor_json: UnsafePointer(strdup(descriptor)),
            create: { typeContext, configurationJSON, failure in
                guard let typeContext, let configurationJSON else { return nil }
                let box = Unmanaged<TypeBox>.fromOpaque(typeContext).takeUnretainedValue()
                do {
                    let configuration = try WireFormat.configuration(WireFormat.parse(String(cString: configurationJSON)))
                    let node = try box.type.init(configuration: configuration)
                    return Unmanaged.passRetained(Instance(node)).toOpaque()
                } catch {
                    report(error, into: failure)
                    return nil
                }
            },
            output_format: { node, hasInput, inputRate, inputChannels, hasOutput, outputRate, outputChannels, failure in
                guard let instance = NodeExport.instance(node) else { return Int32(AG_FAILED) }
                do {
                    let input = hasInput != 0 ? AudioFormat(sampleRate: Int(inputRate), channels: Int(inputChannels)) : nil
                    let output = try instance.node.outputFormat(for: input)
                    hasOutput?.pointee = output == nil ? 0 : 1
                    outputRate?.pointee = Int32(output?.sampleRate ?? 0)
                    outputChannels?.pointee = Int32(output?.channels ?? 0)
                    return Int32(AG_OK)
                } catch {
                    report(error, into: failure)
                    return Int32(AG_FAILED)
                }
            },
            start: { node, api, host, startJSON, error in
                guard let instance = NodeExport.instance(node), let api, let startJSON else { return Int32(AG_FAILED) }
                return NodeExport.call(instance, host, error) {
                    let object = try WireFormat.parse(String(cString: startJSON)).wireObject("start")
                    instance.api = api
                    instance.context = NodeExport.makeContext(for: instance, object: object,
                                                   inputFormat: try WireFormat.format(object["inputFormat"]),
                                                   outputFormat: try WireFormat.format(object["outputFormat"]))
                    // The plugin ABI has one start: the node's outputs are made with it.
                    try instance.node.start(instance.context!)
                    try instance.node.openOutputs(instance.context!)
                }
            },
            process: { node, host, samples, frames, channels, sampleRate, position, error in
                guard let instance = NodeExport.instance(node) else { return Int32(AG_FAILED) }
                return NodeExport.call(instance, host, error) {
                    let count = Int(frames) * Int(channels)
                    let values = samples.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
                    let buffer = AudioBuffer(format: AudioFormat(sampleRate: Int(sampleRate), channels: Int(channels)),
                                             samples: values, position: position)
                    try instance.node.process(buffer, try instance.requireContext())
                }
            },
            handle_event: { node, host, eventJSON, error in
                guard let instance = NodeExport.instance(node), let eventJSON else { return Int32(AG_FAILED) }
                return NodeExport.call(instance, host, error) {
                    let event = try WireFormat.event(WireFormat.parse(String(cString: eventJSON)))
                    try instance.node.handle(event, try instance.requireContext())
                }
            },
            handle_command: { node, host, commandJSON, error in
                guard let instance = NodeExport.instance(node), let commandJSON else { return Int32(AG_FAILED) }
                return NodeExport.call(instance, host, error) {
                    let command = try WireFormat.command(WireFormat.parse(String(cString: commandJSON)))
                    try instance.node.handle(command, try instance.requireContext())
                }
            },
            finish: { node, host, error in
                guard let instance = NodeExport.instance(node) else { return Int32(AG_FAILED) }
                return NodeExport.call(instance, host, error) { try instance.node.finish(try instance.requireContext()) }
            },
            stop: { node in NodeExport.instance(node)?.node.stop() },
            destroy: { node in
                guard let node else { return }
                Unmanaged<Instance>.fromOpaque(node).release()
            })
    }

    fileprivate static func instance(_ node: UnsafeMutableRawPointer?) -> Instance? {
        node.map { Unmanaged<Instance>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with the call's host set, reporting a thrown error.
    fileprivate static func call(_ instance: Instance, _ host: OpaquePointer?, _ error: UnsafeMutablePointer<ag_error>?,
                             _ body: () throws -> Void) -> Int32 {
        instance.host = host
        defer { instance.host = nil }
        do {
            try body()
            return Int32(AG_OK)
        } catch let thrown {
            report(thrown, into: error)
            return Int32(AG_FAILED)
        }
    }

    /// The plugin-side context: what the node emits goes to the host through the ABI's callbacks.
    fileprivate static func makeContext(for instance: Instance, object: JSONObject, inputFormat: AudioFormat?,
                                    outputFormat: AudioFormat?) -> NodeContext {
        let nodeID = object["nodeID"]?.stringValue ?? ""
        let kinds = Set((object["inputKinds"]?.arrayValue ?? []).compactMap(\.stringValue).map { FrameKind($0) })
        let options = RunOptions(verbose: object["verbose"]?.boolValue ?? false, realtime: object["realtime"]?.boolValue ?? false)
        return NodeContext(
            nodeID: nodeID, inputFormat: inputFormat, outputFormat: outputFormat, inputKinds: kinds,
            clock: SystemClock(), options: options,
            output: { [unowned instance] port, frame in
                guard let api = instance.api, let host = instance.host else { return }
                switch frame {
                case .audio(let buffer):
                    buffer.samples.withUnsafeBufferPointer { samples in
                        api.pointee.emit_audio(host, samples.baseAddress, Int64(buffer.frameCount), Int32(buffer.format.channels),
                                               Int32(buffer.format.sampleRate), buffer.position, Int32(port))
                    }
                case .event(let event):
                    // A new event of this node carries its id (NodeContext.emit stamps it); anything else was
                    // made upstream and is passed on.
                    let forwarded: Int32 = event.node == nodeID ? 0 : 1
                    api.pointee.emit_event(host, WireFormat.text(WireFormat.encode(event)), forwarded, Int32(port))
                case .control(let command):
                    api.pointee.send_command(host, WireFormat.text(WireFormat.encode(command)), Int32(port))
                case .endOfStream:
                    break  // the host's runtime ends streams
                }
            },
            diagnostics: { [unowned instance] message in
                guard let api = instance.api, let host = instance.host else { return }
                // This side's context put the node id in front; the host's adds it again.
                let prefix = nodeID + ": "
                api.pointee.warn(host, message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message)
            })
    }
}

extension NodeExport.Instance {
    func requireContext() throws -> NodeContext {
        guard let context else { throw GraphError(.nodeFailed, at: "", "the host called the node before start") }
        return context
    }
}
