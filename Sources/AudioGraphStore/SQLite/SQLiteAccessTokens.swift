/// The HTTP API's tokens in the store's `access_tokens` table (schema version 2).
extension SQLiteTranscriptStore: AccessTokenStore {
    public func addToken(_ token: StoredAccessToken) throws(TranscriptsError) {
        try withConnection { database throws(SQLiteError) in
            try database.run("INSERT INTO access_tokens (id, user, secret_hash, created, revoked) VALUES (?, ?, ?, ?, ?)",
                             [.text(token.id), .text(token.user), .blob(token.secretHash), .integer(token.created),
                              token.revoked.map(SQLiteValue.integer) ?? .null])
        }
    }

    public func token(id: String) throws(TranscriptsError) -> StoredAccessToken? {
        try withConnection { database throws(SQLiteError) in
            try Self.tokenRows(database, "WHERE id = ?", [.text(id)]).first
        }
    }

    public func tokens() throws(TranscriptsError) -> [StoredAccessToken] {
        try withConnection { database throws(SQLiteError) in
            try Self.tokenRows(database, "ORDER BY created, rowid", [])
        }
    }

    public func revokeTokens(user: String, at time: Int64) throws(TranscriptsError) -> Int {
        try withConnection { database throws(SQLiteError) in
            try database.run("UPDATE access_tokens SET revoked = ? WHERE user = ? AND revoked IS NULL",
                             [.integer(time), .text(user)])
            return database.changes
        }
    }

    private static func tokenRows(_ database: SQLiteDatabase, _ tail: String,
                                  _ bindings: [SQLiteValue]) throws(SQLiteError) -> [StoredAccessToken] {
        try database.query("SELECT id, user, secret_hash, created, revoked FROM access_tokens \(tail)", bindings).map { row in
            let hash: [UInt8] = if case .blob(let bytes) = row[2] { bytes } else { [] }
            let revoked: Int64? = if case .integer(let time) = row[4] { time } else { nil }
            let created: Int64 = if case .integer(let time) = row[3] { time } else { 0 }
            let id: String = if case .text(let text) = row[0] { text } else { "" }
            let user: String = if case .text(let text) = row[1] { text } else { "" }
            return StoredAccessToken(id: id, user: user, secretHash: hash, created: created, revoked: revoked)
        }
    }
}
