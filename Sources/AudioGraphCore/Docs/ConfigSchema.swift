/// The JSON Schema (draft 2020-12) of the config format, generated from the registered node declarations.
public enum ConfigSchema {
    public static func make(_ registry: NodeRegistry) -> JSONValue {
        var nodeVariants: [JSONValue] = []
        for descriptor in registry.descriptors {
            var properties = JSONObject([("type", .object(JSONObject([("const", .string(descriptor.type))])))])
            properties["queue"] = .object(JSONObject([
                ("type", "integer"), ("minimum", .number(Double(NodeSpec.queueRange.lowerBound))),
                ("maximum", .number(Double(NodeSpec.queueRange.upperBound))),
                ("description", .string("Run this node on a thread of its own behind a queue of this many frames.")),
            ]))
            if descriptor.category == .source {
                properties["speaker"] = .object(JSONObject([
                    ("type", "string"), ("minLength", 1),
                    ("description", .string("Who speaks in this source's audio: every transcript made from it carries the name.")),
                ]))
            }
            var required: [JSONValue] = ["type"]
            for parameter in descriptor.parameters {
                properties[parameter.name] = .object(propertySchema(parameter))
                if parameter.required { required.append(.string(parameter.name)) }
            }
            var variant = JSONObject([
                ("title", .string(descriptor.type)),
                ("description", .string(descriptor.summary)),
                ("type", "object"),
                ("properties", .object(properties)),
                ("required", .array(required)),
                ("additionalProperties", false),
            ])
            if let groups = descriptor.parameterGroups { addGroups(groups, to: &variant, common: properties) }
            nodeVariants.append(.object(variant))
        }
        let idPattern = "^[A-Za-z0-9_-]+$"
        let session = JSONObject([
            ("type", "object"),
            ("properties", .object(JSONObject([
                ("id", .object(JSONObject([("type", "string")]))),
                ("room", .object(JSONObject([("type", "string")]))),
                ("autoStartTranscription", .object(JSONObject([("type", "boolean"), ("default", false)]))),
                ("captions", .object(JSONObject([("type", "boolean"), ("default", false)]))),
                ("hideTranscriptionButton", .object(JSONObject([("type", "boolean"), ("default", true)]))),
                ("hideClosedCaptionButton", .object(JSONObject([("type", "boolean"), ("default", true)]))),
                ("captionLanguage", .object(JSONObject([
                    ("enum", .array(SessionSettings.supportedLanguages.map { .string($0) })), ("default", "en-US"),
                ]))),
                ("participants", .object(JSONObject([
                    ("type", "array"), ("items", .object(JSONObject([("type", "string"), ("minLength", 1)]))),
                    ("description", "Users who may read the session over the HTTP API (default: the user who runs it)"),
                ]))),
                ("relays", .object(JSONObject([
                    ("type", "array"), ("items", .object(JSONObject([("type", "string"), ("minLength", 1)]))),
                    ("description", "Users who may send audio for any participant over the participant audio endpoint"),
                ]))),
                ("maxParticipants", .object(JSONObject([
                    ("type", "integer"), ("minimum", .number(Double(SessionSettings.maxParticipantsRange.lowerBound))),
                    ("maximum", .number(Double(SessionSettings.maxParticipantsRange.upperBound))),
                    ("default", .number(Double(SessionSettings.defaultMaxParticipants))),
                    ("description", "Participants streaming audio at once over the participant audio endpoint"),
                ]))),
            ]))),
            ("additionalProperties", false),
        ])
        return .object(JSONObject([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("title", "audiograph pipeline"),
            ("type", "object"),
            ("properties", .object(JSONObject([
                ("version", .object(JSONObject([("const", .number(Double(GraphSpec.currentVersion)))]))),
                ("session", .object(session)),
                ("plugins", .object(JSONObject([("type", "array"), ("items", .object(JSONObject([("type", "string")])))]))),
                ("nodes", .object(JSONObject([
                    ("type", "object"),
                    ("propertyNames", .object(JSONObject([("pattern", .string(idPattern))]))),
                    ("additionalProperties", .object(JSONObject([("oneOf", .array(nodeVariants))]))),
                ]))),
                ("links", .object(JSONObject([
                    ("type", "array"),
                    ("items", .object(JSONObject([
                        ("type", "string"),
                        ("pattern", "^\\s*[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)?(\\s*->\\s*[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)?)+\\s*$"),
                    ]))),
                ]))),
                ("participant", .object(JSONObject([
                    ("type", "object"),
                    ("description", .string("The nodes each participant of a call gets (one participant-source), and their "
                        + "links, which may reach the graph's own nodes (docs/calls.md)")),
                    ("properties", .object(JSONObject([
                        ("nodes", .object(JSONObject([
                            ("type", "object"),
                            ("propertyNames", .object(JSONObject([("pattern", .string(idPattern))]))),
                            ("additionalProperties", .object(JSONObject([("oneOf", .array(nodeVariants))]))),
                        ]))),
                        ("links", .object(JSONObject([("type", "array"), ("items", .object(JSONObject([("type", "string")])))]))),
                    ]))),
                    ("required", ["nodes"]),
                    ("additionalProperties", false),
                ]))),
                ("strictFormats", .object(JSONObject([("type", "boolean"), ("default", false)]))),
                ("serve", .object(JSONObject([
                    ("type", "object"),
                    ("description", "Serve the HTTP API (docs/http-api.md) with this run's live captions while it runs"),
                    ("properties", .object(JSONObject([
                        ("listen", .object(JSONObject([("type", "string"), ("default", .string(ServeSettings.defaultListen))]))),
                        ("store", .object(JSONObject([("type", "string")]))),
                        ("maxConnectionsPerAddress", integerSchema(HTTPClientLimits.connectionsRange,
                                                                   default: HTTPClientLimits.defaultMaxConnectionsPerAddress)),
                        ("headerTimeoutSeconds", integerSchema(HTTPClientLimits.timeoutRange,
                                                               default: HTTPClientLimits.defaultHeaderTimeoutSeconds)),
                        ("idleTimeoutSeconds", integerSchema(HTTPClientLimits.timeoutRange,
                                                             default: HTTPClientLimits.defaultIdleTimeoutSeconds)),
                    ]))),
                    ("additionalProperties", false),
                ]))),
            ]))),
            ("required", ["version", "nodes", "links"]),
            ("additionalProperties", false),
        ]))
    }

