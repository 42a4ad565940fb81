import Foundation

/// Reads a config file into a `GraphSpec`: the JSON syntax, the top-level keys, the `session` block, node
/// entries and link chains. Node parameters are checked later, against their types' declarations, by
/// `GraphBuilder`.
public enum ConfigLoader {
    public static let topLevelKeys = ["version", "session", "plugins", "nodes", "links", "strictFormats", "serve", "participant"]
    /// The keys of the `participant` block (see `ParticipantTemplate`).
    public static let participantKeys = ["nodes", "links"]
    public static let serveKeys = ["listen", "store", "maxConnectionsPerAddress", "headerTimeoutSeconds", "idleTimeoutSeconds"]
    public static let sessionKeys = ["id", "room", "autoStartTranscription", "captions", "captionLanguage", "participants",
                                     "hideTranscriptionButton", "hideClosedCaptionButton", "relays", "maxParticipants"]

    /// Loads the config at `path`, applying `--set node.param=value` overrides.
    public static func load(path: String, overrides: [String] = []) throws(GraphError) -> GraphSpec {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw GraphError(.missingInput, at: path, "no such config file")
        }
        guard !isDirectory.boolValue else { throw GraphError(.missingInput, at: path, "cannot read the config file") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > maxConfigBytes {
            throw tooLarge(path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GraphError(.missingInput, at: path, "cannot read the config file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GraphError(.invalidConfig, at: path, "the config file is not UTF-8 text")
        }
        let base = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path
        var spec = try parse(text, baseDirectory: base, fileName: path, overrides: overrides)
        spec.configFile = NodeConfiguration.resolve(path, against: FileManager.default.currentDirectoryPath)
        return spec
    }

    /// Parses config text. `fileName` is used in syntax error locations.
    public static func parse(_ text: String, baseDirectory: String, fileName: String = "config",
                             overrides: [String] = []) throws(GraphError) -> GraphSpec {
        var root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw GraphError(.invalidConfig, at: "\(fileName):\(error.line):\(error.column)",
                             "invalid JSON: \(error.message)")
        }
        for override in overrides {
            try apply(override: override, to: &root)
        }
        return try decode(root, baseDirectory: baseDirectory)
    }

    /// Applies one `node.param=value` override. The value is read as JSON when it parses (numbers, booleans),
    /// else as a string.
    public static func apply(override: String, to root: inout JSONValue) throws(GraphError) {
        let location = "--set \(override)"
        guard let equals = override.firstIndex(of: "=") else {
            throw GraphError(.usage, at: location, "expected node.param=value")
        }
        let key = override[..<equals]
        let rawValue = String(override[override.index(after: equals)...])
        let pieces = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else {
            throw GraphError(.usage, at: location, "expected node.param=value (for example rs.sampleRate=8000)")
        }
        guard pieces[1] != "type" else {
            throw GraphError(.usage, at: location, "a node's type cannot be overridden")
        }
        let value = (try? JSONParser.parse(rawValue)) ?? .string(rawValue)
        guard case .object(var top) = root else { return }  // decode reports the real problem
        if pieces[0] == "session", top["nodes"]?.objectValue?["session"] == nil {
            var session = top["session"]?.objectValue ?? JSONObject()
            session[pieces[1]] = value
            top["session"] = .object(session)
            root = .object(top)
            return
        }
        guard case .object(var nodes)? = top["nodes"], case .object(var node)? = nodes[pieces[0]] else {
            let ids = top["nodes"]?.objectValue?.keys ?? []
            throw GraphError(.usage, at: location,
                             "there is no node \"\(pieces[0])\"\(Suggestions.hint(for: pieces[0], in: ids))")
        }
        node[pieces[1]] = value
        nodes[pieces[0]] = .object(node)
        top["nodes"] = .object(nodes)
        root = .object(top)
    }

    /// Turns a parsed document into a `GraphSpec`, checking its shape.
    public static func decode(_ root: JSONValue, baseDirectory: String) throws(GraphError) -> GraphSpec {
        guard case .object(let top) = root else {
            throw .config(.root, "the config must be a JSON object, not \(root.typeDescription)")
        }
        try rejectUnknownKeys(in: top, allowed: topLevelKeys, at: .root)

        guard let versionValue = top["version"] else {
            throw .config(.root / "version", "missing; add \"version\": \(GraphSpec.currentVersion)")
        }
        guard let version = versionValue.intValue else {
            throw .config(.root / "version", "expected an integer, got \(versionValue.typeDescription)")
        }
        guard version == GraphSpec.currentVersion else {
            throw .config(.root / "version", "unknown config version \(version); this build reads version \(GraphSpec.currentVersion)")
        }

        let session = try decodeSession(top["session"])
        let plugins = try decodeStrings(top["plugins"], at: .root / "plugins")
        let strictFormats = try decodeBool(top["strictFormats"], at: .root / "strictFormats") ?? false

        guard let nodesValue = top["nodes"] else {
            throw .config(.root / "nodes", "missing; a graph needs nodes, like \"nodes\": {\"src\": {\"type\": \"file-source\", \"path\": \"in.wav\"}}")
        }
        let nodes = try decodeNodes(nodesValue, at: .root / "nodes")
        let links = try decodeLinks(top["links"], at: .root / "links")
        var participant: ParticipantTemplate?
        if let value = top["participant"] {
            let path = JSONPath.root / "participant"
            guard case .object(let block) = value else {
                throw .config(path, "expected an object with \"nodes\" and \"links\", got \(value.typeDescription)")
            }
            try rejectUnknownKeys(in: block, allowed: participantKeys, at: path)
            guard let templateNodes = block["nodes"] else {
                throw .config(path / "nodes", "missing; the nodes each participant gets, starting with a participant-source")
            }
            participant = ParticipantTemplate(nodes: try decodeNodes(templateNodes, at: path / "nodes"),
                                              links: try decodeLinks(block["links"], at: path / "links"))
        }

        return GraphSpec(version: version, session: session, plugins: plugins, nodes: nodes, links: links,
                         strictFormats: strictFormats, baseDirectory: baseDirectory,
                         serve: try decodeServe(top["serve"], baseDirectory: baseDirectory), participant: participant)
    }

    /// The nodes of a `nodes` object (the graph's, or the `participant` block's), in file order.
    static func decodeNodes(_ nodesValue: JSONValue, at nodesPath: JSONPath) throws(GraphError) -> [NodeSpec] {
        guard case .object(let nodesObject) = nodesValue else {
            throw .config(nodesPath, "expected an object keyed by node id, got \(nodesValue.typeDescription)")
        }
        var nodes: [NodeSpec] = []
        for (id, value) in nodesObject.entries {
            let path = nodesPath / id
            guard NodeIdentifier.isValid(id) else {
                throw .config(path, "bad node id \"\(id)\": use letters, digits, '-' and '_'")
            }
            guard case .object(var parameters) = value else {
                throw .config(path, "expected an object with a \"type\", got \(value.typeDescription)")
            }
            guard let typeValue = parameters["type"] else {
                throw .config(path / "type", "missing; every node needs a \"type\" (see `audiograph nodes`)")
            }
            guard let type = typeValue.stringValue else {
                throw .config(path / "type", "expected a string, got \(typeValue.typeDescription)")
            }
            parameters["type"] = nil
            var queue: Int?
            if let queueValue = parameters["queue"] {
                guard let frames = queueValue.intValue, NodeSpec.queueRange.contains(frames) else {
                    throw .config(path / "queue", "expected an integer of frames from \(NodeSpec.queueRange.lowerBound) "
                        + "to \(NodeSpec.queueRange.upperBound), got "
                        + (queueValue.doubleValue?.isFinite == false ? queueValue.typeDescription : JSONWriter.compact(queueValue)))
                }
                queue = frames
                parameters["queue"] = nil
            }
            let speaker = try decodeName(parameters["speaker"], at: path / "speaker")
            if speaker?.isEmpty == true { throw .config(path / "speaker", "a speaker needs a name") }
            parameters["speaker"] = nil
            nodes.append(NodeSpec(id: id, type: type, parameters: parameters, queue: queue, speaker: speaker))
        }
        return nodes
    }

    /// The links of a `links` array of chains (`"a -> b -> c"`).
    static func decodeLinks(_ value: JSONValue?, at path: JSONPath) throws(GraphError) -> [LinkSpec] {
        var links: [LinkSpec] = []
        for (i, text) in try decodeStrings(value, at: path).enumerated() {
            links += try LinkSpec.chain(text, path: path.appending(index: i))
        }
        return links
    }

    static func decodeSession(_ value: JSONValue?) throws(GraphError) -> SessionSettings {
        var settings = SessionSettings()
        guard let value else { return settings }
        let path = JSONPath.root / "session"
        guard case .object(let object) = value else {
            throw .config(path, "expected an object, got \(value.typeDescription)")
        }
        try rejectUnknownKeys(in: object, allowed: sessionKeys, at: path)
        settings.id = try decodeName(object["id"], at: path / "id")
        if let id = settings.id { try refuseBadSessionID(id, at: path / "id") }
        settings.room = try decodeName(object["room"], at: path / "room")
        settings.autoStartTranscription = try decodeBool(object["autoStartTranscription"],
                                                         at: path / "autoStartTranscription") ?? false
        settings.captions = try decodeBool(object["captions"], at: path / "captions") ?? false
        settings.hideTranscriptionButton = try decodeBool(object["hideTranscriptionButton"],
                                                          at: path / "hideTranscriptionButton") ?? true
        settings.hideClosedCaptionButton = try decodeBool(object["hideClosedCaptionButton"],
                                                          at: path / "hideClosedCaptionButton") ?? true
        if let language = try decodeString(object["captionLanguage"], at: path / "captionLanguage") {
            guard SessionSettings.supportedLanguages.contains(language) else {
                throw .config(path / "captionLanguage", "unsupported language \"\(language)\""
                    + Suggestions.hint(for: language, in: SessionSettings.supportedLanguages)
                    + "; supported: " + SessionSettings.supportedLanguages.joined(separator: ", "))
            }
            settings.captionLanguage = language
        }
        settings.participants = try decodeUsers(object["participants"], at: path / "participants", what: "a participant")
        settings.relays = try decodeUsers(object["relays"], at: path / "relays", what: "a relay")
        settings.maxParticipants = try decodeInt(object["maxParticipants"], in: SessionSettings.maxParticipantsRange,
                                                 at: path / "maxParticipants") ?? SessionSettings.defaultMaxParticipants
        return settings
    }

    /// A list of user names (`participants`, `relays`): none empty, none with control characters.
    private static func decodeUsers(_ value: JSONValue?, at path: JSONPath, what: String) throws(GraphError) -> [String] {
        let users = try decodeStrings(value, at: path)
        for (index, user) in users.enumerated() {
            let at = path.appending(index: index)
            if user.isEmpty { throw .config(at, "\(what) needs a user name") }
            try refuseControlCharacters(user, at: at)
        }
        return users
    }

    static func decodeServe(_ value: JSONValue?, baseDirectory: String) throws(GraphError) -> ServeSettings? {
        guard let value, value != .null else { return nil }
        let path = JSONPath.root / "serve"
        guard case .object(let object) = value else {
            throw .config(path, "expected an object like {\"listen\": \"127.0.0.1:8080\"}, got \(value.typeDescription)")
        }
        try rejectUnknownKeys(in: object, allowed: serveKeys, at: path)
        var settings = ServeSettings()
        if let listen = try decodeString(object["listen"], at: path / "listen") {
            guard ListenAddress(listen) != nil else {
                throw .config(path / "listen", "expected HOST:PORT with an IPv4 host, like 127.0.0.1:8080, got \"\(listen)\"")
            }
            settings.listen = listen
        }
        if let store = try decodeString(object["store"], at: path / "store") {
            settings.store = store.hasPrefix("/") ? store : baseDirectory + "/" + store
        }
        let limits = HTTPClientLimits.self
        if let count = try decodeInt(object["maxConnectionsPerAddress"], in: limits.connectionsRange,
                                     at: path / "maxConnectionsPerAddress") {
            settings.limits.maxConnectionsPerAddress = count
        }
        if let seconds = try decodeInt(object["headerTimeoutSeconds"], in: limits.timeoutRange, at: path / "headerTimeoutSeconds") {
            settings.limits.headerTimeoutSeconds = seconds
        }
        if let seconds = try decodeInt(object["idleTimeoutSeconds"], in: limits.timeoutRange, at: path / "idleTimeoutSeconds") {
            settings.limits.idleTimeoutSeconds = seconds
        }
        return settings
    }

    /// A whole number in `range`, or nil when absent.
    static func decodeInt(_ value: JSONValue?, in range: ClosedRange<Int>, at path: JSONPath) throws(GraphError) -> Int? {
        guard let value, value != .null else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            let got = value.doubleValue.map { $0.rounded() == $0 && abs($0) < 1e15 ? String(Int($0)) : "\($0)" }
            throw .config(path, "expected a whole number from \(range.lowerBound) to \(range.upperBound), got "
                + (got ?? value.typeDescription))
        }
        return number
    }

