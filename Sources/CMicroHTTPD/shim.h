#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <string.h>
#include <microhttpd.h>

/* Percent-decoding for the path and query values, except that a value holding "%00" is left as it came: a NUL
 * decoded into the middle of a C string would cut it short (limit=5%00junk would read as limit=5). Undecoded,
 * such a value fails validation or matches nothing. */
static inline size_t audiograph_mhd_unescape(void *cls, struct MHD_Connection *connection, char *text) {
    (void) cls;
    (void) connection;
    for (const char *p = text; *p; p++) {
        if (p[0] == '%' && p[1] == '0' && p[2] == '0') return strlen(text);
    }
    return MHD_http_unescape(text);
}

/* MHD_start_daemon is variadic: the options audiograph sets, as one plain function. */
static inline struct MHD_Daemon *audiograph_mhd_start(unsigned int flags, const struct sockaddr *address,
                                                      unsigned int threads, unsigned int connection_limit,
                                                      unsigned int per_address_limit, unsigned int timeout_seconds,
                                                      size_t memory_limit,
                                                      MHD_AccessHandlerCallback handler, void *handler_cls,
                                                      MHD_RequestCompletedCallback completed, void *completed_cls,
                                                      MHD_NotifyConnectionCallback notify, void *notify_cls) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_UNESCAPE_CALLBACK, audiograph_mhd_unescape, NULL,
                            MHD_OPTION_END);
}

/* MHD_get_daemon_info is variadic. */
static inline uint16_t audiograph_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* MHD_get_connection_info is variadic: the connection's socket (-1 if unknown). */
static inline int audiograph_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* Whether a connection notification is the one for a new connection (the enum's case names do not import). */
static inline int audiograph_mhd_connection_started(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/* Cast macros do not import. */
static inline uint64_t audiograph_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t audiograph_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t audiograph_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

/* MHD_upgrade_action is variadic: closing an upgraded connection (the only way to close its socket). */
static inline enum MHD_Result audiograph_mhd_upgrade_close(struct MHD_UpgradeResponseHandle *urh) {
    return MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}
