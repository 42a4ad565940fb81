import AudioGraphCore
import Foundation

/// The access tokens of a PostgreSQL store (`audiograph tokens`, the HTTP API's bearer tokens): the
/// `access_tokens` table, secrets stored as hashes in `bytea`.
extension PostgresTranscriptStore: AccessTokenStore {
    public func addToken(_ token: StoredAccessToken) throws(TranscriptsError) {
        try withConnection { connection throws(PostgresError) in
            _ = try connection.query("""
                INSERT INTO access_tokens (id, "user", secret_hash, created, revoked)
                VALUES ($1, $2, $3::bytea, $4::bigint, $5::bigint)
                """, [token.id, token.user, Self.byteaText(token.secretHash), Self.text(token.created),
                      token.revoked.map { Self.text($0) }])
        }
    }

    public func token(id: String) throws(TranscriptsError) -> StoredAccessToken? {
        try tokenRows("WHERE id = $1", [id]).first
    }

    public func tokens() throws(TranscriptsError) -> [StoredAccessToken] {
        try tokenRows("ORDER BY created, seq", [])
    }

    public func revokeTokens(user: String, at time: Int64) throws(TranscriptsError) -> Int {
        try withConnection { connection throws(PostgresError) in
            try connection.query("UPDATE access_tokens SET revoked = $1::bigint WHERE \"user\" = $2 AND revoked IS NULL",
                                 [Self.text(time), user]).affected
        }
    }

    private func tokenRows(_ tail: String, _ parameters: [String?]) throws(TranscriptsError) -> [StoredAccessToken] {
        try reading { connection throws(PostgresError) in
            var tokens: [StoredAccessToken] = []
            for row in try connection.query("SELECT id, \"user\", secret_hash, created, revoked FROM access_tokens \(tail)",
                                            parameters).rows {
                guard let hash = Self.bytes(fromBytea: row[2] ?? "") else {
                    throw PostgresError(sqlState: "22000", message: "an access token's secret hash is not bytea hex")
                }
                tokens.append(StoredAccessToken(id: row[0] ?? "", user: row[1] ?? "", secretHash: hash,
                                                created: Int64(row[3] ?? "") ?? 0, revoked: row[4].flatMap { Int64($0) }))
            }
            return tokens
        }
    }

    /// bytea's hex input form: `\x0a1b…`.
    static func byteaText(_ bytes: [UInt8]) -> String {
        "\\x" + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Bytes from bytea's hex output form (`bytea_output = hex`, the default).
    static func bytes(fromBytea text: String) -> [UInt8]? {
        guard text.hasPrefix("\\x") else { return nil }
        let hex = Array(text.utf8.dropFirst(2))
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        var index = 0
        while index < hex.count {
            guard let high = hexDigit(hex[index]), let low = hexDigit(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
