import BSON
import CMicroHTTPD
import Foundation
import Synchronization

/// A libmicrohttpd server on an ephemeral port, one thread per connection, for tests of HTTP clients
/// (the Messaging HTTP client, functions' `context.services.http`).
///
/// Paths: `/echo` answers a JSON document with the request's method, path, headers (names lower-cased) and
/// body; `/raw` answers the request body as it came; `/redirect` answers 302 to `/echo`; `/gate` counts the
/// request in `arrivals` and holds it until `openGate()`. Any path takes `?status=N` and `?delay=MS`.
public final class TestHTTPServer: Sendable {
    public let state = ServerState()
    // Written once in init and only passed back to libmicrohttpd; the daemon itself is thread-safe.
    nonisolated(unsafe) private let daemon: OpaquePointer
    public let port: UInt16

    public var url: String { "http://127.0.0.1:\(port)" }

    public init() throws {
        // MHD_USE_AUTO picks poll(): select() drops connections whose descriptor is past 1024, which a test
        // process running the whole suite reaches.
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_AUTO.rawValue
        let statePointer = Unmanaged.passUnretained(state).toOpaque()
        let completed: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
            guard let requestContext, let body = requestContext.pointee else { return }
            Unmanaged<RequestBody>.fromOpaque(body).release()
            requestContext.pointee = nil
        }
        let connection: MHD_NotifyConnectionCallback = { cls, _, _, code in
            // MHD_CONNECTION_NOTIFY_STARTED is 0; the enum imports without usable case names.
            guard let cls, code.rawValue == 0 else { return }
            Unmanaged<ServerState>.fromOpaque(cls).takeUnretainedValue().connections.add(1, ordering: .relaxed)
        }
        // Pointers travel through the va_list as pointer-sized integers.
        let options: [CVarArg] = [
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, Int(bitPattern: unsafeBitCast(completed, to: UnsafeRawPointer.self)),
            Int(bitPattern: statePointer),
            MHD_OPTION.NOTIFY_CONNECTION.rawValue,
            Int(bitPattern: unsafeBitCast(connection, to: UnsafeRawPointer.self)), Int(bitPattern: statePointer),
            MHD_OPTION.END.rawValue,
        ]
        guard
            let daemon = withVaList(
                options,
                { list in
                    MHD_start_daemon_va(flags, 0, nil, nil, Self.handler, statePointer, list)
                })
        else { throw ServerError() }
        self.daemon = daemon
        port = cmhd_daemon_port(daemon)
    }

    deinit {
        state.gateOpen.store(true, ordering: .releasing)
        MHD_stop_daemon(daemon)
    }

    public func openGate() { state.gateOpen.store(true, ordering: .releasing) }

    private struct ServerError: Error {}

    private static let handler: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, uploadData, uploadSize, requestContext in
        guard let cls, let connection, let url, let method, let uploadSize, let requestContext else {
            return MHD_Result.NO
        }
        let state = Unmanaged<ServerState>.fromOpaque(cls).takeUnretainedValue()
        guard let existing = requestContext.pointee else {
            // First call: only the headers have arrived.
            requestContext.pointee = Unmanaged.passRetained(RequestBody()).toOpaque()
            return MHD_Result.YES
        }
        let request = Unmanaged<RequestBody>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let uploadData {
                request.bytes.append(
                    contentsOf: UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        return state.respond(
            connection: connection, path: String(cString: url), method: String(cString: method), body: request.bytes)
    }
}

/// Per-request upload buffer, kept behind libmicrohttpd's request context pointer.
private final class RequestBody {
    var bytes: [UInt8] = []
}

/// What the server's C callbacks share with the test.
public final class ServerState: Sendable {
    public let arrivals = Atomic(0)
    public let connections = Atomic(0)
    public let gateOpen = Atomic(false)

    func respond(connection: OpaquePointer, path: String, method: String, body: [UInt8]) -> MHD_Result {
        let status = argument(connection, "status").flatMap { UInt32($0) } ?? 200
        if let delay = argument(connection, "delay").flatMap({ UInt32($0) }) { usleep(delay * 1000) }
        var headers: [(String, String)] = []
        let responseBody: [UInt8]
        switch path {
        case "/raw":
            responseBody = body
            headers.append(("Content-Type", "application/octet-stream"))
        case "/redirect":
            responseBody = []
            return queue(connection, 302, [], headers: [("Location", "/echo")])
        case "/gate":
            arrivals.add(1, ordering: .relaxed)
            while !gateOpen.load(ordering: .acquiring) { usleep(1000) }
            responseBody = Array("passed".utf8)
        default:
            var document: BSONDocument = [
                "method": .string(method), "path": .string(path), "headers": .document(requestHeaders(connection)),
                "body": .string(String(decoding: body, as: UTF8.self)),
            ]
            document.append("bodyLength", .int64(Int64(body.count)))
            responseBody = document.extendedJSONBytes(mode: .relaxed)
            headers.append(("content-TYPE", "application/json; charset=utf-8"))
            headers.append(("X-Echo", "one"))
            headers.append(("x-echo", "two"))
        }
        return queue(connection, status, responseBody, headers: headers)
    }

    private func queue(
        _ connection: OpaquePointer, _ status: UInt32, _ body: [UInt8], headers: [(String, String)]
    ) -> MHD_Result {
        let response = body.withUnsafeBytes {
            MHD_create_response_from_buffer(
                $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
        defer { MHD_destroy_response(response) }
        for (name, value) in headers { MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, status, response)
    }

    private func argument(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .GET_ARGUMENT_KIND, name).map { String(cString: $0) }
    }

    private func requestHeaders(_ connection: OpaquePointer) -> BSONDocument {
        let collected = HeaderCollector()
        MHD_get_connection_values(
            connection, .HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let collector = Unmanaged<HeaderCollector>.fromOpaque(cls).takeUnretainedValue()
                collector.document.append(
                    String(cString: key).lowercased(), .string(value.map { String(cString: $0) } ?? ""))
                return MHD_Result.YES
            }, Unmanaged.passUnretained(collected).toOpaque())
        return collected.document
    }
}

/// The header iterator's sink, reached through its `cls` pointer (C callbacks cannot capture).
private final class HeaderCollector {
    var document = BSONDocument()
}

/// A loopback port nobody listens on: bound, read back, closed.
public func closedLoopbackPort() -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            _ = bind(fd, pointer, length)
            return getsockname(fd, pointer, &length)
        }
    }
    return UInt16(bigEndian: address.sin_port)
}
