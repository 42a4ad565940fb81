#include <libpq-fe.h>
#include <postgres_ext.h>

/* PG_DIAG_SQLSTATE is a character-literal macro: it does not import. */
static inline int audiograph_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }

/* A notice processor that drops notices (libpq's default prints them to stderr). */
static inline void audiograph_pg_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void audiograph_pg_silence_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, audiograph_pg_ignore_notice, NULL);
}
