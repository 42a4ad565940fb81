import Foundation

/// Output paths named after the input: an output path parameter may hold `{stem}` (the input file's name
/// without its extension), `{name}` (its name), `{dir}` (its folder, absolute) and `{session}` (the session id,
/// else the stem). The input is the path of the graph's one source node that reads a file (`file-source`), so
/// `"path": "{dir}/{stem}.srt"` writes `calls/a.srt` for `calls/a.wav`, and a batch writes one file per input.
public enum InputTemplates {
    /// The placeholders, in the order the docs list them.
    public static let placeholders = ["{stem}", "{name}", "{dir}", "{session}"]

    /// Whether `text` holds a placeholder.
    public static func hasPlaceholder(_ text: String) -> Bool {
        placeholders.contains { text.contains($0) }
    }

    /// `text` with the placeholders replaced from `input` (an absolute path) and `session`.
    public static func expand(_ text: String, input: String, session: String?) -> String {
        let url = URL(fileURLWithPath: input)
        let stem = url.deletingPathExtension().lastPathComponent
        return text.replacingOccurrences(of: "{stem}", with: stem)
            .replacingOccurrences(of: "{name}", with: url.lastPathComponent)
            .replacingOccurrences(of: "{dir}", with: url.deletingLastPathComponent().path)
            .replacingOccurrences(of: "{session}", with: session ?? stem)
    }

    /// `spec` with every output path parameter's placeholders replaced (the node types from `registry` say which
    /// parameters are output paths). Unchanged when no output path holds one; an `invalidConfig` error naming the
    /// parameter when one does and the graph has no single source reading a file to name them after.
    public static func expand(_ spec: GraphSpec, registry: NodeRegistry) throws(GraphError) -> GraphSpec {
        var templated: [(node: Int, parameter: String, text: String)] = []
        var inputs: [String] = []
        for (index, node) in spec.nodes.enumerated() {
            guard let descriptor = registry.entry(for: node.type)?.descriptor else { continue }
            for parameter in descriptor.parameters {
                guard case .path(let role) = parameter.kind, let text = node.parameters[parameter.name]?.stringValue else {
                    continue
                }
                if role.writes, hasPlaceholder(text) {
                    templated.append((index, parameter.name, text))
                } else if role == .input, descriptor.category == .source {
                    inputs.append(NodeConfiguration.resolve(text, against: spec.baseDirectory))
                }
            }
        }
        guard let first = templated.first else { return spec }
        guard inputs.count == 1 else {
            let location = JSONPath.root / "nodes" / spec.nodes[first.node].id / first.parameter
            throw .config(location, "\(placeholders.joined(separator: ", ")) name the input file, and the graph has "
                + (inputs.isEmpty ? "no source that reads a file" : "\(inputs.count) sources that read files")
                + "; use them with exactly one file-source")
        }
        var expanded = spec
        for entry in templated {
            expanded.nodes[entry.node].parameters[entry.parameter] =
                .string(expand(entry.text, input: inputs[0], session: spec.session.id))
        }
        return expanded
    }
}
