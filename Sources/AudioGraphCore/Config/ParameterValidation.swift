/// Checks a node's parameters against its type's declaration and fills in defaults.
public enum ParameterValidation {
    /// The node's own parameters, and with `parameterGroups` those of the group its selector picks: another
    /// group's parameter is refused saying whose it is.
    public static func validate(_ parameters: JSONObject, against descriptor: NodeDescriptor,
                                at path: JSONPath) throws(GraphError) -> JSONObject {
        guard let groups = descriptor.parameterGroups else {
            return try validate(parameters, specs: descriptor.parameters, type: descriptor.type, at: path)
        }
        var own = JSONObject()
        var rest = JSONObject()
        for (key, value) in parameters.entries {
            if descriptor.parameter(named: key) != nil { own[key] = value } else { rest[key] = value }
        }
        var values = try validate(own, specs: descriptor.parameters, type: descriptor.type, at: path)
        let choice = values[groups.selector]?.stringValue ?? ""
        guard let group = groups.resolve(choice) else {
            let names = groups.all().map(\.name)
            throw .config(path / groups.selector, "unknown \(descriptor.type) \(groups.selector) \"\(choice)\""
                + Suggestions.hint(for: choice, in: names) + "; \(groups.selector)s: " + names.joined(separator: ", "))
        }
        let names = (descriptor.parameters + group.parameters).map(\.name)
        for key in rest.keys where !group.declares(key) {
            if let other = groups.all().first(where: { $0.declares(key) }) {
                throw .config(path / key, "\(key) is a\(article(other.name)) \(other.name) parameter; this \(descriptor.type)'s "
                    + "\(groups.selector) is \(group.name)" + Suggestions.hint(for: key, in: names))
            }
            throw .config(path / key, "unknown parameter for \(descriptor.type) with \(groups.selector) \(group.name)"
                + Suggestions.hint(for: key, in: names) + "; it takes " + names.joined(separator: ", "))
        }
        for (key, value) in try validate(rest, specs: group.parameters, type: "\(descriptor.type) (\(group.name))", at: path).entries {
            values[key] = value
        }
        return values
    }

    /// `parameters` against `specs` alone: unknown names refused, types and ranges checked, defaults filled in.
    public static func validate(_ parameters: JSONObject, specs: [ParameterSpec], type: String,
                                at path: JSONPath) throws(GraphError) -> JSONObject {
        let names = specs.map(\.name)
        for key in parameters.keys where !names.contains(key) {
            let list = names.isEmpty ? "it takes none" : "it takes " + names.joined(separator: ", ")
            throw .config(path / key, "unknown parameter for \(type)\(Suggestions.hint(for: key, in: names)); \(list)")
        }
        var values = JSONObject()
        for spec in specs {
            let valuePath = path / spec.name
            guard let value = parameters[spec.name], value != .null else {
                if spec.required {
                    throw .config(valuePath, "missing required parameter of \(type) (\(spec.typeDescription): \(spec.doc))")
                }
                if let defaultValue = spec.defaultValue { values[spec.name] = defaultValue }
                continue
            }
            values[spec.name] = try check(value, spec, at: valuePath)
        }
        return values
    }

    /// " a" or "n" for "a"/"an" before a name.
    private static func article(_ word: String) -> String {
        "aeiou".contains(word.lowercased().first ?? "x") ? "n" : ""
    }

    static func check(_ value: JSONValue, _ spec: ParameterSpec, at path: JSONPath) throws(GraphError) -> JSONValue {
        func mismatch() -> GraphError {
            .config(path, "expected \(spec.typeDescription), got \(value.typeDescription)"
                + (value.stringValue.map { " \"\($0)\"" } ?? ""))
        }
        if case .number(let n) = value, !n.isFinite || (spec.kind.isInteger && n.rounded() == n && value.intValue == nil) {
            // 1e999 parses as infinity, 1e300 is integral but no Int holds it: neither is "an integer".
            throw .config(path, "the number is out of range (too large to represent); expected \(spec.typeDescription)")
        }
        switch spec.kind {
        case .integer(let range):
            guard let int = value.intValue else { throw mismatch() }
            if let range, !range.contains(int) {
                throw .config(path, "\(int) is out of range; expected \(range.lowerBound)…\(range.upperBound)")
            }
        case .number(let range):
            guard let number = value.doubleValue else { throw mismatch() }
            if let range, !range.contains(number) {
                throw .config(path, "\(JSONWriter.format(number: number)) is out of range; expected "
                    + "\(JSONWriter.format(number: range.lowerBound))…\(JSONWriter.format(number: range.upperBound))")
            }
        case .boolean:
            guard value.boolValue != nil else { throw mismatch() }
        case .string:
            guard let string = value.stringValue else { throw mismatch() }
            try refuseNUL(string, what: "the value", at: path)  // a string may be a store's path or URL too
        case .path:
            guard let string = value.stringValue, !string.isEmpty else { throw mismatch() }
            try refuseNUL(string, what: "the path", at: path)
        case .choice(let options):
            guard let string = value.stringValue else { throw mismatch() }
            guard options.contains(string) else {
                throw .config(path, "\"\(string)\" is not one of \(options.joined(separator: ", "))"
                    + Suggestions.hint(for: string, in: options))
            }
        }
        return value
    }

    /// A C API stops at a NUL (and a file URL turns it into `%00`): the file or the name used would not be the
    /// one the config gives.
    static func refuseNUL(_ string: String, what: String, at path: JSONPath) throws(GraphError) {
        guard string.unicodeScalars.contains("\0") else { return }
        throw .config(path, "\(what) contains a NUL character (\"\(TerminalText.escape(string))\"); "
            + "file names and C strings cannot hold one")
    }
}

private extension ParameterSpec.Kind {
    var isInteger: Bool {
        if case .integer = self { return true }
        return false
    }
}
