import CMicroHTTPD
import Foundation
import Sockets
import Synchronization

/// What libmicrohttpd's C callbacks reach through their user pointer (they cannot capture): the router,
/// the body limit, the event streams still open (so stopping can end them) and the requests in progress (so
/// stopping can let them finish, and close the connections of those still waiting after a while).
final class ServerShared: Sendable {
    let router: Router
    let maximumBodySize: Int
    let admission: ConnectionAdmission
    /// Connections `FrontDoor` is handing to libmicrohttpd, by socket, until libmicrohttpd reports them started.
    private let handOvers = Mutex([Int32: ConnectionAdmission.Connection]())
    /// What `FrontDoor` lets through: a later request of a kept-alive connection is held to the same limits.
    let headLimits: RequestHead.Limits
    private let open = Mutex(OpenWork())
    /// Requests begun and not yet completed (answered and sent, or abandoned).
    private let requestsInProgress = Atomic(0)

    private struct OpenWork {
        var streams: [ObjectIdentifier: EventStream] = [:]
        /// Requests whose connection had to wait for their handler, until they end.
        var suspended: [ObjectIdentifier: RequestExecution] = [:]
        /// Set by `finishStreams`: a stream answered after that ends at once.
        var stoppingStreams = false
        /// Set by `abandonSuspended`: a handler that would wait closes its connection instead.
        var stoppingRequests = false
    }

    init(
        router: Router, maximumBodySize: Int, connectionLimits: ConnectionAdmission.Limits,
        headLimits: RequestHead.Limits
    ) {
        self.router = router
        self.maximumBodySize = maximumBodySize
        self.headLimits = headLimits
        admission = ConnectionAdmission(limits: connectionLimits)
    }

    func finishStreams() {
        let streams = open.withLock { open in
            open.stoppingStreams = true
            return Array(open.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    /// Resumes the connections still waiting for a handler, which then close unanswered.
    func abandonSuspended() {
        let suspended = open.withLock { open in
            open.stoppingRequests = true
            defer { open.suspended = [:] }
            return Array(open.suspended.values)
        }
        for execution in suspended { execution.abandon() }
    }

    /// Whether an event stream is open or a request is still being answered.
    var isBusy: Bool {
        requestsInProgress.load(ordering: .acquiring) > 0 || open.withLock { !$0.streams.isEmpty }
    }

    /// False once the server is stopping (the request is refused instead).
    func noteSuspended(_ execution: RequestExecution) -> Bool {
        open.withLock { open in
            guard !open.stoppingRequests else { return false }
            open.suspended[ObjectIdentifier(execution)] = execution
            return true
        }
    }

    func noteEnded(_ execution: RequestExecution) {
        open.withLock { _ = $0.suspended.removeValue(forKey: ObjectIdentifier(execution)) }
    }

    /// `FrontDoor` hands `connection` to libmicrohttpd next: its record goes with it.
    func expectHandOver(_ connection: ConnectionAdmission.Connection) {
        handOvers.withLock { $0[connection.socket] = connection }
    }

    /// libmicrohttpd refused the connection `expectHandOver` announced.
    func cancelHandOver(_ connection: ConnectionAdmission.Connection) {
        _ = handOvers.withLock { $0.removeValue(forKey: connection.socket) }
    }

    /// A connection opened or closed: its `ConnectionAdmission.Connection` hangs on its socket context meanwhile.
    static let connectionChanged: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls, let connection, let socketContext else { return }
        let shared = Unmanaged<ServerShared>.fromOpaque(cls).takeUnretainedValue()
        let admission = shared.admission
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            // Opened at the door, which admitted it.
            let socket = cmhd_connection_socket(connection)
            guard let opened = shared.handOvers.withLock({ $0.removeValue(forKey: socket) }) else { return }
            socketContext.pointee = Unmanaged.passRetained(opened).toOpaque()
        case .CONNECTION_NOTIFY_CLOSED:
            guard let pointer = socketContext.pointee else { return }
            socketContext.pointee = nil
            admission.closed(Unmanaged<ConnectionAdmission.Connection>.fromOpaque(pointer).takeRetainedValue())
        default:
            break
        }
    }

    /// The admission record of the connection, borrowed (the connection holds it until it closes).
    private static func admitted(_ connection: OpaquePointer) -> ConnectionAdmission.Connection? {
        cmhd_socket_context(connection).map {
            Unmanaged<ConnectionAdmission.Connection>.fromOpaque($0).takeUnretainedValue()
        }
    }

    /// Called once for the headers, once per body chunk and once at the end of each request (and again whenever
    /// a suspended request's connection is resumed).
    static let access: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, uploadData, uploadSize, requestContext in
        guard let cls, let connection, let url, let method, let uploadSize, let requestContext else {
            return MHD_Result.NO
        }
        // Borrowed, not retained: the server outlives its callbacks, and every thread would count the one object.
        return Unmanaged<ServerShared>.fromOpaque(cls)._withUnsafeGuaranteedRef {
            $0.access(
                connection, url: url, method: method, uploadData: uploadData, uploadSize: uploadSize,
                requestContext: requestContext)
        }
    }

