import Foundation
import AudioGraphTestKit
import Testing

/// docs/architecture.md's module table is checked against Package.swift: every library module and the CLI has a
/// row, every row names a module that exists, and a row's "depends on" column names each of the module's
/// dependencies (in full, or without the `AudioGraph` prefix).
@Suite(.ownThreads) struct ModuleTableTests {
    /// Each `AudioGraph…` target (and `audiograph`) of Package.swift with its dependencies.
    static func packageTargets() throws -> [String: [String]] {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: [String]] = [:]
        let declaration = /\.(?:target|executableTarget)\(name: "([A-Za-z]+)"(?:,\s*dependencies: \[([^\]]*)\])?/
        for match in manifest.matches(of: declaration) {
            let name = String(match.1)
            guard name.hasPrefix("AudioGraph") || name == "audiograph" else { continue }
            let dependencies = match.2.map { list in
                list.matches(of: /"([A-Za-z]+)"/).map { String($0.1) }
            } ?? []
            targets[name] = dependencies
        }
        return targets
    }

    /// The table's rows: module → its "depends on" cell.
    static func tableRows() throws -> [String: String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[3]
        }
        return rows
    }

    @Test func everyModuleHasARowAndEveryRowAModule() throws {
        let targets = try Self.packageTargets()
        let rows = try Self.tableRows()
        #expect(targets.count >= 14, "\(targets.keys.sorted())")
        for name in targets.keys.sorted() {
            #expect(rows[name] != nil, "docs/architecture.md has no row for \(name)")
        }
        for name in rows.keys.sorted() where name.hasPrefix("AudioGraph") || name == "audiograph" {
            #expect(targets[name] != nil, "docs/architecture.md has a row for \(name), which Package.swift does not declare")
        }
    }

    @Test func eachRowNamesTheModulesDependencies() throws {
        let rows = try Self.tableRows()
        for (name, dependencies) in try Self.packageTargets().sorted(by: { $0.key < $1.key }) {
            guard let cell = rows[name] else { continue }
            let words = Set(cell.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
            for dependency in dependencies {
                let short = dependency.hasPrefix("AudioGraph") && dependency != "AudioGraph"
                    ? String(dependency.dropFirst("AudioGraph".count)) : dependency
                #expect(words.contains(dependency) || words.contains(short),
                        "the row of \(name) does not name its dependency \(dependency) (\(short)): \(cell)")
            }
        }
    }

    /// The modules a C-free program links stay C-free: the remote client (through the store's model) and Core;
    /// the server links only the store's, HTTP, WebSocket framing and hashing libraries.
    /// A C target is one Package.swift declares without the `AudioGraph` prefix (`CSQLite`, `CPostgres`, …).
    @Test func theClientAndCoreReachNoCLibrary() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        var dependencies: [String: [String]] = [:]
        let declaration = /\.(?:target|systemLibrary|executableTarget)\(name: "([A-Za-z]+)"(?:,\s*(?:path: "[^"]*",\s*)?dependencies: \[([^\]]*)\])?/
        for match in manifest.matches(of: declaration) {
            dependencies[String(match.1)] = match.2.map { $0.matches(of: /"([A-Za-z]+)"/).map { String($0.1) } } ?? []
        }
        func reached(from module: String) -> Set<String> {
            var seen: Set<String> = [], pending = [module]
            while let next = pending.popLast() {
                if seen.insert(next).inserted { pending += dependencies[next] ?? [] }
            }
            return seen
        }
        #expect(reached(from: "AudioGraphServer").contains("CSQLite"), "the walk over Package.swift found nothing")
        for module in ["AudioGraphClient", "AudioGraphStoreModel", "AudioGraphCore"] {
            let cModules = reached(from: module).filter { $0.hasPrefix("C") }
            #expect(cModules.isEmpty, "\(module) reaches C modules: \(cModules.sorted())")
        }
        // The server reaches sessions only through Core's SteerableSession: no audio, device or recognizer library.
        let serverC = reached(from: "AudioGraphServer").filter { $0.hasPrefix("C") }
        #expect(serverC == ["CSQLite", "CPostgres", "CMicroHTTPD", "CWslay", "CCrypto"], "\(serverC.sorted())")
    }
}