    static func rejectUnknownKeys(in object: JSONObject, allowed: [String], at path: JSONPath) throws(GraphError) {
        for key in object.keys where !allowed.contains(key) {
            throw .config(path / key, "unknown key\(Suggestions.hint(for: key, in: allowed)); allowed here: "
                + allowed.joined(separator: ", "))
        }
    }

    static func decodeString(_ value: JSONValue?, at path: JSONPath) throws(GraphError) -> String? {
        guard let value, value != .null else { return nil }
        guard let string = value.stringValue else {
            throw .config(path, "expected a string, got \(value.typeDescription)")
        }
        return string
    }

    /// A string that names something (a session id, a room) and is shown on terminals and web pages: control
    /// characters are refused, so none can reach a terminal as an escape sequence.
    static func decodeName(_ value: JSONValue?, at path: JSONPath) throws(GraphError) -> String? {
        guard let string = try decodeString(value, at: path) else { return nil }
        try refuseControlCharacters(string, at: path)
        return string
    }

    /// Why a session id is refused, nil when it is fine. A session id is a segment of the API's URLs
    /// (`/v1/sessions/{id}/transcripts`) and may name output files (`{session}`): it may hold any character
    /// but "/" (which would split the URL and the path) and control characters, and is 1 to 200 characters.
    public static func sessionIDProblem(_ id: String) -> String? {
        if id.isEmpty { return "a session id may not be empty" }
        if id.count > 200 { return "a session id is at most 200 characters (this one is \(id.count))" }
        if id.contains("/") {
            return "a session id may not hold \"/\" (it is one segment of the API's URLs and of file names): "
                + "use letters, digits and any punctuation but \"/\", e.g. \"\(id.replacingOccurrences(of: "/", with: "-"))\""
        }
        return nil
    }

