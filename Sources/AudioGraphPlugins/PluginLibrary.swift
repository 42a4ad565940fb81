import AudioGraphCore
import CAudioGraphPlugin
import Foundation
import Synchronization

/// A plugin library loaded with `dlopen`: its name and version, and the node types and recognizer engines it
/// exports through the C ABI (audiograph_plugin.h), already checked.
///
/// A library stays loaded for the life of the process (the registry keeps pointers into its tables), and is
/// loaded once per path however many configs name it.
public final class PluginLibrary: Sendable {
    public let path: String
    public let name: String
    public let version: String
    public let nodeTypes: [PluginNodeType]
    public let engines: [PluginEngineType]

    init(path: String, name: String, version: String, nodeTypes: [PluginNodeType], engines: [PluginEngineType]) {
        self.path = path
        self.name = name
        self.version = version
        self.nodeTypes = nodeTypes
        self.engines = engines
    }

    /// The ABI version this audiograph loads.
    public static var abiVersion: UInt32 { ag_plugin_abi_version() }

    private static let loaded = Mutex<[String: PluginLibrary]>([:])

    /// Loads the library at `path` (already resolved), or the one loaded before from there.
    public static func load(_ path: String) throws(PluginLoadError) -> PluginLibrary {
        let canonical = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        if let library = loaded.withLock({ $0[canonical] }) { return library }
        // stat, never open, first: dlopen on a FIFO with no writer would block forever.
        switch FileKind(path: canonical) {
        case .regular: break
        case .missing: throw .missingFile(path)
        case let kind: throw .notARegularFile(path, kind.description)
        }
        guard let handle = dlopen(canonical, RTLD_NOW | RTLD_LOCAL) else {
            throw .notALibrary(path, dlerror().map { String(cString: $0) } ?? "dlopen failed")
        }
        guard let symbol = dlsym(handle, AG_PLUGIN_ENTRY_SYMBOL) else {
            dlclose(handle)
            throw .missingEntryPoint(path)
        }
        let entry = unsafeBitCast(symbol, to: ag_plugin_entry_fn.self)
        guard let plugin = entry(HostAPI.table) else {
            throw .refusedByPlugin(path)
        }
        let library = try adopt(plugin, path: canonical)
        return loaded.withLock { loaded in
            if let earlier = loaded[canonical] { return earlier }
            loaded[canonical] = library
            return library
        }
    }

    /// Checks a plugin table (the entry point's answer) and reads what it exports.
    static func adopt(_ plugin: UnsafePointer<ag_plugin>, path: String) throws(PluginLoadError) -> PluginLibrary {
        // The version first, before reading anything whose layout it decides.
        let version = plugin.pointee.abi_version
        guard version == abiVersion else { throw .abiMismatch(path, plugin: version, host: abiVersion) }
        guard plugin.pointee.struct_size >= UInt32(MemoryLayout<ag_plugin>.size) else {
            throw .malformed(path, "its plugin table is smaller than ABI \(abiVersion)'s")
        }
        return try read(plugin.pointee, path: path)
    }

