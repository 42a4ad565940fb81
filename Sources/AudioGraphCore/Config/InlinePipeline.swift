/// A pipeline on one line, in gst-launch's shape, turned into an ordinary config:
///
///     file-source path=in.wav ! resampler sampleRate=16000 ! wav-sink path=out.wav
///     file-source path=a.wav ! vad ! recognizer name=asr ! caption-sink format=srt path=a.srt asr. ! caption-sink
///
/// - `!` links the element before it to the one after it.
/// - An element is a node type and its `key=value` parameters; each value is typed from the node's declared
///   parameter (`sampleRate=16000` is a number, `realtime=true` a boolean, the rest strings). Quote a value
///   with spaces: `path="my talk.wav"`.
/// - `name=ID` names the node (default: its type, then `TYPE-2`, …); `ID.` starts a branch from a named node,
///   as a tee does, or after `!` links into it.
/// - Errors point at the column (`-e column 23: …`) with the same messages and did-you-mean as config files.
public enum InlinePipeline {
    /// Where errors say they are: `-e column N`.
    public static func location(column: Int) -> String { "-e column \(column)" }

    /// The config `expression` stands for (a JSON object with `version`, `nodes` and `links`), its values typed
    /// and checked against `registry`'s declarations.
    public static func config(_ expression: String, registry: NodeRegistry) throws(GraphError) -> JSONValue {
        var parser = Parser(registry: registry)
        for token in try tokens(expression) { try parser.take(token) }
        return try parser.finish(endColumn: expression.count + 1)
    }

    // MARK: Tokens

    struct Token {
        enum Kind { case link, word }
        var kind: Kind
        /// The word with its quotes removed.
        var text: String
        /// 1-based, in characters.
        var column: Int
        /// Where the value starts (after `=`), for a `key=value` word.
        var valueColumn: Int?
    }

