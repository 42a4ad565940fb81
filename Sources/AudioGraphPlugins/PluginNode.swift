import AudioGraphCore
import CAudioGraphPlugin
import Foundation

/// A node type exported by a plugin.
public struct PluginNodeType: Sendable {
    public let descriptor: NodeDescriptor
    let table: PluginTable<ag_node_type>
    public let origin: String

    /// Makes an instance: the plugin's `create`, behind a proxy `AudioNode`.
    func make(_ configuration: NodeConfiguration) throws -> any AudioNode {
        var error = ag_error()
        let json = WireFormat.text(WireFormat.encode(configuration))
        guard let instance = table.table.create(table.table.type_context, json, &error) else {
            throw PluginCallError.graphError(error, configuration: configuration, atBuild: true)
        }
        return PluginNode(instance: instance, table: table, descriptor: descriptor, configuration: configuration)
    }
}

/// The host's side of one plugin node instance: every `AudioNode` call goes through the plugin's table.
///
/// Confinement: the runtime calls a node from one thread at a time, so `host` (the context of the call in
/// progress, handed to the plugin as `ag_host_node *`) needs no lock.
final class PluginNode: AudioNode, @unchecked Sendable {
    /// Not used: a plugin node's declaration comes from its plugin (`NodeRegistry` holds it).
    static let descriptor = NodeDescriptor(type: "plugin-node", summary: "A node from a plugin", category: .filter,
                                           parameters: [], inputs: [], outputs: [])

    private let instance: UnsafeMutableRawPointer
    private let table: PluginTable<ag_node_type>
    private let pluginDescriptor: NodeDescriptor
    private let configuration: NodeConfiguration
    private let host = HostNode()
    private var stopped = false

    init(instance: UnsafeMutableRawPointer, table: PluginTable<ag_node_type>, descriptor: NodeDescriptor,
         configuration: NodeConfiguration) {
        self.instance = instance
        self.table = table
        self.pluginDescriptor = descriptor
        self.configuration = configuration
    }

    required init(configuration: NodeConfiguration) throws {
        throw GraphError(.nodeFailed, at: configuration.id, "plugin nodes are made by their plugin")
    }

    deinit {
        stop()
        table.table.destroy(instance)
    }

    var acceptedFormats: FormatRequirement { pluginDescriptor.acceptedFormats }

    func outputFormat(for input: AudioFormat?) throws -> AudioFormat? {
        var error = ag_error()
        var hasOutput: Int32 = 0
        var rate: Int32 = 0
        var channels: Int32 = 0
        let status = table.table.output_format(instance, input == nil ? 0 : 1, Int32(input?.sampleRate ?? 0),
                                               Int32(input?.channels ?? 0), &hasOutput, &rate, &channels, &error)
        guard status == AG_OK else { throw PluginCallError.graphError(error, configuration: configuration, atBuild: true) }
        guard hasOutput != 0 else { return nil }
        guard rate > 0, channels > 0 else {
            throw GraphError(.nodeFailed, at: "node \(configuration.id)", "the plugin gave an output format of \(rate) Hz, \(channels) ch",
                             node: configuration.id)
        }
        return AudioFormat(sampleRate: Int(rate), channels: Int(channels))
    }

