import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// Issue 14, items 3 and 9, in the graph builder: the path roles nodes declare (`ParameterSpec.PathRole`) are
/// what the builder checks, for any node type (a plugin's as much as a built-in's): an output may not resolve
/// to an input or an exclusive output to another output (65, naming both JSON paths), an input must be a
/// regular file (66; a FIFO is never opened), all before a single node is made.
struct PathConflictTests {
    /// Counts the nodes made, to prove a refused graph made none.
    final class Made: Sendable {
        let count = Mutex(0)
    }

    /// A registry of a reading source, an exclusive writer and a shared writer, each with a `path`.
    static func registry(_ made: Made) -> NodeRegistry {
        var registry = NodeRegistry()
        func with(_ descriptor: NodeDescriptor, type: String, role: ParameterSpec.PathRole) -> NodeDescriptor {
            var descriptor = descriptor
            descriptor.type = type
            descriptor.parameters.append(ParameterSpec("path", .path(role), required: true, doc: "A file."))
            return descriptor
        }
        try! registry.register(descriptor: with(ToneSourceNode.descriptor, type: "reader", role: .input), origin: "test") {
            made.count.withLock { $0 += 1 }
            return try ToneSourceNode(configuration: $0)
        }
        for (type, role) in [("writer", ParameterSpec.PathRole.output), ("db", .sharedOutput)] {
            try! registry.register(descriptor: with(RecordingSinkNode.descriptor, type: type, role: role), origin: "test") {
                made.count.withLock { $0 += 1 }
                return try RecordingSinkNode(configuration: $0)
            }
        }
        return registry
    }

    static func build(_ nodes: String, links: String, in dir: URL, made: Made = Made()) throws(GraphError) -> Graph {
        let spec = try ConfigLoader.parse("{\"version\": 1, \"nodes\": {\(nodes)}, \"links\": [\(links)]}",
                                          baseDirectory: dir.path)
        return try GraphBuilder(registry: registry(made)).build(spec)
    }

    static func folder() throws -> TemporaryFolder {
        let folder = try TemporaryFolder(prefix: "path-conflicts")
        try Data("audio".utf8).write(to: folder.url.appendingPathComponent("in.wav"))
        return folder
    }

    @Test("an output naming the input, directly or through a dangling symlink's folder: 65 naming both, nothing made")
    func outputIsInput() throws {
        let folder = try Self.folder()
        let made = Made()
        for output in ["in.wav", "./x/../in.wav"] {
            do {
                _ = try Self.build("\"src\": {\"type\": \"reader\", \"path\": \"in.wav\"}, \"out\": {\"type\": \"writer\", \"path\": \"\(output)\"}",
                                   links: "\"src -> out\"", in: folder.url, made: made)
                Issue.record("built a graph whose output \(output) is its input")
            } catch {
                #expect(error.code == .invalidConfig && error.location == "nodes.out.path", "\(error)")
                #expect(error.message.contains("nodes.src.path"), "\(error)")
            }
        }
        #expect(made.count.withLock { $0 } == 0, "refused before any node was made")
    }

    @Test("a dangling symlink resolves to the file it would create; two writers of one new file are refused")
    func danglingSymlink() throws {
        let folder = try Self.folder()
        try FileManager.default.createSymbolicLink(atPath: folder.url.appendingPathComponent("link.wav").path,
                                                   withDestinationPath: "new/target.wav")
        #expect(ResolvedPath(folder.url.appendingPathComponent("link.wav").path)
                == ResolvedPath(folder.url.appendingPathComponent("new/sub/../target.wav").path))
        do {
            _ = try Self.build("""
                "src": {"type": "reader", "path": "in.wav"}, "a": {"type": "writer", "path": "new/target.wav"},
                "b": {"type": "writer", "path": "link.wav"}
                """, links: "\"src -> a\", \"src -> b\"", in: folder.url)
            Issue.record("two writers of one file were accepted")
        } catch {
            #expect(error.location == "nodes.b.path" && error.message.contains("nodes.a.path"), "\(error)")
        }
    }

    @Test("shared outputs may share a file with each other, never with an input; distinct files build")
    func sharedOutputs() throws {
        let folder = try Self.folder()
        let graph = try Self.build("""
            "src": {"type": "reader", "path": "in.wav"}, "a": {"type": "db", "path": "t.sqlite"},
            "b": {"type": "db", "path": "t.sqlite"}, "c": {"type": "writer", "path": "out.wav"}
            """, links: "\"src -> a\", \"src -> b\", \"src -> c\"", in: folder.url)
        #expect(graph.nodes.count == 4)
        #expect(throws: GraphError.self) {
            try Self.build("\"src\": {\"type\": \"reader\", \"path\": \"in.wav\"}, \"a\": {\"type\": \"db\", \"path\": \"in.wav\"}",
                           links: "\"src -> a\"", in: folder.url)
        }
    }

    @Test("an input that is a FIFO or a folder is refused (66) without being opened")
    func notRegularInputs() throws {
        let folder = try Self.folder()
        #expect(mkfifo(folder.url.appendingPathComponent("pipe.wav").path, 0o600) == 0)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("folder.wav"), withIntermediateDirectories: true)
        for (name, kind) in [("pipe.wav", "FIFO"), ("folder.wav", "folder")] {
            do {
                _ = try Self.build("\"src\": {\"type\": \"reader\", \"path\": \"\(name)\"}, \"out\": {\"type\": \"writer\", \"path\": \"o.wav\"}",
                                   links: "\"src -> out\"", in: folder.url)
                Issue.record("accepted \(name)")
            } catch {
                #expect(error.code == .missingInput && error.location == "nodes.src.path" && error.message.contains(kind),
                        "\(error)")
            }
        }
    }

    @Test("path roles survive the plugin wire format; an unknown role is refused")
    func wireRoles() throws {
        for role in ParameterSpec.PathRole.allCases {
            let spec = ParameterSpec("p", .path(role), doc: "")
            let descriptor = NodeDescriptor(type: "t", summary: "", category: .sink, parameters: [spec],
                                            inputs: [.init(requires: [.audio])], outputs: [])
            let encoded = JSONWriter.compact(WireFormat.encode(descriptor))
            let decoded = try WireFormat.descriptor(WireFormat.parse(encoded))
            #expect(decoded.parameters.first?.kind == .path(role))
            let bogus = encoded.replacingOccurrences(of: "\"role\":\"\(role.name)\"", with: "\"role\":\"bogus\"")
            #expect(bogus != encoded)
            #expect(throws: WireFormatError.self) { try WireFormat.descriptor(WireFormat.parse(bogus)) }
        }
    }
}
