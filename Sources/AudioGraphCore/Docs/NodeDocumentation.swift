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
        lines += descriptor.parameters.flatMap(inspectLines)
        if let groups = descriptor.parameterGroups {
            for group in groups.all() {
                lines.append("")
                lines.append("PARAMETERS OF \(groups.selector.uppercased()) \(group.name) (\(groups.selector): \"\(group.name)\"):")
                lines.append("  \(group.summary)")
                if group.parameters.isEmpty { lines.append("  (none)") }
                lines += group.parameters.flatMap(inspectLines)
            }
        }
        lines.append("")
        lines.append("INPUTS:")
        if descriptor.inputs.isEmpty { lines.append("  (none)") }
        for port in descriptor.inputs {
            lines.append("  \(port.name): needs \(kinds(port.requires)); accepts \(descriptor.acceptedFormats)"
                + (port.acceptsManyLinks ? "; any number of links" : ""))
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

    /// A parameter's two lines in `inspect`.
    static func inspectLines(_ parameter: ParameterSpec) -> [String] {
        var head = "  \(parameter.name)  \(parameter.typeDescription)"
        if parameter.required {
            head += "  (required)"
        } else if let value = parameter.defaultValue {
            head += "  default \(JSONWriter.compact(value))"
        } else {
            head += "  (optional)"
        }
        return [head, "      \(parameter.doc)"]
    }

    /// A Markdown table of parameters.
    static func markdownTable(_ parameters: [ParameterSpec]) -> String {
        var out = "\n| parameter | type | default | description |\n|---|---|---|---|\n"
        for parameter in parameters {
            let defaultText = parameter.required ? "required" : parameter.defaultValue.map { "`\(JSONWriter.compact($0))`" } ?? "—"
            out += "| `\(parameter.name)` | \(parameter.typeDescription) | \(defaultText) | \(parameter.doc) |\n"
        }
        return out
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
                out += "- input `\(port.name)`: needs \(kinds(port.requires)); accepts \(descriptor.acceptedFormats)"
                    + (port.acceptsManyLinks ? "; any number of links" : "") + "\n"
            }
            for port in descriptor.outputs {
                out += "- output `\(port.name)`: makes \(kinds(port.produces))" + (port.forwardsInput ? ", passes its input on" : "") + "\n"
            }
            switch descriptor.execution {
            case .inline where descriptor.category == .source: out += "- runs on a thread of its own\n"
            case .inline: out += "- runs inline on the thread that feeds it\n"
            case .queued(let capacity): out += "- runs on its own thread behind a queue of \(capacity) frames\n"
            }
            out += descriptor.parameters.isEmpty ? "\nNo parameters.\n" : markdownTable(descriptor.parameters)
            guard let groups = descriptor.parameterGroups else { continue }
            for group in groups.all() where group.builtIn {
                out += "\n### \(groups.selector) `\(group.name)`\n\n\(group.summary). Set beside the common parameters with "
                    + "`\"\(groups.selector)\": \"\(group.name)\"`.\n"
                out += group.parameters.isEmpty ? "\nNo parameters of its own.\n" : markdownTable(group.parameters)
            }
        }
        return out
    }
}
