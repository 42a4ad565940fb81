import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// `audiograph tokens create | list | revoke`: the token printed once, only its hash stored, the listing
/// without secrets, revocation, and every error with its exit code.
@Suite("audiograph tokens (TokensCommand)")
struct TokensCommandTests {
    /// The token `tokens create` printed: the last word of its last line.
    private func token(of result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(result.stdoutLines.last?.split(separator: " ").last.map(String.init), "\(result)",
                     sourceLocation: sourceLocation)
    }

    @Test("create: makes the store, prints the token once; the store keeps only SHA-256 of its secret")
    func create() async throws {
        let dir = try TemporaryFolder()
        #expect(!dir.exists("new/tokens.sqlite"))
        let result = try await Harness.audiograph(["tokens", "create", "--user", "alice", "--store", "new/tokens.sqlite"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines.count == 1 && result.stdoutLines[0].hasPrefix("token for alice: agt_"), "\(result)")
        let token = try token(of: result)
        let match = try #require(token.wholeMatch(of: /agt_([0-9a-f]{16})_([0-9a-f]{64})/), "\(token)")
        let id = String(match.1)
        let secret = String(match.2)
        let storeArgument = dir.path("new/tokens.sqlite")
        #expect(result.stderr == "audiograph: token \(id) for alice; it is shown once, keep it secret\n"
            + "audiograph: send it as \"Authorization: Bearer TOKEN\", or paste it into the web page of \"audiograph serve --store \(storeArgument)\"\n"
            + "audiograph: warning: alice is a participant in no stored session, so the API and the web page show them nothing yet; "
            + "sessions list participants in session.participants (default: the user who ran the pipeline)\n", "\(result)")
        #expect(dir.exists("new/tokens.sqlite"), "create makes the store")

        // Neither the token nor its secret is anywhere in the store's files; the hash is.
        for file in ["new/tokens.sqlite", "new/tokens.sqlite-wal"] where dir.exists(file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.path(file)))
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the secret is in \(file)")
            #expect(bytes.range(of: Data(secret.prefix(32).utf8)) == nil, "half the secret is in \(file)")
        }
        let store = try SQLiteTranscriptStore(path: dir.path("new/tokens.sqlite"), create: false)
        defer { store.close() }
        let stored = try store.tokens()
        #expect(stored.map(\.id) == [id] && stored.map(\.user) == ["alice"] && stored[0].revoked == nil)
        #expect(stored[0].secretHash == AccessTokens.sha256(Array(secret.utf8)))
        #expect(try AccessTokens(store: store).user(for: token) == "alice")

        // A second token is another id and secret; both work.
        let again = try await Harness.audiograph(["tokens", "create", "--user", "alice", "--store", "new/tokens.sqlite"], in: dir)
        let second = try self.token(of: again)
        #expect(second != token && !second.contains(id) && !second.contains(secret))
        #expect(try AccessTokens(store: store).user(for: second) == "alice")
    }

    @Test("list: users and token ids with dates, never a secret; revoke: every token of one user, counted")
    func listAndRevoke() async throws {
        let dir = try TemporaryFolder()
        var tokens: [String: [String]] = [:]
        for user in ["alice", "bob", "alice", "carol.d-e_f@example"] {
            let made = try await Harness.audiograph(["tokens", "create", "--user", user, "--store", "t.sqlite"], in: dir)
            #expect(made.status == 0, "\(made)")
            tokens[user, default: []].append(try token(of: made))
        }
        let list = try await Harness.audiograph(["tokens", "list", "--store", "t.sqlite"], in: dir)
        #expect(list.status == 0 && list.stderr.isEmpty, "\(list)")
        #expect(list.stdoutLines.count == 5, "a header and four tokens\n\(list)")
        #expect(list.stdoutLines.first?.hasPrefix("USER") == true && list.stdoutLines.first?.contains("TOKEN ID") == true)
        let rows = list.stdoutLines.dropFirst()
        #expect(rows.map { $0.split(separator: " ").first.map(String.init) } == ["alice", "bob", "alice", "carol.d-e_f@example"])
        for (user, made) in tokens {
            for token in made {
                let id = String(token.dropFirst(4).prefix(16))
                let secret = String(token.suffix(64))
                #expect(rows.contains { $0.hasPrefix(user) && $0.contains(id) }, "\(id) of \(user)\n\(list)")
                #expect(!list.stdout.contains(secret), "list shows a secret\n\(list)")
            }
        }
        #expect(rows.allSatisfy { $0.hasSuffix("  -") }, "none revoked\n\(list)")

        let revoke = try await Harness.audiograph(["tokens", "revoke", "--user", "alice", "--store", "t.sqlite"], in: dir)
        #expect(revoke.status == 0 && revoke.stdout == "revoked 2 tokens of alice\n", "\(revoke)")
        let again = try await Harness.audiograph(["tokens", "revoke", "--user", "alice", "--store", "t.sqlite"], in: dir)
        #expect(again.status == 0 && again.stdout == "revoked 0 tokens of alice\n", "\(again)")
        let bob = try await Harness.audiograph(["tokens", "revoke", "--user", "bob", "--store", "t.sqlite"], in: dir)
        #expect(bob.stdout == "revoked 1 token of bob\n", "\(bob)")
        let nobody = try await Harness.audiograph(["tokens", "revoke", "--user", "nobody", "--store", "t.sqlite"], in: dir)
        #expect(nobody.status == 0 && nobody.stdout == "revoked 0 tokens of nobody\n", "\(nobody)")

        let after = try await Harness.audiograph(["tokens", "list", "--store", "t.sqlite"], in: dir)
        let revokedRows = after.stdoutLines.dropFirst()
        #expect(revokedRows.filter { !$0.hasSuffix("  -") }.count == 3, "alice's two and bob's one show when\n\(after)")
        #expect(revokedRows.filter { $0.hasPrefix("carol") }.allSatisfy { $0.hasSuffix("  -") })
        #expect(revokedRows.filter { $0.hasPrefix("alice") }.allSatisfy { $0.wholeMatch(of: /.*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil },
                "\(after)")

        // In the store: alice's and bob's are revoked, carol's is not.
        let store = try SQLiteTranscriptStore(path: dir.path("t.sqlite"), create: false)
        defer { store.close() }
        let access = AccessTokens(store: store)
        for (user, made) in tokens {
            for token in made {
                #expect(try access.user(for: token) == (user.hasPrefix("carol") ? user : nil), "\(user)")
            }
        }
        // A store with no tokens lists the header alone.
        try SQLiteTranscriptStore(path: dir.path("e.sqlite")).close()
        let listed = try await Harness.audiograph(["tokens", "list", "--store", "e.sqlite"], in: dir)
        #expect(listed.status == 0 && listed.stdoutLines.count == 1, "\(listed)")
    }

    @Test("create and revoke need a valid --user: exit 64 naming --user, and no store is made", arguments: [
        [] as [String], ["--user"], ["--user", ""], ["--user", "a b"], ["--user", "../etc"], ["--user", "alice/bob"],
        ["--user", "x;rm"], ["--user", "é"], ["--user", String(repeating: "u", count: 65)], ["--user", "tab\there"],
        ["--user", "new\nline"],
    ])
    func badUser(arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        for subcommand in ["create", "revoke"] {
            let result = try await Harness.audiograph(["tokens", subcommand] + arguments + ["--store", "t.sqlite"], in: dir)
            expectError(result, exit: 64, at: arguments == ["--user"] ? nil : "--user")
            #expect(!dir.exists("t.sqlite"), "no store for a bad user\n\(result)")
        }
    }

    @Test("a 64-character user name and the allowed punctuation are fine")
    func longestUser() async throws {
        let dir = try TemporaryFolder()
        let user = String(repeating: "u", count: 60) + ".-_@"
        let result = try await Harness.audiograph(["tokens", "create", "--user", user, "--store", "t.sqlite"], in: dir)
        #expect(result.status == 0 && result.stdoutLines.last?.hasPrefix("token for \(user): agt_") == true, "\(result)")
    }

    @Test("list and revoke with no store: exit 66 naming it, nothing created")
    func noStore() async throws {
        let dir = try TemporaryFolder()
        let list = try await Harness.audiograph(["tokens", "list", "--store", "none.sqlite"], in: dir)
        expectError(list, exit: 66, at: dir.path("none.sqlite"))
        let revoke = try await Harness.audiograph(["tokens", "revoke", "--user", "alice", "--store", "none.sqlite"], in: dir)
        expectError(revoke, exit: 66, at: dir.path("none.sqlite"))
        #expect(!dir.exists("none.sqlite"))

        // The default store: $XDG_DATA_HOME/audiograph/transcripts.sqlite.
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let binary = try Harness.binary().path
        let defaultPath = dir.path("xdg/audiograph/transcripts.sqlite")
        let missing = try await Harness.run(env, ["XDG_DATA_HOME=\(dir.path("xdg"))", binary, "tokens", "list"], in: dir)
        expectError(missing, exit: 66, at: defaultPath)
        let created = try await Harness.run(env, ["XDG_DATA_HOME=\(dir.path("xdg"))", binary, "tokens", "create", "--user", "alice"],
                                            in: dir)
        #expect(created.status == 0 && FileManager.default.fileExists(atPath: defaultPath), "\(created)")
        let listed = try await Harness.run(env, ["XDG_DATA_HOME=\(dir.path("xdg"))", binary, "tokens", "list"], in: dir)
        #expect(listed.status == 0 && listed.stdoutLines.count == 2, "\(listed)")
    }

    @Test("a file that is not a store: exit 65 naming it, the file untouched")
    func notAStore() async throws {
        let dir = try TemporaryFolder()
        let junk = String(repeating: "not a database\n", count: 100)
        try dir.write("junk.sqlite", junk)
        for arguments in [["create", "--user", "alice"], ["list"], ["revoke", "--user", "alice"]] {
            let result = try await Harness.audiograph(["tokens"] + arguments + ["--store", "junk.sqlite"], in: dir)
            expectError(result, exit: 65, at: dir.path("junk.sqlite"))
        }
        #expect(try dir.read("junk.sqlite") == junk)
    }

    @Test("bad subcommands and options: exit 64", arguments: [
        ["tokens"], ["tokens", "crete", "--user", "a"], ["tokens", "create", "extra", "--user", "a"],
        ["tokens", "list", "--user", "alice"], ["tokens", "create", "--user", "a", "--token", "x"], ["tokens", "revoke"],
        ["tokens", "list", "--store"],
    ])
    func usage(arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        _ = try await Harness.audiograph(["tokens", "create", "--user", "a", "--store", "t.sqlite"], in: dir)
        let result = try await Harness.audiograph(arguments.last == "--store" ? arguments : arguments + ["--store", "t.sqlite"], in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.hasPrefix("audiograph: "), "\(result)")
    }

    @Test("tokens --help names the subcommands and the exit codes")
    func help() async throws {
        let dir = try TemporaryFolder()
        let help = try await Harness.audiograph(["tokens", "--help"], in: dir)
        #expect(help.status == 0, "\(help)")
        for text in ["tokens create --user NAME", "tokens list", "tokens revoke --user NAME", "SHA-256", "66 no store"] {
            #expect(help.stdout.contains(text), "\(text)\n\(help)")
        }
    }
}
