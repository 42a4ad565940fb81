import AudioGraph
import Foundation
import Testing

@Suite struct AccessTokensTests {
    @Test func sha256MatchesKnownVectors() {
        #expect(AccessTokens.sha256(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(AccessTokens.sha256([]).map { String(format: "%02x", $0) }.joined()
            == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func tokensAreCheckedAgainstTheirHashOnly() throws {
        let fixture = try APIFixture()
        #expect(fixture.aliceToken.hasPrefix("agt_"))
        #expect(fixture.aliceToken.count == 4 + 16 + 1 + 64)
        #expect(try fixture.tokens.user(for: fixture.aliceToken) == "alice")
        #expect(try fixture.tokens.user(for: fixture.bobToken) == "bob")
        // The store keeps no secret: nothing in it contains the token's secret part.
        let secret = String(fixture.aliceToken.suffix(64))
        let stored = try fixture.tokens.list()
        #expect(stored.count == 2)
        #expect(stored.allSatisfy { $0.secretHash.count == 32 && !$0.id.contains(secret) })
        let file = try Data(contentsOf: URL(fileURLWithPath: fixture.store.path))
        #expect(file.range(of: Data(secret.utf8)) == nil)
    }

    @Test func malformedUnknownAndForgedTokensAreRefused() throws {
        let fixture = try APIFixture()
        let id = fixture.aliceToken.dropFirst(4).prefix(16)
        for token in ["", "agt_", "agt_\(id)_", "agt_\(id)_\(String(repeating: "0", count: 64))",
                      "agt_\(String(repeating: "f", count: 16))_\(fixture.aliceToken.suffix(64))",
                      fixture.aliceToken.uppercased(), fixture.aliceToken + "0", String(repeating: "x", count: 5000)] {
            #expect(try fixture.tokens.user(for: token) == nil, "\(token.prefix(40))")
        }
    }

    @Test func revokeEndsEveryTokenOfTheUserOnly() throws {
        let fixture = try APIFixture()
        let second = try fixture.tokens.create(user: "alice").token
        #expect(try fixture.tokens.revoke(user: "alice") == 2)
        #expect(try fixture.tokens.revoke(user: "alice") == 0)
        #expect(try fixture.tokens.user(for: fixture.aliceToken) == nil)
        #expect(try fixture.tokens.user(for: second) == nil)
        #expect(try fixture.tokens.user(for: fixture.bobToken) == "bob")
        #expect(try fixture.tokens.list().filter { $0.user == "alice" }.allSatisfy { $0.revoked != nil })
    }

    @Test func userNamesAreChecked() throws {
        let fixture = try APIFixture()
        for user in ["", "a b", "ä", String(repeating: "a", count: 65), "x/y", "x\ny"] {
            #expect(throws: TokenError.badUser(user)) { try fixture.tokens.create(user: user) }
        }
        #expect(try fixture.tokens.create(user: "first.last-2@example_org").token.hasPrefix("agt_"))
    }
}
