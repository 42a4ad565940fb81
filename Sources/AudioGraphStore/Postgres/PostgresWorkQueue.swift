import AudioGraphCore
import Foundation

/// The batch work queue of a PostgreSQL store (`audiograph batch --enqueue-only`, `audiograph worker`): the
/// `work_items` table, claimed with `FOR UPDATE SKIP LOCKED` under a lease.
extension PostgresTranscriptStore: WorkQueue {
    public func enqueue(_ items: [WorkItem]) throws(TranscriptsError) -> Int {
        if items.isEmpty { return 0 }
        return try inTransaction { connection throws(PostgresError) in
            var added = 0
            for item in items {
                added += try connection.query("""
                    INSERT INTO work_items (key, path, session_id, room, pipeline, pipeline_base)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (key) DO NOTHING
                    """, [item.key, item.path, item.sessionID, item.room, item.pipeline, item.pipelineBase]).affected
            }
            return added
        }
    }

    public func claim(worker: String, lease: Double, maxAttempts: Int) throws(TranscriptsError) -> WorkClaim? {
        let token = WorkQueueTokens.make()
        return try inTransaction { connection throws(PostgresError) in
            // Items out of attempts: a lease that expired on the last attempt (its worker died), or an item queued
            // again under a higher limit than now. Locked rows (another claim in flight) are skipped.
            try connection.query("""
                UPDATE work_items SET state = 'failed', lease_until = NULL, updated_at = now(),
                    last_error = COALESCE(CASE WHEN state = 'running'
                        THEN 'the lease of ' || COALESCE(worker, '?') || ' expired (attempt ' || attempts || ')' END,
                        last_error, 'out of attempts')
                WHERE id IN (
                    SELECT id FROM work_items
                    WHERE attempts >= $1::int AND (state = 'queued' OR (state = 'running' AND lease_until < now()))
                    FOR UPDATE SKIP LOCKED)
                """, [Self.text(maxAttempts)])
            let rows = try connection.query("""
                UPDATE work_items w SET state = 'running', attempts = w.attempts + 1,
                    lease_until = now() + $1::float8 * interval '1 second', token = $2, worker = $3,
                    item_tag = COALESCE(w.item_tag, $2), updated_at = now()
                FROM (
                    SELECT id FROM work_items
                    WHERE attempts < $4::int AND (state = 'queued' OR (state = 'running' AND lease_until < now()))
                    ORDER BY id LIMIT 1
                    FOR UPDATE SKIP LOCKED) c
                WHERE w.id = c.id
                RETURNING w.key, w.path, w.session_id, w.room, w.attempts, w.pipeline, w.pipeline_base, w.item_tag
                """, [Self.text(lease), token, worker, Self.text(maxAttempts)])
            guard let row = rows.rows.first else { return nil }
            return WorkClaim(item: WorkItem(key: row[0] ?? "", path: row[1] ?? "", sessionID: row[2], room: row[3],
                                            pipeline: row[5], pipelineBase: row[6]),
                             attempt: Int(row[4] ?? "") ?? 1, token: token, worker: worker, itemTag: row[7] ?? token)
        }
    }

    public func heartbeat(_ claim: WorkClaim, lease: Double) throws(TranscriptsError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.query("""
                UPDATE work_items SET lease_until = now() + $1::float8 * interval '1 second', updated_at = now()
                WHERE key = $2 AND token = $3 AND state = 'running'
                """, [Self.text(lease), claim.item.key, claim.token]).affected == 1
        }
    }

    public func complete(_ claim: WorkClaim) throws(TranscriptsError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.query("""
                UPDATE work_items SET state = 'done', lease_until = NULL, last_error = NULL, updated_at = now()
                WHERE key = $1 AND token = $2 AND state = 'running'
                """, [claim.item.key, claim.token]).affected == 1
        }
    }

    public func fail(_ claim: WorkClaim, error: String, maxAttempts: Int) throws(TranscriptsError) -> Bool {
        try withConnection { connection throws(PostgresError) in
            try connection.query("""
                UPDATE work_items SET state = CASE WHEN attempts < $1::int THEN 'queued' ELSE 'failed' END,
                    lease_until = NULL, last_error = $2, updated_at = now()
                WHERE key = $3 AND token = $4 AND state = 'running'
                """, [Self.text(maxAttempts), error, claim.item.key, claim.token]).affected == 1
        }
    }

    public func status() throws(TranscriptsError) -> WorkQueueStatus {
        let (counts, failures) = try withConnection { connection throws(PostgresError) in
            let counts = try connection.query("SELECT state, count(*) FROM work_items GROUP BY state").rows
            let failures = try connection.query("""
                SELECT key, path, attempts, COALESCE(last_error, '') FROM work_items WHERE state = 'failed' ORDER BY id
                """).rows
            return (counts, failures)
        }
        var byState: [String: Int] = [:]
        for row in counts { byState[row[0] ?? ""] = Int(row[1] ?? "") ?? 0 }
        return WorkQueueStatus(
            queued: byState["queued"] ?? 0, running: byState["running"] ?? 0, done: byState["done"] ?? 0,
            failed: byState["failed"] ?? 0,
            failures: failures.map { (key: $0[0] ?? "", path: $0[1] ?? "", attempts: Int($0[2] ?? "") ?? 0, error: $0[3] ?? "") })
    }
}

/// Claim tokens: 128 random bits as 32 hex digits.
enum WorkQueueTokens {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