    static func tokens(_ expression: String) throws(GraphError) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(expression)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
            } else if character == "!" {
                tokens.append(Token(kind: .link, text: "!", column: index + 1))
                index += 1
            } else {
                let start = index
                var text = ""
                var valueColumn: Int?
                while index < characters.count, !characters[index].isWhitespace, characters[index] != "!" {
                    let current = characters[index]
                    if current == "=", valueColumn == nil { valueColumn = index + 2 }
                    if current == "\"" || current == "'" {
                        guard let close = characters[(index + 1)...].firstIndex(of: current) else {
                            throw GraphError(.invalidConfig, at: location(column: index + 1),
                                             "unterminated \(current) quote: close it before the end of the pipeline")
                        }
                        text += String(characters[(index + 1)..<close])
                        index = close + 1
                    } else {
                        text.append(current)
                        index += 1
                    }
                }
                tokens.append(Token(kind: .word, text: text, column: start + 1, valueColumn: valueColumn))
            }
        }
        return tokens
    }

    // MARK: Parsing

    struct Element {
        var type: String
        var column: Int
        var id: String?
        var idColumn: Int?
        var parameters: [(key: String, value: JSONValue, column: Int)] = []
        var descriptor: NodeDescriptor
    }

    /// One end of a link: an element by index, or a named node.
    enum Reference {
        case element(Int)
        case name(String, column: Int)
    }

    struct Parser {
        let registry: NodeRegistry
        var elements: [Element] = []
        /// Each chain: the references in order, linked one to the next.
        var chains: [[Reference]] = []
        /// `!` seen, waiting for what it links to (its column).
        var pendingLink: Int?
        /// The element `key=value` applies to (nil after a reference).
        var current: Int?

        init(registry: NodeRegistry) { self.registry = registry }

        mutating func take(_ token: Token) throws(GraphError) {
            switch token.kind {
            case .link:
                if let pendingLink {
                    throw GraphError(.invalidConfig, at: location(column: token.column),
                                     "'!' after '!' (column \(pendingLink)): put a node type between them")
                }
                guard !chains.isEmpty else {
                    throw GraphError(.invalidConfig, at: location(column: token.column),
                                     "'!' needs a node before it, as in \"file-source path=in.wav ! wav-sink path=out.wav\"")
                }
                pendingLink = token.column
                current = nil
            case .word:
                if let equals = token.text.firstIndex(of: "="), equals != token.text.startIndex {
                    try parameter(token, key: String(token.text[..<equals]),
                                  value: String(token.text[token.text.index(after: equals)...]))
                } else if token.text.hasSuffix("."), token.text.count > 1 {
                    let name = String(token.text.dropLast())
                    guard NodeIdentifier.isValid(name) else {
                        throw GraphError(.invalidConfig, at: location(column: token.column),
                                         "bad node name \"\(name)\": use letters, digits, '-' and '_'")
                    }
                    add(.name(name, column: token.column))
                    current = nil
                } else {
                    try element(token)
                }
            }
        }

        /// Adds `reference` to the chain `!` continues, or starts a chain.
        mutating func add(_ reference: Reference) {
            if pendingLink != nil {
                chains[chains.count - 1].append(reference)
            } else {
                chains.append([reference])
            }
            pendingLink = nil
        }

        mutating func element(_ token: Token) throws(GraphError) {
            guard let entry = registry.entry(for: token.text) else {
                throw GraphError(.invalidConfig, at: location(column: token.column),
                                 "unknown node type \"\(token.text)\"" + Suggestions.hint(for: token.text, in: registry.typeNames)
                                     + "; see `audiograph nodes`")
            }
            if pendingLink == nil, !chains.isEmpty {
                throw GraphError(.invalidConfig, at: location(column: token.column),
                                 "missing '!' before \(token.text): link it to the node before, or start a branch with NAME.")
            }
            elements.append(Element(type: token.text, column: token.column, descriptor: entry.descriptor))
            current = elements.count - 1
            add(.element(elements.count - 1))
        }

        mutating func parameter(_ token: Token, key: String, value: String) throws(GraphError) {
            guard let index = current else {
                throw GraphError(.invalidConfig, at: location(column: token.column),
                                 "\(key)=… belongs after a node type, as in \"resampler sampleRate=16000\"")
            }
            if key == "name" {
                guard NodeIdentifier.isValid(value) else {
                    throw GraphError(.invalidConfig, at: location(column: token.valueColumn ?? token.column),
                                     "bad node name \"\(value)\": use letters, digits, '-' and '_'")
                }
                if let other = elements.first(where: { $0.id == value }) {
                    throw GraphError(.invalidConfig, at: location(column: token.valueColumn ?? token.column),
                                     "duplicate node name \"\(value)\" (the \(other.type) at column \(other.column) has it)")
                }
                elements[index].id = value
                elements[index].idColumn = token.valueColumn
                return
            }
            if let earlier = elements[index].parameters.first(where: { $0.key == key }) {
                throw GraphError(.invalidConfig, at: location(column: token.column),
                                 "\(key) is given twice for this \(elements[index].type) (also at column \(earlier.column))")
            }
            let spec = Self.declaration(key, in: elements[index].descriptor)
            elements[index].parameters.append((key, Self.typed(value, as: spec?.kind), token.column))
        }

        /// The parameter's declaration, among the node's own and its groups' (a recognizer engine's).
        static func declaration(_ key: String, in descriptor: NodeDescriptor) -> ParameterSpec? {
            if let spec = descriptor.parameter(named: key) { return spec }
            for group in descriptor.parameterGroups?.all() ?? [] {
                if let spec = group.parameters.first(where: { $0.name == key }) { return spec }
            }
            return nil
        }

        /// `text` as the declared kind takes it; left a string when it does not parse (validation then says
        /// what was expected, as it does for a config).
        static func typed(_ text: String, as kind: ParameterSpec.Kind?) -> JSONValue {
            switch kind {
            case .integer?: return Int(text).map { .number(Double($0)) } ?? .string(text)
            case .number?: return Double(text).map { .number($0) } ?? .string(text)
            case .boolean?: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
            default: return .string(text)
            }
        }

        mutating func finish(endColumn: Int) throws(GraphError) -> JSONValue {
            if let pendingLink {
                throw GraphError(.invalidConfig, at: location(column: pendingLink), "'!' at the end: add the node it links to")
            }
            guard !elements.isEmpty else {
                throw GraphError(.invalidConfig, at: location(column: endColumn),
                                 "no nodes: write node types linked with '!', as in \"file-source path=in.wav ! wav-sink path=out.wav\"")
            }
            let ids = assignIDs()
            var nodes: [(key: String, value: JSONValue)] = []
            for (index, element) in elements.enumerated() {
                var entries: [(key: String, value: JSONValue)] = [("type", .string(element.type))]
                entries += element.parameters.map { ($0.key, $0.value) }
                let path = JSONPath.root / "nodes" / ids[index]
                do {
                    _ = try ParameterValidation.validate(JSONObject(Array(entries.dropFirst())), against: element.descriptor, at: path)
                } catch {
                    guard let parameter = element.parameters.first(where: { (path / $0.key).description == error.location }) else {
                        throw GraphError(error.code, at: location(column: element.column), "\(element.type): \(error.message)")
                    }
                    throw GraphError(error.code, at: location(column: parameter.column), "\(parameter.key): \(error.message)")
                }
                nodes.append((ids[index], .object(JSONObject(entries))))
            }
            var links: [JSONValue] = []
            for chain in chains {
                var names: [String] = []
                for reference in chain {
                    switch reference {
                    case .element(let index): names.append(ids[index])
                    case .name(let name, let column):
                        guard ids.contains(name) else {
                            throw GraphError(.invalidConfig, at: location(column: column), "no node is named \"\(name)\""
                                + Suggestions.hint(for: name, in: ids) + "; name one with name=\(name)")
                        }
                        names.append(name)
                    }
                }
                if names.count > 1 { links.append(.string(names.joined(separator: " -> "))) }
            }
            return .object(JSONObject([("version", .number(Double(GraphSpec.currentVersion))),
                                       ("nodes", .object(JSONObject(nodes))), ("links", .array(links))]))
        }

        /// Given names, then the type (`TYPE-2`, … when taken).
        func assignIDs() -> [String] {
            var taken = Set(elements.compactMap(\.id))
            return elements.map { element in
                if let id = element.id { return id }
                var id = element.type
                var number = 2
                while taken.contains(id) {
                    id = "\(element.type)-\(number)"
                    number += 1
                }
                taken.insert(id)
                return id
            }
        }
    }
}
