import Foundation
import PackagePlugin

/// `swift package validate-pipelines [--tool PRODUCT] [--verbose] [PATH...]`
///
/// Finds the pipeline configs in the package (every `*.json` whose top level has a `version` and a `nodes` key)
/// and checks each with audiograph's own `audiograph validate`, which builds the whole graph: parameters, links,
/// formats, input files, plugins. Prints one line per file; when any fails, reports each failure as an error (the
/// file and the tool's `<JSON path>: <message>`) and exits non-zero.
///
/// `--tool PRODUCT` validates with an executable product of the package being checked instead (built first): one
/// that registers the package's own node types and answers `PRODUCT validate FILE` like `audiograph validate`
/// (exit 0 when valid; else non-zero with `<where>: <what>` on stderr).
///
/// PATHs (files or folders, relative to the package root) limit the check; a file named explicitly is validated
/// even when it does not look like a pipeline. Without PATHs the whole package is searched for the pipelines a
/// user means, skipping hidden folders (`.build`, `.git`, `.swiftpm`), SwiftPM scratch folders, `Package.resolved`,
/// and what is not a pipeline of the package: test code and its fixtures (`Tests`), fuzz corpora (`fuzz`, broken
/// on purpose) and nested packages (a folder with a `Package.swift` of its own checks its own pipelines).
@main
struct ValidatePipelines: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let verbose = extractor.extractFlag(named: "verbose") > 0
        let wantsHelp = extractor.extractFlag(named: "help") > 0
        let toolProducts = extractor.extractOption(named: "tool")
        let paths = extractor.remainingArguments
        if wantsHelp {
            say(Self.help)
            return
        }
        if let unknown = paths.first(where: { $0.hasPrefix("--") }) {
            throw PluginError("unknown option \(unknown)\n\(Self.help)")
        }

        let root = context.package.directoryURL.standardizedFileURL
        let files = try PipelineFinder(root: root).find(paths)
        if files.isEmpty {
            say("No pipeline configs found (a pipeline is a .json file with top-level \"version\" and \"nodes\").")
            return
        }

        guard toolProducts.count <= 1 else { throw PluginError("--tool given more than once") }
        let tool = try validator(toolProducts.first, context: context)
        let scratch = context.pluginWorkDirectoryURL
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)

        var failures: [(file: String, message: String)] = []
        for file in files {
            let name = PipelineFinder.display(file, root: root)
            let result = try run(tool, ["validate", file.path], in: root, scratch: scratch)
            if result.status == 0 {
                report("ok    \(name)")
                if verbose { say(result.output.indented) }
            } else {
                let message = Self.errorText(result.errors, file: file, tool: tool.lastPathComponent)
                report("FAIL  \(name) (exit \(result.status))\n" + message.indented)
                failures.append((name, message))
            }
        }

        if failures.isEmpty {
            say("\(files.count) pipeline\(files.count == 1 ? "" : "s") valid.")
            return
        }
        for failure in failures {
            // `file:3:5: invalid JSON ...` like a compiler when the tool gave a line and column.
            let separator = failure.message.first?.isNumber == true ? ":" : ": "
            Diagnostics.error(failure.file + separator + failure.message)
        }
        throw PluginError("\(failures.count) of \(files.count) pipelines failed validation: "
            + failures.map(\.file).joined(separator: ", "))
    }

    static let help = """
        USAGE: swift package validate-pipelines [--tool PRODUCT] [--verbose] [PATH...]

        Validates pipeline configs (.json files with top-level "version" and "nodes") with `audiograph validate`.
        PATHs are files or folders relative to the package root (default: the whole package).
          --tool PRODUCT  validate with this executable product of the package instead (built first); it must
                          answer `PRODUCT validate FILE` like `audiograph validate` (for your own node types)
          --verbose       also print each valid pipeline's resolved graph
        """

    /// audiograph's own CLI, or the package's executable PRODUCT built now.
    func validator(_ product: String?, context: PluginContext) throws -> URL {
        guard let product else { return try context.tool(named: "audiograph").url }
        let result = try packageManager.build(
            .product(product), parameters: PackageManager.BuildParameters(configuration: .debug, logging: .concise))
        guard result.succeeded else {
            say(result.logText)
            throw PluginError("building \(product) failed (is it an executable product of \(context.package.displayName)?)")
        }
        let executables = result.builtArtifacts.filter { $0.kind == .executable }
        guard let artifact = executables.first(where: { $0.url.lastPathComponent == product }) ?? executables.first else {
            throw PluginError("\(product) is not an executable product of \(context.package.displayName)")
        }
        return artifact.url
    }

    /// The tool's stderr without its `audiograph: ` (or `<tool>: `) prefixes, and without the file's own path
    /// where the tool leads with it (JSON syntax errors are `<path>:<line>:<column>: ...`).
    static func errorText(_ stderr: String, file: URL, tool: String) -> String {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true).map { line -> String in
            var text = String(line)
            for prefix in ["audiograph: ", tool + ": "] where text.hasPrefix(prefix) {
                text.removeFirst(prefix.count)
                break
            }
            if text.hasPrefix(file.path + ":") { text.removeFirst(file.path.count + 1) }
            return text.trimmingCharacters(in: .whitespaces)
        }
        return lines.isEmpty ? "audiograph validate failed with no message" : lines.joined(separator: "\n")
    }

    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the tool with its output in files (no pipe can fill up and stall it).
    func run(_ tool: URL, _ arguments: [String], in directory: URL, scratch: URL) throws -> Result {
        let outURL = scratch.appendingPathComponent("stdout.txt")
        let errURL = scratch.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            throw PluginError("cannot run \(tool.path): \(error)")
        }
        process.waitUntilExit()
        let output = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, output: output, errors: errors)
    }
}