    private func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = requestContext.pointee else {
            // A request needs no state of its own until its body arrives or its route is found: a marker notes the
            // headers (404s, 405s and refusals are answered without any).
            requestContext.pointee = PendingRequest.headersRead
            requestsInProgress.add(1, ordering: .relaxed)
            Self.admitted(connection)?.beginRequest()
            // A kept-alive connection's later request did not pass `FrontDoor`: it is held to the same limits here.
            let headSize = cmhd_request_header_size(connection)
            if headSize > headLimits.head {
                var response = Self.headRefusal(connection, size: headSize, limits: headLimits).response
                response.headers.append(("Connection", "close"))
                return queue(response, on: connection)
            }
            if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "content-length"),
                let length = Int(String(cString: length)), length > maximumBodySize
            {
                PendingRequest.attach(to: requestContext).tooLarge = true
            }
            // A body in a transfer coding that does not end with chunked has no length to read by (RFC 9112 6.1):
            // libmicrohttpd would wait for the client to close, so it is refused before any of it is read.
            if let coding = MHD_lookup_connection_value(connection, .HEADER_KIND, "transfer-encoding"),
                !Self.endsChunked(String(cString: coding))
            {
                return queue(
                    APIError.badRequest(
                        "a request body may only be sent with Content-Length or Transfer-Encoding: chunked"
                    ).response, on: connection)
            }
            return MHD_Result.YES
        }
        let pending = existing == PendingRequest.headersRead ? nil : PendingRequest.attached(existing)
        if uploadSize.pointee > 0 {
            let pending = pending ?? PendingRequest.attach(to: requestContext)
            if !pending.tooLarge, let uploadData {
                if pending.body.count + uploadSize.pointee > maximumBodySize {
                    pending.tooLarge = true
                    pending.body = []
                } else {
                    pending.body.append(
                        contentsOf: UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let execution = pending?.execution {
            // Resumed: the handler has its answer, or the server is stopping.
            return answer(execution.run(), on: connection)
        }
        if pending?.tooLarge == true {
            return queue(APIError.payloadTooLarge(limit: maximumBodySize).response, on: connection)
        }
        let request = ServerRequest(
            method: String(cString: method), path: String(cString: url),
            query: Self.query(connection), headers: Self.headers(connection), body: pending?.body ?? [],
            peer: PeerAddress(of: connection))
        switch router.route(request) {
        case .answered(let response):
            return queue(response, on: connection)
        case .handler(let handler, let parameters):
            let execution = RequestExecution(
                connection: connection, shared: self, request: request, handler: handler, parameters: parameters)
            (pending ?? PendingRequest.attach(to: requestContext)).execution = execution
            return answer(execution.start(), on: connection)
        }
    }

    /// 414 when the request line of a head of `size` bytes is over the limit (the head less its header fields, each
    /// with `: ` and CR LF, and the empty line), 431 otherwise.
    private static func headRefusal(_ connection: OpaquePointer, size: Int, limits: RequestHead.Limits) -> APIError {
        var fieldBytes = 2
        withUnsafeMutablePointer(to: &fieldBytes) { total in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND,
                { total, _, _, keySize, value, valueSize in
                    total?.assumingMemoryBound(to: Int.self).pointee += keySize + (value == nil ? 0 : valueSize) + 4
                    return MHD_Result.YES
                }, total)
        }
        return size - fieldBytes > limits.requestLine + 2
            ? .uriTooLong(limit: limits.requestLine) : .headersTooLarge(limit: limits.head)
    }

    /// Whether a `Transfer-Encoding` value's last coding is chunked, the only framing a request can end by.
    static func endsChunked(_ codings: String) -> Bool {
        let last = codings.split(separator: ",").last.map { $0.filter { $0 != " " && $0 != "\t" } } ?? ""
        return last.lowercased() == "chunked"
    }

    static let completed: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
        guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
        requestContext.pointee = nil
        if let connection { ServerShared.admitted(connection)?.endRequest() }
        Unmanaged<ServerShared>.fromOpaque(cls)._withUnsafeGuaranteedRef {
            _ = $0.requestsInProgress.subtract(1, ordering: .releasing)
        }
        guard pointer != PendingRequest.headersRead else { return }
        let pending = Unmanaged<PendingRequest>.fromOpaque(pointer).takeRetainedValue()
        pending.execution?.end()
    }

    private func answer(_ outcome: RequestExecution.Outcome, on connection: OpaquePointer) -> MHD_Result {
        switch outcome {
        case .answered(let response): queue(response, on: connection)
        case .suspended: MHD_Result.YES
        case .refused: MHD_Result.NO
        }
    }

    private func queue(_ response: ServerResponse, on connection: OpaquePointer) -> MHD_Result {
        let created: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            created = bytes.withUnsafeBytes {
                MHD_create_response_from_buffer(
                    $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .events(let stream):
            let stopping = open.withLock { open in
                if !open.stoppingStreams { open.streams[ObjectIdentifier(stream)] = stream }
                return open.stoppingStreams
            }
            if stopping { stream.finish() }
            let box = StreamBox(stream: stream, shared: self, connection: connection)
            created = MHD_create_response_from_callback(
                UInt64.max, 4096, Self.readEvents, Unmanaged.passRetained(box).toOpaque(), Self.releaseEvents)
        case .connectionReset:
            // Refusing the request makes libmicrohttpd close the connection; linger 0 turns the close into a reset.
            _ = cmhd_reset_on_close(connection)
            return MHD_Result.NO
        }
        guard let created else { return MHD_Result.NO }
        defer { MHD_destroy_response(created) }
        for header in response.headers {
            // Explicit: the implicit conversion copies every short (inline) string to the heap first.
            header.name.withCString { name in
                _ = header.value.withCString { value in MHD_add_response_header(created, name, value) }
            }
        }
        return MHD_queue_response(connection, UInt32(clamping: response.status), created)
    }

    /// Never waits: with nothing to write, the connection is suspended until the stream wakes it.
    private static let readEvents: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
        guard let cls, let buffer else { return -2 }
        let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
        let connection = box.connection
        switch box.stream.next(
            capacity: capacity, suspend: { MHD_suspend_connection(connection.pointer) }, wake: box.wake)
        {
        case .bytes(let chunk):
            chunk.withUnsafeBytes {
                UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            return chunk.count
        case .waiting: return 0
        case .ended: return -1
        }
    }

    /// The client left or the stream ended: the stream is finished either way.
    private static let releaseEvents: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
        box.stream.finish()
        box.shared.open.withLock { _ = $0.streams.removeValue(forKey: ObjectIdentifier(box.stream)) }
    }

    /// Query arguments; the last one wins when a name repeats.
    private static func query(_ connection: OpaquePointer) -> [String: String] {
        // Counted first (no iterator) so the dictionary is made once at its size, not regrown argument by argument.
        let count = Int(MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil))
        guard count > 0 else { return [:] }
        var query = [String: String](minimumCapacity: count)
        // On the stack: the iterator returns before this does.
        withUnsafeMutablePointer(to: &query) { pointer in
            _ = MHD_get_connection_values(
                connection, .GET_ARGUMENT_KIND,
                { cls, _, key, value in
                    guard let cls, let key else { return MHD_Result.YES }
                    cls.assumingMemoryBound(to: [String: String].self).pointee[String(cString: key)] =
                        value.map { String(cString: $0) } ?? ""
                    return MHD_Result.YES
                }, pointer)
        }
        return query
    }

    /// The request's headers, measured first so that one allocation of the exact size holds them (libmicrohttpd's
    /// walk over its list costs less than growing an array).
    private static func headers(_ connection: OpaquePointer) -> RequestHeaders {
        var size = HeaderSize()
        withUnsafeMutablePointer(to: &size) { size in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND,
                { size, _, _, keySize, value, valueSize in
                    size?.assumingMemoryBound(to: HeaderSize.self).pointee.add(keySize + (value == nil ? 0 : valueSize))
                    return MHD_Result.YES
                }, size)
        }
        return RequestHeaders(count: size.count, byteCount: size.bytes) { collector in
            withUnsafeMutablePointer(to: &collector) { collector in
                _ = MHD_get_connection_values_n(
                    connection, .HEADER_KIND,
                    { collector, _, key, keySize, value, valueSize in
                        guard let collector, let key else { return MHD_Result.YES }
                        collector.assumingMemoryBound(to: RequestHeaders.Collector.self).pointee.add(
                            name: UnsafeRawBufferPointer(start: key, count: keySize),
                            value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
                        return MHD_Result.YES
                    }, collector)
            }
        }
    }

    private struct HeaderSize {
        var count = 0
        var bytes = 0

        mutating func add(_ bytes: Int) {
            count += 1
            self.bytes += bytes
        }
    }
}

