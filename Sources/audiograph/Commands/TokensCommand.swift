import AudioGraph
import Foundation

struct TokensCommand: Command {
    static let name = "tokens"
    static let abstract = "Create, list and revoke the HTTP API's access tokens"
    static let usage = "audiograph tokens create --user NAME [--store PATH]\n"
        + "       audiograph tokens list [--store PATH]\n"
        + "       audiograph tokens revoke --user NAME [--store PATH]"
    static let options = CommandOptions([
        .valued("--user", "NAME", "The user (1 to 64 letters, digits, '.', '_', '-', '@'): who the token speaks for. "
            + "A user sees the sessions whose session.participants name them."),
        .store(then: "create makes it when missing."),
    ])
    static let help = """
        \(abstract) (see docs/http-api.md).

        USAGE: \(usage)

        create   Makes a token for NAME and prints it once: the token is the last word of the last line. The
                 store keeps only a SHA-256 hash of its secret.
        list     Users and token ids (never the tokens), with when each was made and revoked.
        revoke   Revokes every token of NAME; the server refuses them from the next request on.

        \(options.help)

        Exit codes: 64 bad arguments, 65 the store holds malformed data, 66 no store (list, revoke),
        73 the store cannot be created, 74 the store cannot be written.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        guard let subcommand = args.positionals.first else {
            throw GraphError(.usage, at: "", "missing SUBCOMMAND (create, list or revoke); see --help")
        }
        _ = try args.requirePositionals(["subcommand"])
        switch subcommand {
        case "create":
            let user = try requireUser(args)
            let store = try openStore(args, create: true)
            defer { store.close() }
            let made: (token: String, id: String)
            do { made = try AccessTokens(store: store).create(user: user) } catch { throw Self.error(error, args) }
            printError("audiograph: token \(made.id) for \(user); it is shown once, keep it secret")
            printError("audiograph: " + TokenAdvice.usage(store: StoreOptions.describe(args)))
            if let warning = TokenAdvice.participationWarning(user: user, store: store) {
                printError("audiograph: warning: " + warning)
            }
            printOut("token for \(user): \(made.token)")
        case "list":
            try StoreOptions.reject(["--user"], in: args)
            let store = try StoreOptions.openStoreForReading(args)  // only reads: never creates or migrates
            defer { store.close() }
            let tokens: [StoredAccessToken]
            do { tokens = try AccessTokens(store: store).list() } catch { throw Self.error(error, args) }
            printOut("USER".padding(toLength: 24, withPad: " ", startingAt: 0) + "TOKEN ID          CREATED (UTC)         REVOKED")
            for token in tokens {
                let user: String = token.user.padding(toLength: 24, withPad: " ", startingAt: 0)
                let revoked: String = token.revoked.map { StoreTime.iso8601($0) } ?? "-"
                printOut(user + token.id + "  " + StoreOptions.date(token.created) + "  " + revoked)
            }
        case "revoke":
            let user = try requireUser(args)
            let store = try openStore(args, create: false)
            defer { store.close() }
            let count: Int
            do { count = try AccessTokens(store: store).revoke(user: user) } catch { throw Self.error(error, args) }
            printOut("revoked \(count) token\(count == 1 ? "" : "s") of \(user)")
        default:
            throw GraphError(.usage, at: subcommand, "unknown subcommand"
                + Suggestions.hint(for: subcommand, in: ["create", "list", "revoke"]) + "; subcommands: create, list, revoke")
        }
        return 0
    }

    private static func requireUser(_ args: Arguments) throws(GraphError) -> String {
        guard let user = args.value("--user"), !user.isEmpty else {
            throw GraphError(.usage, at: "--user", "needs a user name: --user NAME")
        }
        guard AccessTokens.isValidUser(user) else {
            throw GraphError(.usage, at: "--user", TokenError.badUser(user).description)
        }
        return user
    }

    private static func openStore(_ args: Arguments, create: Bool) throws(GraphError) -> any FullTranscriptStore {
        try StoreOptions.openStore(args, create: create)
    }

    private static func error(_ error: TokenError, _ args: Arguments) -> GraphError {
        switch error {
        case .badUser: return GraphError(.usage, at: "--user", error.description)
        case .noRandomness: return GraphError(.unavailable, at: "tokens", error.description)
        case .store(let storeError): return StoreOptions.error(storeError, store: StoreOptions.describe(args))
        }
    }
}
