import AudioGraphCore
import AudioGraphSpeech
import Foundation
import Synchronization

/// Loading plugins into a registry: the config's `"plugins"` and `AUDIOGRAPH_PLUGIN_PATH`.
public enum Plugins {
    /// What happened to one plugin: loaded (with what it added) or refused (and why).
    public struct Report: Sendable {
        /// Where it came from: `plugins[0]` of a config, or `AUDIOGRAPH_PLUGIN_PATH`.
        public var source: String
        public var path: String
        public var result: Result<PluginLibrary, PluginLoadError>

        /// True when an earlier `load` in this process already reported this search-path plugin as refused
        /// (a command loads `AUDIOGRAPH_PLUGIN_PATH` for its registry, then again with the config).
        public var repeated = false

        public var error: PluginLoadError? {
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    /// The search-path plugins reported as refused so far, by canonical path: each is warned about once.
    private static let refusedOnSearchPath = Mutex<Set<String>>([])

    /// The libraries on `AUDIOGRAPH_PLUGIN_PATH`: a colon-separated list of `.so` files and folders (whose
    /// `*.so` files are taken, sorted by name).
    public static func searchPath(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        guard let value = environment["AUDIOGRAPH_PLUGIN_PATH"], !value.isEmpty else { return [] }
        var paths: [String] = []
        for entry in value.split(separator: ":").map(String.init) where !entry.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: entry, isDirectory: &isDirectory), isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: entry)) ?? []
                paths += names.filter { $0.hasSuffix(".so") }.sorted().map { entry + "/" + $0 }
            } else {
                paths.append(entry)
            }
        }
        return paths
    }

    /// Loads `spec.plugins` (resolved against its folder) and the search path into `registry`: node types are
    /// registered with the plugin's path as their origin, engines go into `RecognizerEngines`. Every plugin is
    /// tried; the reports say what happened to each.
    public static func load(_ spec: GraphSpec, into registry: inout NodeRegistry,
                            environment: [String: String] = ProcessInfo.processInfo.environment) -> [Report] {
        var requests = spec.plugins.enumerated().map { index, path in
            (source: "plugins[\(index)]", path: NodeConfiguration.resolve(path, against: spec.baseDirectory))
        }
        requests += searchPath(environment).map { (source: "AUDIOGRAPH_PLUGIN_PATH", path: $0) }
        var seen = Set<String>()
        var reports: [Report] = []
        for request in requests {
            let canonical = URL(fileURLWithPath: request.path).resolvingSymlinksInPath().path
            guard seen.insert(canonical).inserted else { continue }  // named twice: loaded once
            var report = Report(source: request.source, path: request.path,
                                result: Result { () throws(PluginLoadError) in try install(request.path, into: &registry) })
            if report.error != nil, request.source == "AUDIOGRAPH_PLUGIN_PATH" {
                report.repeated = !refusedOnSearchPath.withLock { $0.insert(canonical).inserted }
            }
            reports.append(report)
        }
        return reports
    }

    /// Loads one library and adds what it exports to `registry`, all or nothing.
    public static func install(_ path: String, into registry: inout NodeRegistry) throws(PluginLoadError) -> PluginLibrary {
        let library = try PluginLibrary.load(path)
        var updated = registry
        for type in library.nodeTypes {
            if registry.entry(for: type.descriptor.type)?.origin == library.path { continue }  // installed already
            do {
                try updated.register(descriptor: type.descriptor, origin: library.path) { configuration in
                    try type.make(configuration)
                }
            } catch {
                throw .duplicate(path, error.message)
            }
        }
        for engine in library.engines {
            if let existing = RecognizerEngines.engine(named: engine.name), !existing.summary.hasSuffix("(plugin: \(library.path))") {
                // A plugin's engine says where it came from at the end of its summary (PluginEngineType.engine).
                let origin = existing.summary.range(of: " (plugin: ", options: .backwards)
                    .map { String(existing.summary[$0.upperBound...].dropLast()) } ?? "built-in"
                throw .duplicate(path, "recognizer engine \"\(engine.name)\" is already registered (from \(origin))")
            }
        }
        // An engine already registered here came from this plugin (loaded before): it stays.
        for engine in library.engines where RecognizerEngines.engine(named: engine.name) == nil {
            do {
                try RecognizerEngines.register(engine.engine)
            } catch {
                throw .duplicate(path, error.message)
            }
        }
        registry = updated
        return library
    }

    /// Loads `spec`'s plugins and the search path into `registry`. A plugin the config names must load (the
    /// first refusal is thrown, naming `plugins[i]`); one on `AUDIOGRAPH_PLUGIN_PATH` that does not is skipped
    /// with a warning, as GStreamer skips a broken plugin (`audiograph plugins` says why).
    public static func prepare(_ spec: GraphSpec, registry: inout NodeRegistry,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               warn: (String) -> Void = { _ in }) throws(GraphError) {
        let reports = load(spec, into: &registry, environment: environment)
        for report in reports {
            guard let error = report.error else { continue }
            if report.source == "AUDIOGRAPH_PLUGIN_PATH" {
                if !report.repeated { warn("plugin \(report.path) skipped: \(error)") }
            } else {
                throw GraphError(error.code, at: report.source, "\(report.path): \(error)")
            }
        }
    }

    /// The first refusal as a `GraphError` naming where the plugin was asked for, or nil when all loaded.
    public static func firstError(_ reports: [Report]) -> GraphError? {
        guard let report = reports.first(where: { $0.error != nil }), let error = report.error else { return nil }
        return GraphError(error.code, at: report.source, "\(report.path): \(error)")
    }
}
