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

// Copies a socket address's 4 (IPv4) or 16 (IPv6) bytes into `bytes` and returns its family (AF_INET or
// AF_INET6), or -1 for another family: the accept policy gets a bare sockaddr, a connection lookup one too.
static inline int cmhd_copy_address(const struct sockaddr *a, unsigned char bytes[16]) {
    if (!a) return -1;
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

// MHD_get_connection_info is variadic: copies the peer's address into `bytes` (see cmhd_copy_address) and returns
// its family, or -1 when unknown.
static inline int cmhd_client_address(struct MHD_Connection *c, unsigned char bytes[16]) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? cmhd_copy_address(info->client_addr, bytes) : -1;
}

// MHD_get_connection_info is variadic: the connection's socket, or -1.
static inline int cmhd_connection_socket(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

// MHD_get_connection_info is variadic: what the connection-notification callback stored for the connection.
static inline void *cmhd_socket_context(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

// MHD_get_connection_info is variadic: makes closing the connection send a TCP reset instead of a FIN (linger 0),
// for injecting connection resets. 0 on success.
static inline int cmhd_reset_on_close(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!info) return -1;
    struct linger option = { .l_onoff = 1, .l_linger = 0 };
    return setsockopt(info->connect_fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
}

// MHD_get_connection_info is variadic: the bytes of the request's head (request line and header fields), or 0.
static inline size_t cmhd_request_header_size(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info ? info->header_size : 0;
}

#include <sys/epoll.h>
#include <sys/eventfd.h>

// struct epoll_event is packed on x86-64 and its data a union: the front door registers descriptors and reads
// events through these instead.
static inline int cmhd_epoll_add(int epoll, int fd, uint32_t events) {
    struct epoll_event event = { .events = events, .data.fd = fd };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

// Waits like epoll_wait; the ready descriptors and their events go to `fds` and `events` (`capacity` each).
static inline int cmhd_epoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[64];
    int count = epoll_wait(epoll, ready, capacity < 64 ? capacity : 64, timeout);
    for (int i = 0; i < count; i++) {
        fds[i] = ready[i].data.fd;
        events[i] = ready[i].events;
    }
    return count;
}
