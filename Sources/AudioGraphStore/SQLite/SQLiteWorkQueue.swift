/// The batch queue in the store's `work_items` table (schema version 3; its pipeline columns, version 4; `item_tag`, version 5), for `audiograph batch` on one
/// machine (several worker processes may share the file). Same rules as PostgreSQL's (`WorkQueue`), with
/// `BEGIN IMMEDIATE` in place of `SELECT … FOR UPDATE SKIP LOCKED`: a claim takes the file's write lock, so
/// two claims never see the same claimable row. Leases are epoch seconds (REAL) by SQLite's clock
/// (`julianday('now')`), which on one machine is every worker's clock.
extension SQLiteTranscriptStore: WorkQueue {
    /// Now in epoch seconds, as SQL.
    static let sqlNow = "((julianday('now') - 2440587.5) * 86400.0)"

    public func enqueue(_ items: [WorkItem]) throws(TranscriptsError) -> Int {
        if items.isEmpty { return 0 }
        return try withConnection { database throws(SQLiteError) in
            try database.transaction { () throws(SQLiteError) in
                var added = 0
                for item in items {
                    try database.run("""
                        INSERT OR IGNORE INTO work_items (key, path, session_id, room, pipeline, pipeline_base)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """, [.text(item.key), .text(item.path), item.sessionID.map(SQLiteValue.text) ?? .null,
                              item.room.map(SQLiteValue.text) ?? .null, item.pipeline.map(SQLiteValue.text) ?? .null,
                              item.pipelineBase.map(SQLiteValue.text) ?? .null])
                    added += database.changes
                }
                return added
            }
        }
    }

    public func claim(worker: String, lease: Double, maxAttempts: Int) throws(TranscriptsError) -> WorkClaim? {
        let token = WorkQueueTokens.make()
        let now = Self.sqlNow
        return try withConnection { database throws(SQLiteError) in
            try database.transaction { () throws(SQLiteError) -> WorkClaim? in
                // Items out of attempts: a lease that expired on the last attempt (its worker died), or an item
                // queued again under a higher limit than now.
                try database.run("""
                    UPDATE work_items SET state = 'failed', lease_until = NULL, updated_at = \(now),
                        last_error = COALESCE(CASE WHEN state = 'running'
                            THEN 'the lease of ' || COALESCE(worker, '?') || ' expired (attempt ' || attempts || ')' END,
                            last_error, 'out of attempts')
                    WHERE attempts >= ? AND (state = 'queued' OR (state = 'running' AND lease_until < \(now)))
                    """, [.integer(Int64(maxAttempts))])
                let rows = try database.query("""
                    SELECT id, key, path, session_id, room, attempts, pipeline, pipeline_base, item_tag FROM work_items
                    WHERE attempts < ? AND (state = 'queued' OR (state = 'running' AND lease_until < \(now)))
                    ORDER BY id LIMIT 1
                    """, [.integer(Int64(maxAttempts))])
                guard let row = rows.first, case .integer(let id) = row[0] else { return nil }
                try database.run("""
                    UPDATE work_items SET state = 'running', attempts = attempts + 1, lease_until = \(now) + ?,
                        token = ?, worker = ?, item_tag = COALESCE(item_tag, ?), updated_at = \(now)
                    WHERE id = ?
                    """, [.real(lease), .text(token), .text(worker), .text(token), .integer(id)])
                func text(_ value: SQLiteValue) -> String? { if case .text(let text) = value { text } else { nil } }
                let attempts: Int64 = if case .integer(let count) = row[5] { count } else { 0 }
                return WorkClaim(item: WorkItem(key: text(row[1]) ?? "", path: text(row[2]) ?? "", sessionID: text(row[3]),
                                                room: text(row[4]), pipeline: text(row[6]), pipelineBase: text(row[7])),
                                 attempt: Int(attempts) + 1, token: token, worker: worker, itemTag: text(row[8]) ?? token)
            }
        }
    }

    public func heartbeat(_ claim: WorkClaim, lease: Double) throws(TranscriptsError) -> Bool {
        try withConnection { database throws(SQLiteError) in
            try database.run("""
                UPDATE work_items SET lease_until = \(Self.sqlNow) + ?, updated_at = \(Self.sqlNow)
                WHERE key = ? AND token = ? AND state = 'running'
                """, [.real(lease), .text(claim.item.key), .text(claim.token)])
            return database.changes == 1
        }
    }

    public func complete(_ claim: WorkClaim) throws(TranscriptsError) -> Bool {
        try withConnection { database throws(SQLiteError) in
            try database.run("""
                UPDATE work_items SET state = 'done', lease_until = NULL, last_error = NULL, updated_at = \(Self.sqlNow)
                WHERE key = ? AND token = ? AND state = 'running'
                """, [.text(claim.item.key), .text(claim.token)])
            return database.changes == 1
        }
    }

    public func fail(_ claim: WorkClaim, error: String, maxAttempts: Int) throws(TranscriptsError) -> Bool {
        try withConnection { database throws(SQLiteError) in
            try database.run("""
                UPDATE work_items SET state = CASE WHEN attempts < ? THEN 'queued' ELSE 'failed' END,
                    lease_until = NULL, last_error = ?, updated_at = \(Self.sqlNow)
                WHERE key = ? AND token = ? AND state = 'running'
                """, [.integer(Int64(maxAttempts)), .text(error), .text(claim.item.key), .text(claim.token)])
            return database.changes == 1
        }
    }

    public func status() throws(TranscriptsError) -> WorkQueueStatus {
        let (counts, failures) = try withConnection { database throws(SQLiteError) in
            (try database.query("SELECT state, count(*) FROM work_items GROUP BY state"),
             try database.query("""
                SELECT key, path, attempts, COALESCE(last_error, '') FROM work_items WHERE state = 'failed' ORDER BY id
                """))
        }
        func text(_ value: SQLiteValue) -> String { if case .text(let text) = value { text } else { "" } }
        func int(_ value: SQLiteValue) -> Int { if case .integer(let number) = value { Int(number) } else { 0 } }
        var byState: [String: Int] = [:]
        for row in counts { byState[text(row[0])] = int(row[1]) }
        return WorkQueueStatus(
            queued: byState["queued"] ?? 0, running: byState["running"] ?? 0, done: byState["done"] ?? 0,
            failed: byState["failed"] ?? 0,
            failures: failures.map { (key: text($0[0]), path: text($0[1]), attempts: int($0[2]), error: text($0[3])) })
    }
}