    func start(_ context: NodeContext) throws {
        let start: JSONObject = [
            "nodeID": .string(context.nodeID), "inputFormat": WireFormat.encode(context.inputFormat),
            "outputFormat": WireFormat.encode(context.outputFormat),
            "inputKinds": .array(context.inputKinds.sorted().map { .string($0.name) }),
            "realtime": .bool(context.options.realtime), "verbose": .bool(context.options.verbose),
        ]
        try call(context) { error, hostPointer in
            table.table.start(instance, HostAPI.table, hostPointer, WireFormat.text(.object(start)), error)
        }
    }

    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        try call(context) { error, hostPointer in
            buffer.samples.withUnsafeBufferPointer { samples in
                table.table.process(instance, hostPointer, samples.baseAddress, Int64(buffer.frameCount),
                                    Int32(buffer.format.channels), Int32(buffer.format.sampleRate), buffer.position, error)
            }
        }
    }

    func handle(_ event: Event, _ context: NodeContext) throws {
        let json = WireFormat.text(WireFormat.encode(event))
        try call(context) { error, hostPointer in table.table.handle_event(instance, hostPointer, json, error) }
    }

    func handle(_ command: ControlCommand, _ context: NodeContext) throws {
        let json = WireFormat.text(WireFormat.encode(command))
        try call(context) { error, hostPointer in table.table.handle_command(instance, hostPointer, json, error) }
    }

    func finish(_ context: NodeContext) throws {
        try call(context) { error, hostPointer in table.table.finish(instance, hostPointer, error) }
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        table.table.stop(instance)
    }

    /// Runs one call into the plugin with `context` as the host of the call.
    private func call(_ context: NodeContext,
                      _ body: (UnsafeMutablePointer<ag_error>, OpaquePointer) -> Int32) throws {
        var error = ag_error()
        host.context = context
        defer { host.context = nil }
        let status = withExtendedLifetime(host) {
            body(&error, OpaquePointer(Unmanaged.passUnretained(host).toOpaque()))
        }
        if status != AG_OK { throw PluginCallError.graphError(error, configuration: configuration, atBuild: false) }
    }
}

/// What `ag_host_node *` points at: the host context of the call in progress.
final class HostNode {
    var context: NodeContext?
}

/// Turns a plugin's `ag_error` into a `GraphError` carrying the node id (and, at build time, the parameter's
/// JSON path when the plugin named one).
enum PluginCallError {
    static func graphError(_ error: ag_error, configuration: NodeConfiguration, atBuild: Bool) -> GraphError {
        var error = error
        let message = withUnsafeBytes(of: &error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let location = withUnsafeBytes(of: &error.location) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let code = GraphError.Code.allCases.first { $0.exitCode == error.code } ?? .nodeFailed
        let text = message.isEmpty ? "the plugin's node failed without saying why" : message
        // A bare parameter name becomes its JSON path; a plugin's own `configuration.error` already is one.
        if atBuild, configuration.values[location] != nil {
            return configuration.error(text, parameter: location, code: code == .nodeFailed ? .invalidConfig : code)
        }
        return GraphError(code, at: location.isEmpty ? "node \(configuration.id)" : location, text, node: configuration.id)
    }
}

/// The callbacks a plugin's nodes use to reach the host.
enum HostAPI {
    /// One table for the process: written once, then only read (plugins keep the pointer).
    nonisolated(unsafe) static let table: UnsafePointer<ag_host_api> = {
        let pointer = UnsafeMutablePointer<ag_host_api>.allocate(capacity: 1)
        pointer.initialize(to: ag_host_api(
            abi_version: ag_plugin_abi_version(), struct_size: UInt32(MemoryLayout<ag_host_api>.size),
            emit_audio: { host, samples, frames, channels, sampleRate, position, port in
                guard let context = context(host), frames >= 0, channels > 0, sampleRate > 0 else { return }
                let count = Int(frames) * Int(channels)
                let values = samples.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? Array(repeating: 0, count: count)
                context.emit(AudioBuffer(format: AudioFormat(sampleRate: Int(sampleRate), channels: Int(channels)),
                                         samples: values, position: position), port: Int(port))
            },
            emit_event: { host, json, forwarded, port in
                guard let context = context(host), let json,
                      let event = try? WireFormat.event(WireFormat.parse(String(cString: json))) else {
                    context(host)?.warn("the plugin sent an event that is not valid JSON; it was dropped")
                    return
                }
                if forwarded != 0 {
                    context.forward(event, port: Int(port))
                } else {
                    context.emit(event.payload, at: event.time, port: Int(port))
                }
            },
            send_command: { host, json, port in
                guard let context = context(host), let json,
                      let command = try? WireFormat.command(WireFormat.parse(String(cString: json))) else { return }
                context.send(command, port: Int(port))
            },
            warn: { host, message in
                guard let context = context(host), let message else { return }
                context.warn(String(cString: message))
            }))
        return UnsafePointer(pointer)
    }()

    private static func context(_ host: OpaquePointer?) -> NodeContext? {
        guard let host else { return nil }
        return Unmanaged<HostNode>.fromOpaque(UnsafeRawPointer(host)).takeUnretainedValue().context
    }
}
