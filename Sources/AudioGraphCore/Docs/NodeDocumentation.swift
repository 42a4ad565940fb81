/// Text derived from node declarations: `audiograph inspect`, the node reference in docs/, the JSON Schema.
/// One declaration, many views (like `gst-inspect`).
public enum NodeDocumentation {
    /// What `audiograph inspect TYPE` prints.
    public static func inspect(_ descriptor: NodeDescriptor, origin: String? = nil) -> String {
        var lines = ["\(descriptor.type) (\(descriptor.category.rawValue))", "  \(descriptor.summary)"]
        if let origin { lines.append("  from: \(origin)") }
        lines.append("")
        lines.append("PARAMETERS:")
        if descriptor.parameters.isEmpty { lines.append("  (none)") }
        for parameter in descriptor.parameters {
            var head = "  \(parameter.name)  \(parameter.typeDescription)"
            if parameter.required {
                head += "  (required)"
            } else if let value = parameter.defaultValue {
                head += "  default \(JSONWriter.compact(value))"
            } else {
                head += "  (optional)"
            }
            lines.append(head)
            lines.append("      \(parameter.doc)")
        }
        lines.append("")
        lines.append("INPUTS:")
        if descriptor.inputs.isEmpty { lines.append("  (none)") }
        for port in descriptor.inputs {
            lines.append("  \(port.name): needs \(kinds(port.requires)); accepts \(descriptor.acceptedFormats)")
        }
        lines.append("OUTPUTS:")
        if descriptor.outputs.isEmpty { lines.append("  (none)") }
        for port in descriptor.outputs {
            lines.append("  \(port.name): makes \(kinds(port.produces))" + (port.forwardsInput ? ", passes its input on" : ""))
        }
        switch descriptor.execution {
        case .inline where descriptor.category == .source: lines.append("RUNS: on a thread of its own")
        case .inline: lines.append("RUNS: inline, on the thread that feeds it")
        case .queued(let capacity): lines.append("RUNS: on its own thread behind a queue of \(capacity) frames")
        }
        return lines.joined(separator: "\n")
    }

    static func kinds(_ set: Set<FrameKind>) -> String {
        set.isEmpty ? "nothing" : set.sorted().map(\.name).joined(separator: ", ")
    }

    /// The node reference as Markdown (docs/nodes.md is this, generated; a test keeps it current).
    public static func markdown(_ registry: NodeRegistry) -> String {
        var out = "# Node reference\n\n"
        out += "Generated from the node declarations by `audiograph docs nodes`; do not edit by hand.\n"
        for descriptor in registry.descriptors {
            out += "\n## `\(descriptor.type)`\n\n\(descriptor.summary)\n\n"
            out += "- category: \(descriptor.category.rawValue)\n"
            for port in descriptor.inputs {
                out += "- input `\(port.name)`: needs \(kinds(port.requires)); accepts \(descriptor.acceptedFormats)\n"
            }
            for port in descriptor.outputs {
                out += "- output `\(port.name)`: makes \(kinds(port.produces))" + (port.forwardsInput ? ", passes its input on" : "") + "\n"
            }
            switch descriptor.execution {
            case .inline where descriptor.category == .source: out += "- runs on a thread of its own\n"
            case .inline: out += "- runs inline on the thread that feeds it\n"
            case .queued(let capacity): out += "- runs on its own thread behind a queue of \(capacity) frames\n"
            }
            if descriptor.parameters.isEmpty {
                out += "\nNo parameters.\n"
                continue
            }
            out += "\n| parameter | type | default | description |\n|---|---|---|---|\n"
            for parameter in descriptor.parameters {
                let defaultText = parameter.required ? "required" : parameter.defaultValue.map { "`\(JSONWriter.compact($0))`" } ?? "—"
                out += "| `\(parameter.name)` | \(parameter.typeDescription) | \(defaultText) | \(parameter.doc) |\n"
            }
        }
        return out
    }
}
