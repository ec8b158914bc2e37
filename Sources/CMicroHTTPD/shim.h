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