/// Prints a line now (stdout is a pipe to SwiftPM, so it would otherwise wait behind the diagnostics).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// A file's result line, sent as a progress diagnostic: SwiftPM prints those on stderr as they arrive
/// (`[ValidatePipelines] ok    pipelines/good.json`). What a plugin writes to stdout is relayed later and, when
/// the plugin fails on a loaded machine, sometimes not at all (seen in CI: the error lines arrived, the stdout
/// lines did not).
func report(_ line: String) {
    Diagnostics.progress(line)
}

/// Finds pipeline configs under the package root.
struct PipelineFinder {
    let root: URL

    /// The files to validate, sorted by path: explicit files as given, pipelines found under folders.
    func find(_ arguments: [String]) throws -> [URL] {
        let manager = FileManager.default
        if arguments.isEmpty { return search(root) }
        var files: [URL] = []
        for argument in arguments {
            let url = argument.hasPrefix("/")
                ? URL(fileURLWithPath: argument).standardizedFileURL
                : root.appendingPathComponent(argument).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw PluginError("\(argument): no such file or folder (paths are relative to the package root, "
                    + "\(root.path))")
            }
            files += isDirectory.boolValue ? search(url) : [url]
        }
        var seen = Set<String>()
        return files.filter { seen.insert($0.path).inserted }
    }

    /// Folders that hold no pipeline of the package (see the command's doc).
    static let skippedFolders: Set<String> = ["Tests", "fuzz"]

    /// Pipelines under `folder`, skipping hidden folders, SwiftPM scratch folders, Package.resolved, `Tests`,
    /// `fuzz` and nested packages.
    func search(_ folder: URL) -> [URL] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey],
                                                  options: [.skipsHiddenFiles]) else { return [] }
        var found: [URL] = []
        for case let url as URL in enumerator {
            let isDirectory = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isDirectory {
                // A scratch folder given with --scratch-path inside the package (`.build` is hidden anyway).
                if manager.fileExists(atPath: url.appendingPathComponent("workspace-state.json").path)
                    || Self.skippedFolders.contains(url.lastPathComponent)
                    || manager.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                    enumerator.skipDescendants()
                }
                continue
            }
            guard url.pathExtension == "json", url.lastPathComponent != "Package.resolved" else { continue }
            if Self.isPipeline(url) { found.append(url.standardizedFileURL) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// A JSON object with top-level `version` and `nodes`. A file that does not parse counts when its text
    /// mentions both keys, so `audiograph validate` reports the syntax error with line and column.
    static func isPipeline(_ url: URL) -> Bool {
        guard let data = try? Data(contentsOf: url) else { return false }
        if let object = try? JSONSerialization.jsonObject(with: data) {
            guard let dictionary = object as? [String: Any] else { return false }
            return dictionary["version"] != nil && dictionary["nodes"] != nil
        }
        let text = String(decoding: data, as: UTF8.self)
        return text.contains("\"version\"") && text.contains("\"nodes\"")
    }

    /// The path relative to the package root when it is inside it.
    static func display(_ url: URL, root: URL) -> String {
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        return url.path.hasPrefix(prefix) ? String(url.path.dropFirst(prefix.count)) : url.path
    }
}

/// The plugin's own error (Foundation's CocoaError is awkward on Linux).
struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    var indented: String {
        split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "      " + $0 }
            .joined(separator: "\n")
            .trimmingCharacters(in: .newlines)
    }
}
