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

    /// Writes the dot text to `path`, in place (a symlink stays a symlink and its target is written), and
    /// reports every failure: 73 when the file cannot be opened, 74 when a write or the close fails (a full
    /// disk, `/dev/full`). The open never blocks (`O_NONBLOCK`: a FIFO with no reader is refused).
    /// The file is one of the graph's files too (an output that may not be an input): `--dot in.wav` or
    /// `--dot c.json` is refused (65, naming the input) before anything is written.
    static func write(_ graph: Graph, to path: String) throws(GraphError) {
        try PathUse.checkConflicts(graph.pathUses + [PathUse(role: .output, path: path, location: "--dot")])
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw GraphError(.cannotCreateOutput, at: path, "cannot write the dot file: \(String(cString: strerror(errno)))")
        }
        let bytes = Array(dot(graph).utf8)
        var offset = 0
        var failure: Int32 = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            offset += written
        }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure != 0 {
            throw GraphError(.io, at: path, "writing the dot file failed: \(String(cString: strerror(failure)))")
        }
    }
}