    static func propertySchema(_ parameter: ParameterSpec) -> JSONObject {
        var schema = parameterSchema(parameter.kind)
        schema["description"] = .string(parameter.doc)
        if let value = parameter.defaultValue { schema["default"] = value }
        return schema
    }

    /// Every group's parameters become properties of the node (with no type there: two groups may share a name);
    /// for each group an `if` on the selector's value limits the names to the common ones and that group's, and
    /// types them. The selector's other values, such as `auto`, pick a group only at run time: any group's
    /// parameters are allowed there and the run checks them.
    static func addGroups(_ groups: ParameterGroups, to variant: inout JSONObject, common: JSONObject) {
        var properties = common
        var conditions: [JSONValue] = []
        for group in groups.all() {
            var names = common.keys.map { JSONValue.string($0) }
            var groupRequired: [JSONValue] = []
            var typed = JSONObject()
            for parameter in group.parameters {
                if properties[parameter.name] == nil {
                    properties[parameter.name] = .object(JSONObject([("description", .string("\(groups.selector) parameter"))]))
                }
                typed[parameter.name] = .object(propertySchema(parameter))
                names.append(.string(parameter.name))
                if parameter.required { groupRequired.append(.string(parameter.name)) }
            }
            var then = JSONObject([("propertyNames", .object(JSONObject([("enum", .array(names))]))),
                                   ("properties", .object(typed))])
            if !groupRequired.isEmpty { then["required"] = .array(groupRequired) }
            conditions.append(.object(JSONObject([
                ("if", .object(JSONObject([
                    ("properties", .object(JSONObject([(groups.selector, .object(JSONObject([("const", .string(group.name))])))]))),
                    ("required", .array([.string(groups.selector)])),
                ]))),
                ("then", .object(then)),
            ])))
        }
        variant["properties"] = .object(properties)
        if !conditions.isEmpty { variant["allOf"] = .array(conditions) }
    }

    /// `{"type": "integer", "minimum": …, "maximum": …, "default": …}`.
    static func integerSchema(_ range: ClosedRange<Int>, default value: Int) -> JSONValue {
        .object(JSONObject([("type", "integer"), ("minimum", .number(Double(range.lowerBound))),
                            ("maximum", .number(Double(range.upperBound))), ("default", .number(Double(value)))]))
    }

    static func parameterSchema(_ kind: ParameterSpec.Kind) -> JSONObject {
        switch kind {
        case .integer(let range):
            var schema = JSONObject([("type", "integer")])
            if let range {
                schema["minimum"] = .number(Double(range.lowerBound))
                schema["maximum"] = .number(Double(range.upperBound))
            }
            return schema
        case .number(let range):
            var schema = JSONObject([("type", "number")])
            if let range {
                schema["minimum"] = .number(range.lowerBound)
                schema["maximum"] = .number(range.upperBound)
            }
            return schema
        case .boolean: return JSONObject([("type", "boolean")])
        case .string: return JSONObject([("type", "string")])
        case .path: return JSONObject([("type", "string"), ("minLength", 1)])
        case .choice(let options): return JSONObject([("enum", .array(options.map { .string($0) }))])
        }
    }
}
