import AudioGraph

/// A tiny command-line parser: flags (`--verbose`), options with values (`--set k=v`, `--events=jsonl`) and
/// positional arguments, with usage errors (exit 64) that say what was wrong.
struct Arguments {
    private var remaining: [String]
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    private var optionalValues: [String: String] = [:]

    /// Parses `arguments` with the command's declared options. An optionally valued option takes the next argument
    /// as its value when it is one of its choices; alone, its value is the last choice (`--stats` means
    /// `--stats table`).
    init(_ arguments: [String], _ declared: CommandOptions) throws(GraphError) {
        let valued = Set(declared.valued)
        let allowedFlags = Set(declared.flags)
        let optional = Dictionary(uniqueKeysWithValues: declared.optionallyValued.map { ($0.name, $0.choices) })
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
            } else if let choices = optional[name] {
                var value = inlineValue
                if value == nil, index < arguments.count, choices.contains(arguments[index]) {
                    value = arguments[index]
                    index += 1
                }
                guard let chosen = value ?? choices.last, choices.contains(chosen) else {
                    throw GraphError(.usage, at: name, "expects one of \(choices.joined(separator: ", ")) or nothing")
                }
                optionalValues[name] = chosen
            } else if allowedFlags.contains(name), inlineValue == nil {
                flags.insert(name)
            } else {
                let known = declared.names
                throw GraphError(.usage, at: name, "unknown option" + Suggestions.hint(for: name, in: known)
                    + "; see --help")
            }
        }
        remaining = []
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    /// An optionally valued option's value (its default when given alone); nil when absent.
    func optionalValue(_ name: String) -> String? { optionalValues[name] }
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
