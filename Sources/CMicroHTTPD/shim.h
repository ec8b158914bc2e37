// MHD_start_daemon and MHD_get_daemon_info are variadic; Swift calls MHD_start_daemon_va and these wrappers.
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <microhttpd.h>

static inline uint16_t cmhd_daemon_port(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>

// MHD_get_connection_info is variadic: copies the peer's address (4 bytes for IPv4, 16 for IPv6) into `bytes`
// and returns its family (AF_INET or AF_INET6), or -1 when unknown.
static inline int cmhd_client_address(struct MHD_Connection *c, unsigned char bytes[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return -1;
    const struct sockaddr *a = info->client_addr;
    if (a->sa_family == AF_INET) {
        memcpy(bytes, &((const struct sockaddr_in *)a)->sin_addr, 4);
        return AF_INET;
    }
    if (a->sa_family == AF_INET6) {
        memcpy(bytes, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
        return AF_INET6;
    }
    return -1;
}

// MHD_get_connection_info is variadic: makes closing the connection send a TCP reset instead of a FIN (linger 0),
// for injecting connection resets. 0 on success.
static inline int cmhd_reset_on_close(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!info) return -1;
    struct linger option = { .l_onoff = 1, .l_linger = 0 };
    return setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
}