    private static func read(_ plugin: ag_plugin, path: String) throws(PluginLoadError) -> PluginLibrary {
        guard let namePointer = plugin.name else { throw .malformed(path, "the plugin has no name") }
        let free = plugin.free_string
        var nodeTypes: [PluginNodeType] = []
        for index in 0..<Int(plugin.node_type_count) {
            guard let table = plugin.node_types?[index] else { throw .malformed(path, "node type \(index) is missing") }
            guard table.struct_size >= UInt32(MemoryLayout<ag_node_type>.size), let json = table.descriptor_json,
                  table.create != nil, table.output_format != nil, table.start != nil, table.process != nil,
                  table.handle_event != nil, table.handle_command != nil, table.finish != nil, table.stop != nil,
                  table.destroy != nil else {
                throw .malformed(path, "node type \(index)'s table is incomplete")
            }
            let descriptor: NodeDescriptor
            do {
                descriptor = try WireFormat.descriptor(WireFormat.parse(String(cString: json)))
            } catch {
                throw .malformed(path, "node type \(index)'s declaration: \(error.message)")
            }
            guard descriptor.category != .source else {
                throw .malformed(path, "node type \"\(descriptor.type)\" is a source; plugins provide filters, sinks and "
                    + "recognizer engines in ABI \(abiVersion)")
            }
            nodeTypes.append(PluginNodeType(descriptor: descriptor, table: PluginTable(table), origin: path))
        }
        var engines: [PluginEngineType] = []
        for index in 0..<Int(plugin.engine_count) {
            guard let table = plugin.engines?[index] else { throw .malformed(path, "engine \(index) is missing") }
            guard table.struct_size >= UInt32(MemoryLayout<ag_engine_type>.size), let name = table.name,
                  table.capabilities != nil, table.validate != nil, table.create != nil, table.start_utterance != nil,
                  table.process != nil, table.partial_hypothesis != nil, table.end_utterance != nil, table.destroy != nil else {
                throw .malformed(path, "engine \(index)'s table is incomplete")
            }
            guard let free else { throw .malformed(path, "the plugin has engines but no free_string") }
            let engineName = String(cString: name)
            var parameters: [ParameterSpec] = []
            if let json = table.parameters_json {
                do {
                    parameters = try WireFormat.parameters(WireFormat.parse(String(cString: json)))
                } catch {
                    throw .malformed(path, "engine \"\(engineName)\"'s parameters: \(error.message)")
                }
            }
            engines.append(PluginEngineType(name: engineName, summary: table.summary.map { String(cString: $0) } ?? "",
                                            parameters: parameters, table: PluginTable(table), freeString: PluginFree(free),
                                            origin: path))
        }
        return PluginLibrary(path: path, name: String(cString: namePointer),
                             version: plugin.version.map { String(cString: $0) } ?? "", nodeTypes: nodeTypes, engines: engines)
    }
}

/// A C function table from a plugin: immutable, and alive as long as the process (plugins are never unloaded).
struct PluginTable<Table>: @unchecked Sendable {
    let table: Table
    init(_ table: Table) { self.table = table }
}

/// The plugin's `free_string`. `@unchecked` because Swift does not mark C function pointers `Sendable`: this one
/// is immutable, points into a library that is never unloaded, and the plugin ABI requires it to be callable from
/// any thread at once (docs/plugins.md, "Threading and lifetime"; the kit's calls `free`).
struct PluginFree: @unchecked Sendable {
    let free: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void
    init(_ free: @escaping @convention(c) (UnsafeMutablePointer<CChar>?) -> Void) { self.free = free }

    /// Takes a string the plugin returned, and frees it.
    func take(_ string: UnsafeMutablePointer<CChar>?) -> String? {
        guard let string else { return nil }
        defer { free(string) }
        return String(cString: string)
    }
}

/// Why a plugin was not loaded.
public enum PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    case missingFile(String)
    /// A FIFO, a device, a folder: what is not a regular file is never opened.
    case notARegularFile(String, String)
    case notALibrary(String, String)
    case missingEntryPoint(String)
    case refusedByPlugin(String)
    case abiMismatch(String, plugin: UInt32, host: UInt32)
    case malformed(String, String)
    case duplicate(String, String)

    public var description: String {
        switch self {
        case .missingFile(let path): return "no such file: \(path)"
        case .notARegularFile(_, let kind): return "it is \(kind), not a regular file; a plugin is a shared library file"
        case .notALibrary(_, let detail): return "not a loadable shared library: \(detail)"
        case .missingEntryPoint: return "no entry point \(AG_PLUGIN_ENTRY_SYMBOL); is it an audiograph plugin?"
        case .refusedByPlugin: return "the plugin's entry point refused to load (it returned no plugin table)"
        case .abiMismatch(_, let plugin, let host):
            return "built for plugin ABI \(plugin), but this audiograph loads ABI \(host): rebuild the plugin against "
                + "audiograph \(AudioGraphVersion.current)'s audiograph_plugin.h or AudioGraphPluginKit"
                + (plugin < host ? " (ABI 2 added the engine parameters; see docs/plugins.md)" : "")
        case .malformed(_, let detail): return "malformed plugin: \(detail)"
        case .duplicate(_, let detail): return detail
        }
    }

    /// The exit status: 66 for a missing file or one that is not a regular file, 69 for everything else (the
    /// plugin is unusable here).
    public var code: GraphError.Code {
        switch self {
        case .missingFile, .notARegularFile: return .missingInput
        default: break
        }
        return .unavailable
    }
}