/// One request's body as it arrives and its handler while it runs, behind libmicrohttpd's per-request pointer
/// (made only for requests with a body or a route); used by the connection's thread only.
private final class PendingRequest {
    var body: [UInt8] = []
    var tooLarge = false
    /// Set when the handler runs: a resumed connection collects its answer here.
    var execution: RequestExecution?

    /// The per-request pointer of a request that has none of this state (not a valid address).
    static var headersRead: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    /// Makes the state and hangs it on the per-request pointer, which `ServerShared.completed` releases.
    static func attach(to context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> PendingRequest {
        let pending = PendingRequest()
        context.pointee = Unmanaged.passRetained(pending).toOpaque()
        return pending
    }

    static func attached(_ pointer: UnsafeMutableRawPointer) -> PendingRequest {
        Unmanaged<PendingRequest>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// An event stream, its server and connection, behind the content reader's user pointer.
private final class StreamBox {
    let stream: EventStream
    let shared: ServerShared
    let connection: ConnectionHandle
    /// Resumes the connection the stream suspended.
    let wake: @Sendable () -> Void

    init(stream: EventStream, shared: ServerShared, connection: OpaquePointer) {
        self.stream = stream
        self.shared = shared
        let handle = ConnectionHandle(pointer: connection)
        self.connection = handle
        wake = { MHD_resume_connection(handle.pointer) }
    }
}

/// A libmicrohttpd connection, to resume from another thread. Safe to send: libmicrohttpd's suspend and resume
/// calls are thread-safe, and the stream calls `wake` only while the connection is suspended (so still open).
private struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
