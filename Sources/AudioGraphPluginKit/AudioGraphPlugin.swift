@_exported import AudioGraphCore
import CAudioGraphPlugin
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Makes a shared library an audiograph plugin: write node types (`AudioNode`) and recognizer engines
/// (`RecognizerEngine`) as you would in the project, then export them through the C ABI
/// (audiograph_plugin.h) from one entry point:
///
/// ```swift
/// import AudioGraphPluginKit
///
/// @_cdecl("audiograph_plugin_entry")
/// public func audiographPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
///     AudioGraphPlugin.export(name: "gain", version: "1.0.0", nodes: [GainNode.self])
/// }
/// ```
///
/// Build the package as a dynamic library product and name it in a config's `"plugins"` or put it on
/// `AUDIOGRAPH_PLUGIN_PATH`. Only C types cross between audiograph and the plugin: the plugin links its own copy
/// of AudioGraphCore, so the two may be built by different compilers, and a plugin built for another ABI
/// version is refused when it loads (docs/plugins.md).
///
/// Plugins provide filters, sinks and recognizer engines; source nodes are refused by the host in ABI 1.
public enum AudioGraphPlugin {
    /// The ABI version this kit writes (`AG_PLUGIN_ABI_VERSION`).
    public static var abiVersion: UInt32 { ag_plugin_abi_version() }

    /// The plugin table for the entry point to return. Built on the first call; later calls return the same
    /// table (the host calls the entry point once per process). The table lives as long as the process.
    public static func export(name: String, version: String, nodes: [any AudioNode.Type] = [],
                              engines: [RecognizerEngine] = []) -> UnsafeRawPointer? {
        let address = exported.withLock { address in
            if address == nil {
                address = UInt(bitPattern: PluginTable.make(name: name, version: version, nodes: nodes, engines: engines))
            }
            return address!
        }
        return UnsafeRawPointer(bitPattern: address)
    }

    /// The table's address, once built.
    private static let exported = Mutex<UInt?>(nil)
}

enum PluginTable {
    static func make(name: String, version: String, nodes: [any AudioNode.Type],
                     engines: [RecognizerEngine]) -> UnsafeMutablePointer<ag_plugin> {
        let nodeTypes = UnsafeMutablePointer<ag_node_type>.allocate(capacity: max(nodes.count, 1))
        for (index, type) in nodes.enumerated() { (nodeTypes + index).initialize(to: NodeExport.table(for: type)) }
        let engineTypes = UnsafeMutablePointer<ag_engine_type>.allocate(capacity: max(engines.count, 1))
        for (index, engine) in engines.enumerated() { (engineTypes + index).initialize(to: EngineExport.table(for: engine)) }
        let plugin = UnsafeMutablePointer<ag_plugin>.allocate(capacity: 1)
        plugin.initialize(to: ag_plugin(
            abi_version: ag_plugin_abi_version(), struct_size: UInt32(MemoryLayout<ag_plugin>.size),
            name: UnsafePointer(strdup(name)), version: UnsafePointer(strdup(version)),
            node_type_count: UInt32(nodes.count), node_types: UnsafePointer(nodeTypes),
            engine_count: UInt32(engines.count), engines: UnsafePointer(engineTypes),
            free_string: { free($0) }))
        return plugin
    }
}

/// Writes an error for the host: a `GraphError` keeps its code and location; anything else is a node
/// failure (70) with its description.
func report(_ error: any Error, into target: UnsafeMutablePointer<ag_error>?) {
    guard let target else { return }
    let code: Int32
    let location: String
    let message: String
    if let graphError = error as? GraphError {
        code = graphError.code.exitCode
        location = graphError.location
        message = graphError.message
    } else {
        code = 70
        location = ""
        message = "\(error)"
    }
    target.pointee.code = code
    copy(location, into: &target.pointee.location)
    copy(message, into: &target.pointee.message)
}

/// Copies `text` into a fixed C char array, truncated on a UTF-8 boundary, NUL-terminated.
func copy<Buffer>(_ text: String, into buffer: inout Buffer) {
    withUnsafeMutableBytes(of: &buffer) { raw in
        let capacity = raw.count - 1
        var bytes = Array(text.utf8.prefix(capacity))
        while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }  // no cut UTF-8 sequence
        if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
}

/// A C string for the host to free with the plugin's `free_string`.
func cString(_ text: String) -> UnsafeMutablePointer<CChar>? { strdup(text) }
