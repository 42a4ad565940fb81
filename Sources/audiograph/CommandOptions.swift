/// One option a command takes: its name, what value it takes, and what it does. The command's table of these
/// drives parsing (`Arguments`), shell completion (`audiograph completion`) and the OPTIONS section of its
/// `--help`, so the three cannot disagree.
struct CommandOption: Sendable {
    enum Value: Sendable {
        /// A flag (`--quiet`).
        case none
        /// A value, shown in help as `placeholder` (`--set NODE.PARAM=VALUE`, `--events=jsonl`).
        case required(placeholder: String)
        /// One of a few values or none (`--stats`, `--stats json`); alone, the last choice.
        case optional(choices: [String])
    }

    let name: String
    let value: Value
    /// The help text: sentences, wrapped to the terminal's width when printed.
    let summary: String

    static func flag(_ name: String, _ summary: String) -> CommandOption {
        CommandOption(name: name, value: .none, summary: summary)
    }

    static func valued(_ name: String, _ placeholder: String, _ summary: String) -> CommandOption {
        CommandOption(name: name, value: .required(placeholder: placeholder), summary: summary)
    }

    static func optional(_ name: String, choices: [String], _ summary: String) -> CommandOption {
        CommandOption(name: name, value: .optional(choices: choices), summary: summary)
    }

    /// How help shows it: `--set NODE.PARAM=VALUE`, `--stats [json]` (the default choice is left out).
    var label: String {
        switch value {
        case .none: name
        case .required(let placeholder): name + " " + placeholder
        case .optional(let choices): name + " [" + choices.dropLast().joined(separator: "|") + "]"
        }
    }
}

/// A command's options, in the order its help lists them.
struct CommandOptions: Sendable {
    let all: [CommandOption]

    init(_ all: [CommandOption]) { self.all = all }

    static let none = CommandOptions([])

    /// Options that take a value.
    var valued: [String] { all.compactMap { if case .required = $0.value { $0.name } else { nil } } }
    /// Options that take none.
    var flags: [String] { all.compactMap { if case .none = $0.value { $0.name } else { nil } } }
    /// Options that take one of a few values or none.
    var optionallyValued: [(name: String, choices: [String])] {
        all.compactMap { if case .optional(let choices) = $0.value { ($0.name, choices) } else { nil } }
    }

    /// Every option's name, in declaration order.
    var names: [String] { all.map(\.name) }

    /// The help's OPTIONS section: a row per option, its summary wrapped in a column after the labels (on the
    /// next line when the label is too long for the column). Empty when there are none.
    var help: String {
        guard !all.isEmpty else { return "" }
        let column = min(all.map(\.label.count).max() ?? 0, Self.widestLabel) + 4
        var lines = ["OPTIONS:"]
        for option in all {
            let label = "  " + option.label
            let rows = Self.wrap(option.summary, width: Self.width - column)
            let indent = String(repeating: " ", count: column)
            if label.count + 2 > column {
                lines.append(label)
                lines += rows.map { indent + $0 }
            } else {
                lines.append(label.padding(toLength: column, withPad: " ", startingAt: 0) + (rows.first ?? ""))
                lines += rows.dropFirst().map { indent + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Labels longer than this get their summary on the next line.
    static let widestLabel = 22
    /// The width help is wrapped to (it goes to files and pipes as much as to terminals).
    static let width = 108

    /// `text`'s words in lines of at most `width` characters (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

/// Options several commands take with the same meaning.
extension CommandOption {
    static let verbose = flag("--verbose", "Let libraries print their own logs.")
    /// Where the store is when `--store` is not given.
    static let defaultStore = "$XDG_DATA_HOME/audiograph/transcripts.sqlite, else "
        + "~/.local/share/audiograph/transcripts.sqlite"

    /// `--store PATH`: `what` (e.g. "The store to serve"), a SQLite path or a PostgreSQL URL, and its default.
    static func store(_ what: String = "The store", then more: String = "") -> CommandOption {
        valued("--store", "PATH", "\(what), a SQLite path or a postgres://user:password@host/db URL "
            + "(default: \(defaultStore)).\(more.isEmpty ? "" : " " + more)")
    }

    /// The batch queue's options (`batch --store`, `worker`).
    static let pipelinesAtOnce = valued("--jobs", "N", "Pipelines at once (default: the number of cores).")
    static let leaseSeconds = valued("--lease-seconds", "S", "How long a claim lasts without a heartbeat (default 60; "
        + "heartbeats every S/3).")
    static let maxAttempts = valued("--max-attempts", "N", "Tries per file before it is failed for good (default 3).")
    static let setPipelineParameter = valued("--set", "NODE.PARAM=VALUE", "Override a pipeline parameter (or "
        + "session.KEY); repeatable.")
}
