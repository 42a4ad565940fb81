import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory scaffold-node NAME [--target TARGET]`
///
/// Writes a new node type, `NAME` in configs (`noise-gate`) and `NoiseGateNode` in Swift, into a target of the
/// package, with a Swift Testing test that drives it through AudioGraphTestKit's `NodeHarness`:
///
/// - `<target folder>/NoiseGate/NoiseGateNode.swift`: the descriptor, one example parameter (`gain`) and the
///   `AudioNode` conformance, every lifecycle call documented, TODOs where behavior goes. As generated it is a
///   filter that scales audio by `gain` (1, the default, passes audio through unchanged).
/// - `<test target folder>/NoiseGateNodeTests.swift`: tests that pass as generated.
///
/// Works in audiograph itself and in any package that depends on it (the usual case: a package of custom
/// nodes). Never overwrites a file; refuses a type name that a visible target already declares.
@main
struct ScaffoldNode: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        if extractor.extractFlag(named: "help") > 0 {
            print(Self.help)
            return
        }
        let targetNames = extractor.extractOption(named: "target")
        let positionals = extractor.remainingArguments
        if let unknown = positionals.first(where: { $0.hasPrefix("-") }) {
            throw ScaffoldError("unknown option \(unknown)\n\n\(Self.help)")
        }
        guard positionals.count == 1 else {
            throw ScaffoldError((positionals.isEmpty ? "missing the node type name" : "one node type name, please")
                + "\n\n\(Self.help)")
        }
        guard targetNames.count <= 1 else { throw ScaffoldError("--target given more than once") }

        let name = try NodeName(positionals[0])
        let layout = try Layout(package: context.package, name: name, targetName: targetNames.first)
        try layout.checkNothingClashes(in: context.package)
        try layout.write()
        print(layout.report())
    }

    static let help = """
        USAGE: swift package --allow-writing-to-package-directory scaffold-node NAME [--target TARGET]

        Writes a new node type and its test. NAME is the type name configs use: lowercase letters, digits and
        '-' (noise-gate → NoiseGateNode). TARGET is the module to put it in (default: the package's only library
        target that depends on AudioGraph, AudioGraphPluginKit or AudioGraphCore; AudioGraphDSP inside audiograph
        itself). Existing files are never overwritten.
        """
}

/// The plugin's own error (Foundation's CocoaError is awkward on Linux).
struct ScaffoldError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Names

/// A node type name (`noise-gate`) and the Swift names made from it.
struct NodeName {
    /// The type name configs use: `noise-gate`.
    let type: String
    /// `NoiseGate`: the folder and the stem of the file names.
    let stem: String
    /// `NoiseGateNode`.
    var swiftType: String { stem + "Node" }

    init(_ raw: String) throws {
        let parts = raw.split(separator: "-", omittingEmptySubsequences: false)
        let valid = !raw.isEmpty && raw.first!.isLetter && parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
        }
        guard valid else {
            let suggestion = Self.suggestion(for: raw)
            throw ScaffoldError("\"\(raw)\" is not a node type name: use lowercase letters, digits and '-', starting "
                + "with a letter (like level-meter)" + (suggestion.map { "; did you mean \"\($0)\"?" } ?? ""))
        }
        type = raw
        // `noise-gate-node` is still NoiseGateNode, not NoiseGateNodeNode.
        let words = parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }
        let joined = words.joined()
        stem = joined.hasSuffix("Node") && joined != "Node" ? String(joined.dropLast(4)) : joined
    }

    /// `NoiseGate`, `noise_gate`, `Noise Gate` → `noise-gate`.
    static func suggestion(for raw: String) -> String? {
        var result = ""
        var previousWasLower = false
        for character in raw {
            if character.isUppercase {
                if previousWasLower { result += "-" }
                result += character.lowercased()
                previousWasLower = false
            } else if character == "_" || character == " " || character == "-" {
                if !result.isEmpty && !result.hasSuffix("-") { result += "-" }
                previousWasLower = false
            } else if character.isLetter || character.isNumber {
                result.append(character)
                previousWasLower = true
            }
        }
        while result.hasSuffix("-") { result.removeLast() }
        guard !result.isEmpty, result != raw, (try? NodeName(result)) != nil else { return nil }
        return result
    }
}

// MARK: - Where things go

/// Which target the node goes in, which modules the files import, and the two file paths.
struct Layout {
    let name: NodeName
    let packageName: String
    let packageRoot: URL
    let target: SwiftSourceModuleTarget
    /// The test target, when the package has one for `target`.
    let testTarget: SwiftSourceModuleTarget?
    /// True inside audiograph itself (it has an `AudioGraphCore` target).
    let isAudioGraphItself: Bool
    /// How the package names audiograph in `.product(name:package:)`, for hints in other packages.
    let audiographPackage: String
    /// `AudioGraph` or `AudioGraphCore`: what the node file imports.
    let coreModule: String
    let sourceFile: URL
    let testFile: URL
    /// Missing pieces of the manifest, told to the user.
    var manifestHints: [String] = []

    init(package: Package, name: NodeName, targetName: String?) throws {
        self.name = name
        packageName = package.displayName
        packageRoot = package.directoryURL
        let swiftTargets = package.targets.compactMap { $0 as? SwiftSourceModuleTarget }
        isAudioGraphItself = package.targets.contains { $0.name == "AudioGraphCore" }
        audiographPackage = Self.audiographReference(package)

        let target: SwiftSourceModuleTarget
        if let targetName {
            guard let named = swiftTargets.first(where: { $0.name == targetName }) else {
                let names = swiftTargets.filter { $0.kind != .test }.map(\.name).sorted()
                throw ScaffoldError("no Swift target named \(targetName) in \(package.displayName); its Swift "
                    + "targets are " + names.joined(separator: ", "))
            }
            guard named.kind != .test else {
                throw ScaffoldError("\(targetName) is a test target; pass the target the node belongs to "
                    + "(its test goes in the matching test target)")
            }
            guard named.kind == .generic || named.kind == .executable else {
                throw ScaffoldError("\(targetName) is not a library or executable target")
            }
            guard named.name != "AudioGraphCore" else {
                throw ScaffoldError("node types do not go in AudioGraphCore (the graph itself); pick a target that "
                    + "depends on it, such as AudioGraphDSP")
            }
            target = named
        } else {
            let candidates = swiftTargets.filter {
                $0.kind == .generic && $0.name != "AudioGraphTestKit" && Self.coreModule(for: $0) != nil
            }
            if candidates.count == 1 {
                target = candidates[0]
            } else if isAudioGraphItself, let dsp = candidates.first(where: { $0.name == "AudioGraphDSP" }) {
                target = dsp
            } else if candidates.isEmpty {
                throw ScaffoldError("no library target of \(package.displayName) depends on AudioGraph: add "
                    + ".product(name: \"AudioGraph\", package: \"\(audiographPackage)\") to a target's dependencies, "
                    + "or pass --target")
            } else {
                throw ScaffoldError("several targets could hold the node (" + candidates.map(\.name).joined(separator: ", ")
                    + "): pass --target NAME")
            }
        }
        guard let core = Self.coreModule(for: target) else {
            throw ScaffoldError("target \(target.name) does not depend on AudioGraph: add .product(name: \"AudioGraph\", "
                + "package: \"\(audiographPackage)\") to its dependencies in Package.swift")
        }
        self.target = target
        coreModule = core

        let tests = swiftTargets.filter { candidate in
            candidate.kind == .test && candidate.dependencies.contains {
                if case .target(let dependency) = $0 { return dependency.name == target.name }
                return false
            }
        }
        testTarget = tests.first { $0.name == target.name + "Tests" } ?? (tests.count == 1 ? tests[0] : nil)

        sourceFile = target.directoryURL.appendingPathComponent(name.stem)
            .appendingPathComponent(name.swiftType + ".swift")
        let testFolder = testTarget?.directoryURL
            ?? package.directoryURL.appendingPathComponent("Tests").appendingPathComponent(target.name + "Tests")
        testFile = testFolder.appendingPathComponent(name.swiftType + "Tests.swift")

        let testKit = isAudioGraphItself
            ? "\"AudioGraphTestKit\"" : ".product(name: \"AudioGraphTestKit\", package: \"\(audiographPackage)\")"
        if let testTarget {
            let modules = Set(testTarget.recursiveTargetDependencies.map(\.name))
            if !modules.contains("AudioGraphTestKit") {
                manifestHints.append("add \(testKit) to the dependencies of test target \(testTarget.name)")
            }
        } else {
            manifestHints.append("declare the test target in Package.swift:\n"
                + "    .testTarget(name: \"\(target.name)Tests\", dependencies: [\"\(target.name)\", \(testKit)]),")
        }
    }

    /// What the node file imports: `AudioGraph` (what embedders use), `AudioGraphPluginKit` (run-time plugins) or
    /// `AudioGraphCore`, whichever the target depends on, direct dependencies first; nil when it sees none.
    static func coreModule(for target: SwiftSourceModuleTarget) -> String? {
        if target.name == "AudioGraphCore" { return nil }
        func names(_ dependencies: [TargetDependency]) -> Set<String> {
            var result = Set<String>()
            for dependency in dependencies {
                switch dependency {
                case .target(let target): result.insert(target.name)
                case .product(let product): result.formUnion(product.targets.map(\.name))
                @unknown default: break
                }
            }
            return result
        }
        let direct = names(target.dependencies)
        let all = direct.union(target.recursiveTargetDependencies.map(\.name))
        for set in [direct, all] {
            for module in ["AudioGraph", "AudioGraphPluginKit", "AudioGraphCore"]
            where set.contains(module) && target.name != module {
                return module
            }
        }
        return nil
    }

    /// How the manifest names audiograph in `.product(name:package:)`: as it already does for one of audiograph's
    /// products (a `.package(name:path:)` dependency changes the name), else audiograph's package identity.
    static func audiographReference(_ package: Package) -> String {
        let manifest = package.directoryURL.appendingPathComponent("Package.swift")
        if let text = try? String(contentsOf: manifest, encoding: .utf8),
           let pattern = try? Regex(#"\.product\(\s*name:\s*"AudioGraph[A-Za-z]*"\s*,\s*package:\s*"([^"]+)""#),
           let match = text.firstMatch(of: pattern), let name = match.output[1].substring {
            return String(name)
        }
        return audiographIdentity(package)
    }

    /// The package identity of audiograph among the dependencies (the last part of a URL dependency, the folder
    /// name for a path dependency).
    static func audiographIdentity(_ package: Package) -> String {
        var queue = package.dependencies.map(\.package)
        var seen = Set<String>()
        while !queue.isEmpty {
            let candidate = queue.removeFirst()
            guard seen.insert(candidate.id).inserted else { continue }
            if candidate.targets.contains(where: { $0.name == "AudioGraphCore" }) { return candidate.id }
            queue += candidate.dependencies.map(\.package)
        }
        return "audiograph"
    }

    /// Refuses existing files, an existing Swift type of the same name in the target, and an existing node type
    /// name anywhere in the package or its dependencies (registering both would fail).
    func checkNothingClashes(in package: Package) throws {
        let manager = FileManager.default
        for file in [sourceFile, testFile] where manager.fileExists(atPath: file.path) {
            throw ScaffoldError("\(display(file)) already exists; not overwriting it (pick another name or remove it)")
        }
        let declaration = try Regex("\\b(class|struct|enum|actor|typealias)\\s+\(name.swiftType)\\b")
        for file in Self.swiftFiles(of: [target] + (testTarget.map { [$0] } ?? [])) {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            if text.contains(declaration) {
                throw ScaffoldError("\(display(file)) already declares \(name.swiftType)")
            }
        }
        let typeDeclaration = "type: \"\(name.type)\""
        for file in Self.swiftFiles(of: Self.allTargets(package)) {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            if text.contains(typeDeclaration) {
                throw ScaffoldError("node type \"\(name.type)\" already exists (\(display(file))); registering two "
                    + "types of one name fails, so pick another name")
            }
        }
        for folder in [sourceFile.deletingLastPathComponent(), testFile.deletingLastPathComponent()] {
            // Linux has no plugin sandbox: check we may write before writing anything.
            var existing = folder
            while !manager.fileExists(atPath: existing.path) { existing.deleteLastPathComponent() }
            guard manager.isWritableFile(atPath: existing.path) else {
                throw ScaffoldError("cannot write to \(existing.path)")
            }
        }
    }

    static func allTargets(_ package: Package) -> [any Target] {
        var targets: [any Target] = []
        var queue = [package]
        var seen = Set<String>()
        while !queue.isEmpty {
            let next = queue.removeFirst()
            guard seen.insert(next.id).inserted else { continue }
            targets += next.targets
            queue += next.dependencies.map(\.package)
        }
        return targets
    }

    static func swiftFiles(of targets: [any Target]) -> [URL] {
        targets.compactMap { $0 as? SourceModuleTarget }.flatMap { target in
            target.sourceFiles.filter { $0.type == .source && $0.url.pathExtension == "swift" }.map(\.url)
        }
    }

    /// Writes both files, or neither.
    func write() throws {
        let manager = FileManager.default
        let files = [(sourceFile, Templates.node(self)), (testFile, Templates.test(self))]
        var written: [URL] = []
        do {
            for (url, text) in files {
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard manager.createFile(atPath: url.path, contents: Data(text.utf8)) else {
                    throw ScaffoldError("cannot write \(url.path)")
                }
                written.append(url)
            }
        } catch {
            for url in written { try? manager.removeItem(at: url) }
            throw error
        }
    }

    /// A path relative to the package root when inside it.
    func display(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let root = packageRoot.standardizedFileURL.path
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// What was written and what to do next.
    func report() -> String {
        var lines = [
            "Created node type \"\(name.type)\" (\(name.swiftType)) in target \(target.name):",
            "  \(display(sourceFile))",
            "  \(display(testFile))",
            "",
        ]
        if !manifestHints.isEmpty {
            lines.append("Package.swift needs:")
            lines += manifestHints.map { "  - " + $0 }
            lines.append("")
        }
        if isAudioGraphItself {
            lines.append("Register it as a built-in:")
            lines.append("  add \(name.swiftType).self to the built-ins in Sources/AudioGraph/BuiltinNodes.swift, then")
            lines.append("  regenerate the node reference: swift run audiograph docs nodes > docs/nodes.md")
        } else if coreModule == "AudioGraphPluginKit" {
            lines.append("Register it in your plugin: add it to the nodes the plugin exports,")
            lines.append("  AudioGraphPlugin.export(name: ..., version: ..., nodes: [..., \(name.swiftType).self])")
        } else if coreModule == "AudioGraph" {
            lines.append("Register it with the registry you build graphs from:")
            lines.append("  var registry = NodeRegistry.builtins")
            lines.append("  try registry.register(\(name.swiftType).self, origin: \"\(packageName)\")")
            lines.append("  let graph = try loadGraph(configPath: \"pipeline.json\", registry: registry)")
        } else {
            lines.append("Register it with the registry you build graphs from:")
            lines.append("  var registry = NodeRegistry()  // or NodeRegistry.builtins, from `import AudioGraph`")
            lines.append("  try registry.register(\(name.swiftType).self, origin: \"\(packageName)\")")
        }
        lines.append("")
        lines.append("Then fill in the TODOs and run its tests: swift test --filter \(name.swiftType)Tests")
        return lines.joined(separator: "\n")
    }

    /// Modules the test file imports, sorted: the test kit, the core module, the node's module, Testing.
    var testImports: [String] {
        var modules: Set<String> = ["AudioGraphTestKit", "Testing"]
        let testSees = testTarget.map { Set($0.recursiveTargetDependencies.map(\.name)) } ?? []
        modules.insert(testSees.contains("AudioGraph") || coreModule == "AudioGraph" ? "AudioGraph" : "AudioGraphCore")
        modules.insert(target.moduleName)
        // An executable target's types are reachable from tests only through @testable.
        return modules.sorted().map { module in
            (module == target.moduleName && target.kind == .executable ? "@testable import " : "import ") + module
        }
    }
}

// MARK: - Templates

enum Templates {
    static func node(_ layout: Layout) -> String {
        let name = layout.name
        let access = layout.target.kind == .executable ? "" : "public "
        return """
            import \(layout.coreModule)

            /// `\(name.type)`: TODO: say what the node does, in a sentence or two (this comment is its documentation).
            ///
            /// As generated it is a filter that multiplies every sample by `gain` (the default, 1, passes audio
            /// through unchanged) and passes events and control commands on. Register it with a `NodeRegistry` to
            /// use it in configs: `"\(name.type)": { "type": "\(name.type)", "gain": 0.5 }`.
            ///
            /// Lifecycle (see `AudioNode`): `init(configuration:)` and `outputFormat(for:)` at build time, then `start`
            /// once, `process`/`handle` per frame from one thread at a time, `finish` at end of stream (not after this
            /// node failed), and `stop` always, last.
            \(access)final class \(name.swiftType): AudioNode {
                // TODO: the node's parameters, each declared once with its Swift type (`Parameter.integer`, `.number`,
                // `.boolean`, `.string`, `.choice` into an enum). Config validation checks each (type, range,
                // required) before `init`; `configuration[Self.gain]` reads it, the default when the config leaves it out.
                static let gain = Parameter.number("gain", range: 0...16, default: 1,
                                                   doc: "Linear gain applied to every sample; 1 leaves the audio unchanged.")

                /// The declaration: config validation, `audiograph inspect \(name.type)`, the JSON Schema and the node
                /// reference all come from it.
                \(access)static let descriptor = NodeDescriptor(
                    type: "\(name.type)",
                    summary: "TODO: one sentence for `audiograph nodes`.",
                    // .source (no inputs; conform to SourceNode instead), .filter or .sink (no outputs).
                    category: .filter,
                    parameters: [gain.spec],
                    // Frame kinds the node needs from its feeder.
                    inputs: [.init(requires: [.audio])],
                    // TODO: add the kinds of events it makes, e.g. `produces: [.audio, FrameKind("\(name.type)")]`.
                    // forwardsInput: events arriving are passed on too.
                    outputs: [.init(produces: [.audio], forwardsInput: true)],
                    // TODO: restrict the input formats if the node needs to (the builder then inserts a resampler),
                    // e.g. FormatRequirement(sampleRates: [16000], channels: 1...1).
                    acceptedFormats: .any,
                    // .inline for DSP (must not block); .queued(capacity: 64) for slow work (disk, network, models).
                    execution: .inline)

                private let gain: Float

                /// Build time, before any audio flows: read the validated parameters (defaults filled in), check what
                /// the declaration cannot, and open inputs. Throw `configuration.error(_:parameter:)` so the error
                /// names the node and the parameter's JSON path (`nodes.<id>.gain`).
                \(access)init(configuration: NodeConfiguration) throws {
                    gain = Float(configuration[Self.gain])
                    // TODO: check parameters beyond their declaration, e.g.
                    // guard ... else { throw configuration.error("why it is wrong and how to fix it", parameter: "gain") }
                }

                /// Build time: the format this node outputs for the negotiated input format. Formats are settled here,
                /// never discovered while audio flows.
                \(access)func outputFormat(for input: AudioFormat?) throws -> AudioFormat? {
                    // TODO: return another format if the node changes the rate or the channel count.
                    input
                }

                /// Once, before the first frame: connect devices, allocate buffers sized from `context.inputFormat`.
                /// Output files are made in `openOutputs(_:)`, once every node of the run has started.
                \(access)func start(_ context: NodeContext) throws {
                    // TODO: set up what the node needs while audio flows.
                }

                /// Audio arrived: do the work and emit the result downstream. One thread at a time; for inline nodes,
                /// avoid allocating per buffer in steady state.
                \(access)func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
                    // TODO: the node's behavior. To make an event (declare its kind in `outputs` above):
                    // context.emit(.custom(type: "\(name.type)", kind: FrameKind("\(name.type)"), fields: ["value": 1]),
                    //              at: buffer.endTime)
                    guard gain != 1 else {
                        context.emit(buffer)
                        return
                    }
                    var output = buffer
                    for index in output.samples.indices {
                        output.samples[index] *= gain
                    }
                    context.emit(output)
                }

                /// An event from upstream: pass it on (the default) or act on it.
                \(access)func handle(_ event: Event, _ context: NodeContext) throws {
                    context.forward(event)
                }

                /// A control command (`.flush`, `.custom(name:arguments:)`, ...): act on it if it concerns this node, and
                /// pass it on.
                \(access)func handle(_ command: ControlCommand, _ context: NodeContext) throws {
                    context.send(command)
                }

                /// End of stream: flush what is buffered and emit the last frames. Not called when this node failed.
                \(access)func finish(_ context: NodeContext) throws {
                    // TODO: emit whatever is still buffered.
                }

                /// Always called, last, after success, failure or a failed `start`: release everything and leave
                /// outputs valid (close files so headers are written). Must not throw; must be idempotent.
                \(access)func stop() {
                    // TODO: release resources.
                }
            }

            """
    }

    static func test(_ layout: Layout) -> String {
        let name = layout.name
        let type = name.swiftType
        return """
            \(layout.testImports.joined(separator: "\n"))

            /// Tests for `\(name.type)`, driven through AudioGraphTestKit's `NodeHarness`: it validates parameters
            /// against the descriptor, calls `start`, and collects what the node emits. `harness.clock` is a
            /// `ManualClock` for nodes that pace themselves.
            struct \(type)Tests {
                static let mono16k = AudioFormat(sampleRate: 16_000, channels: 1)

                /// With the default gain the audio comes out untouched, in the input's format.
                @Test func passesAudioThrough() throws {
                    let harness = try NodeHarness(type: \(type).self, id: "\(name.type)", input: Self.mono16k)
                    let input = Signals.sine(frequency: 440, seconds: 0.5, sampleRate: 16_000)
                    try harness.push(input, framesPerBuffer: 1_024)
                    try harness.finish()
                    #expect(harness.outputFormat == Self.mono16k)
                    #expect(harness.samples() == input)
                    #expect(harness.buffers().first?.position == 0)
                    #expect(harness.warnings.isEmpty)
                }

                @Test func gainScalesEverySample() throws {
                    let format = AudioFormat(sampleRate: 48_000, channels: 2)
                    let harness = try NodeHarness(type: \(type).self, parameters: ["gain": 0.5], input: format)
                    let input = Signals.noise(seconds: 0.1, sampleRate: 48_000, channels: 2, seed: 7)
                    try harness.push(input, framesPerBuffer: 480)
                    try harness.finish()
                    #expect(harness.samples() == input.map { $0 * 0.5 })
                }

                /// Events from upstream are passed on unchanged.
                @Test func forwardsEvents() throws {
                    let harness = try NodeHarness(type: \(type).self, input: Self.mono16k)
                    let event = Event(node: "vad", time: 0.25, payload: .speechStarted)
                    try harness.push(event)
                    try harness.finish()
                    #expect(harness.events == [event])
                }

                /// Parameters are checked against the descriptor before the node is made.
                @Test func rejectsAGainOutOfRange() {
                    #expect(throws: GraphError.self) {
                        _ = try NodeHarness(type: \(type).self, parameters: ["gain": -1], input: Self.mono16k)
                    }
                }

                @Test func registers() throws {
                    var registry = NodeRegistry()
                    try registry.register(\(type).self, origin: "tests")
                    #expect(registry.entry(for: "\(name.type)")?.descriptor.category == .filter)
                }
            }

            """
    }
}
