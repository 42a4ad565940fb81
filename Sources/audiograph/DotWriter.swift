import AudioGraph
import Foundation

/// Writes a built graph as Graphviz dot: nodes labelled with id and type, links with what they carry.
enum DotWriter {
    static func dot(_ graph: Graph) -> String {
        var lines = ["digraph audiograph {", "  rankdir=LR;", "  node [shape=box, fontname=\"Helvetica\"];"]
        for node in graph.nodes {
            let style = node.autoInserted ? ", style=dashed" : ""
            lines.append("  \"\(node.id)\" [label=\"\(node.id)\\n\(node.descriptor.type)\"\(style)];")
        }
        for link in graph.links {
            let label = link.kinds.sorted().map { kind in
                kind == .audio ? (link.format.map { "audio \($0)" } ?? "audio") : kind.name
            }.joined(separator: ", ")
            lines.append("  \"\(link.from)\" -> \"\(link.to)\" [label=\"\(label)\"];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static func write(_ graph: Graph, to path: String) throws(GraphError) {
        do {
            try dot(graph).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, "cannot write the dot file")
        }
    }
}
