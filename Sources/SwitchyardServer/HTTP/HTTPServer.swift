import CMicroHTTPD
import Foundation
import Sockets
import Synchronization

/// The HTTP/1.1 server of `switchyard serve`: libmicrohttpd with a few threads (two per core), each serving
/// its share of the connections through epoll. A request's `Router` handler starts on the thread that read the
/// request; one that waits on something elsewhere has its connection suspended meanwhile, so slow handlers never
/// hold up the others (see `RequestExecution`). Bodies larger than
/// `maximumBodySize` get 413 without being read into memory. Connections are bounded per peer and in total, and
/// clients holding connections open without asking anything give way to new ones (see `ConnectionAdmission`).
/// Heads the server cannot take are answered with JSON errors, not libmicrohttpd's HTML (see `FrontDoor`).
///
/// ```swift
/// let server = try HTTPServer(configuration: .init(host: "127.0.0.1", port: 9090), router: router)
/// print("listening on \(server.baseURL)")
/// await server.stop()
/// ```
package final class HTTPServer: Sendable {
    package struct Configuration: Sendable {
        package var host: String
        /// 0 picks a free port (read it back from `port`).
        package var port: UInt16
        package var maximumBodySize: Int
        /// Seconds a connection, a request or an answer may go without a byte moving. A connection idle this long
        /// (from when it opened or its last answer went out until its next request's head has arrived) while
        /// trickling bytes closes as the next connection arrives; a connection whose first request's head has not
        /// arrived within it closes then.
        package var idleTimeout: Int
        /// Connections open at once. A new one beyond this closes the connection idle longest; it is refused
        /// only when every connection is busy with a request.
        package var maximumConnections: Int
        /// Connections open at once from one address (one IPv6 /64), with the same rule. Every client on this machine shares
        /// 127.0.0.1, so it leaves room for a developer's and a test's clients; it bounds a remote peer.
        package var maximumConnectionsPerPeer: Int
        /// Threads reading requests and running handlers until they wait. Two per core (at least 4) served as
        /// many requests as one per core, and a handler that computes for long without waiting (a slow query,
        /// a function that never awaits) holds up a smaller share of the connections.
        package var threads: Int

        package init(
            host: String = "127.0.0.1", port: UInt16 = 9090, maximumBodySize: Int = 18 * 1024 * 1024,
            idleTimeout: Int = 60, maximumConnections: Int = 512, maximumConnectionsPerPeer: Int = 256,
            threads: Int = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
        ) {
            self.host = host
            self.port = port
            self.maximumBodySize = maximumBodySize
            self.idleTimeout = idleTimeout
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerPeer = maximumConnectionsPerPeer
            self.threads = threads
        }
    }

    package let configuration: Configuration
    /// The port it listens on (the one picked when the configuration said 0).
    package let port: UInt16
    let shared: ServerShared
    // Written once in init and only handed back to libmicrohttpd, whose daemon calls are thread-safe.
    nonisolated(unsafe) private let daemon: OpaquePointer
    private let frontDoor: FrontDoor
    private let stopped = Atomic(false)

    /// `http://host:port`, with IPv6 hosts in brackets.
    package var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }

    /// Starts listening at once.
    /// - Throws: `HTTPServerError` when the host does not resolve or the port cannot be bound.
    package init(configuration: Configuration = Configuration(), router: Router) throws(HTTPServerError) {
        self.configuration = configuration
        let shared = ServerShared(
            router: router, maximumBodySize: configuration.maximumBodySize,
            connectionLimits: ConnectionAdmission.Limits(
                total: max(1, configuration.maximumConnections),
                perPeer: max(1, configuration.maximumConnectionsPerPeer),
                idleTimeout: .seconds(max(1, configuration.idleTimeout))),
            headLimits: Self.headLimits)
        self.shared = shared
        let listening: ListeningSocket
        do {
            listening = try ListeningSocket(host: configuration.host, port: configuration.port, nonBlocking: true)
        } catch  where error.reason == .cannotResolve {
            throw HTTPServerError(message: error.message)
        } catch {
            throw HTTPServerError(
                message:
                    "cannot listen on \(configuration.host):\(configuration.port) (in use, or not an address of this machine)"
            )
        }
        // The front door accepts, and adds the connections it lets through (an inter-thread channel wakes the
        // thread that takes one).
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue | MHD_USE_ITC.rawValue
        let sharedPointer = Unmanaged.passUnretained(shared).toOpaque()
        // Pointers travel through the va_list as pointer-sized integers.
        let options: [CVarArg] = [
            MHD_OPTION.NOTIFY_COMPLETED.rawValue,
            Int(bitPattern: unsafeBitCast(ServerShared.completed, to: UnsafeRawPointer.self)),
            Int(bitPattern: sharedPointer),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue,
            Int(bitPattern: unsafeBitCast(ServerShared.connectionChanged, to: UnsafeRawPointer.self)),
            Int(bitPattern: sharedPointer),
            MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(max(1, configuration.idleTimeout)),
            MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(clamping: Self.hardConnectionLimit(configuration)),
            MHD_OPTION.THREAD_POOL_SIZE.rawValue, UInt32(clamping: max(1, configuration.threads)),
            MHD_OPTION.CONNECTION_MEMORY_LIMIT.rawValue, Self.connectionMemory,
            MHD_OPTION.END.rawValue,
        ]
        let daemon = withVaList(options) { list in
            MHD_start_daemon_va(flags, 0, nil, nil, ServerShared.access, sharedPointer, list)
        }
        guard let daemon else {
            close(listening.socket)
            throw HTTPServerError(message: "cannot start serving on \(configuration.host):\(listening.port)")
        }
        self.daemon = daemon
        port = listening.port
        frontDoor = FrontDoor(
            listener: listening.socket, daemon: daemon, shared: shared, limits: Self.headLimits,
            headTimeout: .seconds(max(1, configuration.idleTimeout)))
    }

    /// libmicrohttpd's own limit, above `maximumConnections`: a connection that makes room by closing an idle one
    /// arrives before the closed one is gone, and libmicrohttpd shares its limit out among its threads.
    static func hardConnectionLimit(_ configuration: Configuration) -> Int {
        let limit = max(1, configuration.maximumConnections)
        return limit + max(64, limit / 4, 8 * max(1, configuration.threads))
    }

    /// Each connection's memory for a request's header block and read buffer (bodies stream through it).
    /// libmicrohttpd zeroes all of it before every request on a kept-alive connection: its default 32 KB cost a
    /// served call more than routing it, and 16 KB still takes `headLimits` with room to spare (a head of 8 KB,
    /// as nginx takes, and the records of its fields).
    static let connectionMemory = 16 * 1024

    /// The heads `FrontDoor` lets through, and the request handler holds kept-alive connections' later ones to.
    static let headLimits = RequestHead.Limits()

    /// Dropped without `stop()`: stopped in the background rather than blocking whichever thread let it go.
    deinit {
        if !stopped.load(ordering: .acquiring) { Self.stop(daemon, frontDoor, shared, grace: Self.stopGrace) {} }
    }

    /// How long a stop waits, by default, for requests in progress to be answered.
    package static let stopGrace: Duration = .seconds(2)

    /// Stops accepting, ends open event streams, lets requests in progress be answered (for up to `grace`; the
    /// connections of handlers still waiting after that close unanswered) and returns once the server's threads
    /// have finished. The waiting happens on a thread of its own: a request still being answered may need
    /// Swift's cooperative pool to finish, so a pool thread blocked here could wait for itself (two servers
    /// stopping at once, on a 2-core machine, left the pool no thread and the whole process stalled). A second
    /// call returns at once.
    package func stop(grace: Duration = stopGrace) async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await withCheckedContinuation { continuation in
            Self.stop(daemon, frontDoor, shared, grace: grace) { continuation.resume() }
        }
    }

    private static func stop(
        _ daemon: OpaquePointer, _ frontDoor: FrontDoor, _ shared: ServerShared, grace: Duration,
        then done: @escaping @Sendable () -> Void
    ) {
        // The daemon pointer is only handed back to libmicrohttpd, whose stop is called once (guarded by `stopped`).
        nonisolated(unsafe) let daemon = daemon
        let thread = Thread {
            // No new connections, and the listening socket closed: the port is free again.
            frontDoor.stop()
            shared.finishStreams()
            // Let requests in progress be answered, and streams send what they still hold, for a while.
            let deadline = ContinuousClock.now + grace
            while shared.isBusy, ContinuousClock.now < deadline { usleep(2_000) }
            // libmicrohttpd cannot stop with connections suspended.
            shared.abandonSuspended()
            MHD_stop_daemon(daemon)
            done()
        }
        thread.name = "switchyard-http-stop"
        thread.start()
    }
}

/// The server could not start.
package struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
