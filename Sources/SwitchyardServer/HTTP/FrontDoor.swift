import CMicroHTTPD
import Foundation
import Sockets
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Accepts the server's connections and looks at the head of each one's first request before libmicrohttpd gets
/// the connection: libmicrohttpd answers a head it cannot take (a request line or header block over its memory, a
/// malformed line, an HTTP version other than 1.x) with compiled-in HTML pages that no callback can change. The
/// door reads the head without consuming it (`MSG_PEEK`) as it arrives, answers what `RequestHead` refuses with
/// the App Services error shape and `Connection: close`, and hands the rest to libmicrohttpd
/// (`MHD_add_connection`), which reads the same bytes again.
///
/// Only the first request passes the door: a kept-alive connection's later requests go to libmicrohttpd directly.
/// Its memory per connection holds heads well over `RequestHead.Limits`, and the request handler answers a later
/// head over those limits with the same JSON errors (see `ServerShared`), so a later request gets libmicrohttpd's
/// HTML only when its head is over libmicrohttpd's own, larger limit or malformed. Looking at every request would
/// need the door on every byte (a proxy) or every connection suspended between requests, and a kept-alive
/// connection's request costs little more than its parsing: either would cost served calls a large share.
///
/// Connections waiting at the door count against `ConnectionAdmission`'s limits like any other and are idle
/// until handed over, so they are the first to give way to new ones; a head that has not arrived within the idle
/// timeout closes its connection. One thread serves the door with epoll (edge-triggered: the peeked bytes stay
/// readable, and only new ones wake it).
final class FrontDoor: Sendable {
    private let wake: Int32
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Atomic(false)

    /// Starts accepting on `listener` (which the door owns and closes when stopped) for `daemon`, started with
    /// `MHD_USE_NO_LISTEN_SOCKET`.
    init(
        listener: Int32, daemon: OpaquePointer, shared: ServerShared, limits: RequestHead.Limits, headTimeout: Duration
    ) {
        wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        let loop = Loop(
            listener: listener, wake: wake, daemon: Daemon(pointer: daemon), shared: shared, limits: limits,
            headTimeout: headTimeout)
        let finished = finished
        let thread = Thread {
            loop.run()
            finished.signal()
        }
        thread.name = "switchyard-http-door"
        thread.start()
    }

