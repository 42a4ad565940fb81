import AudioGraph

struct DocsCommand: Command {
    static let name = "docs"
    static let abstract = "Print the node reference (docs/nodes.md) generated from the node declarations"
    static let usage = "audiograph docs nodes"
    static let options =  CommandOptions.none
    static let help = """
        \(abstract).

        USAGE: \(usage)

        docs/nodes.md is this output; a test fails when the file is stale. Regenerate it with
          audiograph docs nodes > docs/nodes.md
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let topic = try Arguments(arguments, Self.options).requirePositionals(["topic"])[0]
        guard topic == "nodes" else {
            throw GraphError(.usage, at: topic, "unknown topic; the topic is \"nodes\"")
        }
        Console.writeOut(NodeDocumentation.markdown(registry))
        return 0
    }
}
