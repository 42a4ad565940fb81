import AudioGraph

/// A tiny command-line parser: flags (`--verbose`), options with values (`--set k=v`, `--events=jsonl`) and
/// positional arguments, with usage errors (exit 64) that say what was wrong.
struct Arguments {
    private var remaining: [String]
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - valued: options that take a value.
    ///   - flags: options that take none.
    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String>) throws(GraphError) {
        remaining = arguments
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if valued.contains(name) {
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw GraphError(.usage, at: name, "expects a value")
                }
                if inlineValue == nil { index += 1 }
                options[name, default: []].append(value)
            } else if allowedFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                let known = Array(valued) + Array(allowedFlags)
                throw GraphError(.usage, at: name, "unknown option" + Suggestions.hint(for: name, in: known)
                    + "; see --help")
            }
        }
        remaining = []
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Exactly `count` positional arguments, named in the error when missing.
    func requirePositionals(_ names: [String]) throws(GraphError) -> [String] {
        if positionals.count < names.count {
            throw GraphError(.usage, at: "", "missing \(names[positionals.count].uppercased()); see --help")
        }
        if positionals.count > names.count {
            throw GraphError(.usage, at: positionals[names.count], "unexpected argument; see --help")
        }
        return positionals
    }
}