    /// Stops accepting, closes the connections still at the door and the listening socket, and returns once the
    /// door's thread has ended. A second call returns at once.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
        finished.wait()
        close(wake)
    }

    /// libmicrohttpd's daemon, for the door's thread: its `MHD_add_connection` is thread-safe with internal threads.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// The door's state, on its thread alone.
    private final class Loop: @unchecked Sendable {
        // @unchecked: made on the starting thread, then used only by the door's thread.
        private struct Waiting {
            let connection: ConnectionAdmission.Connection
            var address: sockaddr_storage
            let addressLength: socklen_t
            var deadline: ContinuousClock.Instant
            /// Set once refused: the answer went out, and what the client still sends is read and dropped until it
            /// closes or the deadline passes (closing with unread bytes would reset the connection, and the client
            /// could lose the answer).
            var refused = false
        }

        private let listener: Int32
        private let wake: Int32
        private let epoll: Int32
        private let daemon: Daemon
        private let shared: ServerShared
        private let limits: RequestHead.Limits
        private let headTimeout: Duration
        private var waiting: [Int32: Waiting] = [:]
        private var peeked: [UInt8]
        private var nextSweep = ContinuousClock.now

        /// How long a refused connection is drained before it closes.
        private static let drainTime = Duration.seconds(2)

        init(
            listener: Int32, wake: Int32, daemon: Daemon, shared: ServerShared, limits: RequestHead.Limits,
            headTimeout: Duration
        ) {
            self.listener = listener
            self.wake = wake
            self.daemon = daemon
            self.shared = shared
            self.limits = limits
            self.headTimeout = headTimeout
            epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            peeked = [UInt8](repeating: 0, count: limits.peek)
            _ = cmhd_epoll_add(epoll, listener, EPOLLIN.rawValue)
            _ = cmhd_epoll_add(epoll, wake, EPOLLIN.rawValue)
        }

        func run() {
            var fds = [Int32](repeating: 0, count: 64)
            var events = [UInt32](repeating: 0, count: 64)
            while true {
                let count = cmhd_epoll_wait(epoll, &fds, &events, 64, 250)
                for index in 0..<max(0, Int(count)) {
                    let fd = fds[index]
                    if fd == wake {
                        shutDown()
                        return
                    }
                    if fd == listener { accept() } else { examine(fd, events: events[index]) }
                }
                let now = ContinuousClock.now
                if now >= nextSweep {
                    nextSweep = now + .milliseconds(250)
                    for (fd, entry) in waiting where entry.deadline <= now { drop(fd) }
                }
            }
        }

        private func accept() {
            while true {
                var address = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let fd = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
                }
                guard fd >= 0 else { return }
                // Reads at the door never block (they pass MSG_DONTWAIT); libmicrohttpd makes the socket
                // non-blocking itself when it takes it.
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                let peer = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { PeerAddress(socketAddress: $0) }
                }
                guard shared.admission.admit(peer) else {
                    close(fd)
                    continue
                }
                let connection = ConnectionAdmission.Connection(socket: fd, peer: peer)
                shared.admission.opened(connection)
                waiting[fd] = Waiting(
                    connection: connection, address: address, addressLength: length,
                    deadline: ContinuousClock.now + headTimeout)
                let events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
                if cmhd_epoll_add(epoll, fd, events) != 0 { drop(fd) }
            }
        }

        private func examine(_ fd: Int32, events: UInt32) {
            guard let entry = waiting[fd] else { return }
            if entry.refused {
                drain(fd)
                return
            }
            let capacity = peeked.count
            let count = recv(fd, &peeked, capacity, Int32(MSG_PEEK | MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            guard count > 0 else {
                // The client left, or `ConnectionAdmission` closed the connection to make room.
                drop(fd)
                return
            }
            let verdict = peeked.withUnsafeBytes {
                RequestHead.verdict(UnsafeRawBufferPointer(rebasing: $0[..<count]), limits: limits)
            }
            switch verdict {
            case .complete: handOver(fd)
            case .refused(let error): refuse(fd, with: error)
            case .incomplete:
                // Half-closed before the head ended: the rest will never come.
                if events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { drop(fd) }
            }
        }

        /// libmicrohttpd takes the connection, and its admission record with it (`ServerShared.connectionChanged`).
        private func handOver(_ fd: Int32) {
            guard let entry = waiting.removeValue(forKey: fd) else { return }
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
            shared.expectHandOver(entry.connection)
            var address = entry.address
            let added = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon.pointer, fd, $0, entry.addressLength)
                }
            }
            // Refused, libmicrohttpd has closed the socket already (at its hard limit, or out of memory).
            if added != MHD_Result.YES {
                shared.cancelHandOver(entry.connection)
                shared.admission.closed(entry.connection)
            }
        }

        private func refuse(_ fd: Int32, with error: APIError) {
            let answer = Self.answer(error)
            _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            _ = shutdown(fd, Int32(SHUT_WR))
            waiting[fd]?.refused = true
            if let deadline = waiting[fd]?.deadline {
                waiting[fd]?.deadline = min(deadline, ContinuousClock.now + Self.drainTime)
            }
            drain(fd)
        }

        /// Reads and drops what a refused client still sends; closes once it has closed its side.
        private func drain(_ fd: Int32) {
            while true {
                let count = peeked.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count > 0 { continue }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
                drop(fd)
                return
            }
        }

        /// Closes a connection still at the door.
        private func drop(_ fd: Int32) {
            guard let entry = waiting.removeValue(forKey: fd) else { return }
            // Reported before the descriptor closes, so `ConnectionAdmission` never shuts down a reused one.
            shared.admission.closed(entry.connection)
            close(fd)
        }

        private func shutDown() {
            for fd in Array(waiting.keys) { drop(fd) }
            close(listener)
            close(epoll)
        }

        /// A whole HTTP/1.1 answer with the error's JSON body, closing the connection.
        static func answer(_ error: APIError) -> [UInt8] {
            let response = error.response
            guard case .bytes(let body) = response.body else { return [] }
            var head = "HTTP/1.1 \(error.status) \(reason(error.status))\r\n"
            for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            return Array(head.utf8) + body
        }

        private static func reason(_ status: Int) -> String {
            switch status {
            case 400: "Bad Request"
            case 413: "Content Too Large"
            case 414: "URI Too Long"
            case 431: "Request Header Fields Too Large"
            case 505: "HTTP Version Not Supported"
            default: "Error"
            }
        }
    }
}