    /// Throws a config error at `path` for a session id `sessionIDProblem` refuses.
    public static func refuseBadSessionID(_ id: String, at path: JSONPath) throws(GraphError) {
        if let problem = sessionIDProblem(id) { throw .config(path, "\"\(TerminalText.escape(id))\": \(problem)") }
    }

    /// Throws a config error at `path` when `string` holds a control character.
    public static func refuseControlCharacters(_ string: String, at path: JSONPath) throws(GraphError) {
        guard TerminalText.containsControl(string) else { return }
        throw .config(path, "\"\(TerminalText.escape(string))\" holds a control character; names may not")
    }

    static func decodeBool(_ value: JSONValue?, at path: JSONPath) throws(GraphError) -> Bool? {
        guard let value, value != .null else { return nil }
        guard let bool = value.boolValue else {
            throw .config(path, "expected true or false, got \(value.typeDescription)")
        }
        return bool
    }

    static func decodeStrings(_ value: JSONValue?, at path: JSONPath) throws(GraphError) -> [String] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value else {
            throw .config(path, "expected an array of strings, got \(value.typeDescription)")
        }
        var strings: [String] = []
        for (i, item) in items.enumerated() {
            guard let string = item.stringValue else {
                throw .config(path.appending(index: i), "expected a string, got \(item.typeDescription)")
            }
            strings.append(string)
        }
        return strings
    }
}
