import BSON
import CMicroHTTPD
import Foundation
import Synchronization

/// A loopback HTTP/1.1 server (libmicrohttpd, one thread per connection) that answers from a script and records
/// every request, for tests of clients that must react to particular answers: FCM's error bodies, `Retry-After`,
/// an OAuth token endpoint.
///
/// Each path has a queue of canned responses, used once each in order, then its fallback (`setFallback`), then
/// the server-wide `responder`; anything else is a 404.
public final class ScriptedHTTPServer: Sendable {
    /// One scripted answer.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Held this long before answering (the request counts as in flight meanwhile).
        public var delay: Duration

        public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], delay: Duration = .zero) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
        }

        /// A JSON body (given as its text) with `Content-Type: application/json`.
        public static func json(
            _ status: Int = 200, _ text: String, headers: [(String, String)] = [], delay: Duration = .zero
        ) -> Response {
            Response(
                status: status, headers: [("Content-Type", "application/json; charset=UTF-8")] + headers,
                body: Array(text.utf8), delay: delay)
        }
    }

    /// A request as it arrived: header names lower-cased.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: [UInt8]

        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as a JSON object, when it is one.
        public var json: BSONDocument? { try? ExtendedJSON.parseDocument(body) }
    }

    private let box: ScriptBox
    // Written once in init and only passed back to libmicrohttpd; the daemon itself is thread-safe.
    nonisolated(unsafe) private let daemon: OpaquePointer
    public let port: UInt16

    public var url: String { "http://127.0.0.1:\(port)" }

    /// - Parameter responder: answers what no queue or fallback does (nil: 404).
    public init(responder: @escaping @Sendable (Request) -> Response? = { _ in nil }) throws {
        let box = ScriptBox(responder: responder)
        self.box = box
        // MHD_USE_AUTO picks poll(): select() drops connections whose descriptor is past 1024, which a test
        // process running the whole suite reaches.
        let flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_AUTO.rawValue
        let boxPointer = Unmanaged.passUnretained(box).toOpaque()
        let completed: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
            guard let requestContext, let body = requestContext.pointee else { return }
            Unmanaged<UploadBuffer>.fromOpaque(body).release()
            requestContext.pointee = nil
        }
        let options: [CVarArg] = [
            MHD_OPTION.NOTIFY_COMPLETED.rawValue, Int(bitPattern: unsafeBitCast(completed, to: UnsafeRawPointer.self)),
            Int(bitPattern: boxPointer), MHD_OPTION.END.rawValue,
        ]
        guard
            let daemon = withVaList(
                options, { MHD_start_daemon_va(flags, 0, nil, nil, Self.handler, boxPointer, $0) })
        else { throw ScriptedServerError() }
        self.daemon = daemon
        port = cmhd_daemon_port(daemon)
    }

    deinit { MHD_stop_daemon(daemon) }

    /// Answers the next request to `path` with `response` (after those queued before it).
    public func enqueue(_ response: Response, for path: String) {
        box.script.withLock { $0.queued[path, default: []].append(response) }
    }

    /// Answers requests to `path` with `response` once its queue is empty.
    public func setFallback(_ response: Response, for path: String) {
        box.script.withLock { $0.fallbacks[path] = response }
    }

    /// Every request so far, in order of arrival.
    public var requests: [Request] { box.script.withLock { $0.requests } }

    /// The requests to `path`.
    public func requests(to path: String) -> [Request] { requests.filter { $0.path == path } }

    /// The most requests that were being answered at the same moment.
    public var maximumInFlight: Int { box.script.withLock { $0.maximumInFlight } }

    private struct ScriptedServerError: Error {}

    private static let handler: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, uploadData, uploadSize, requestContext in
        guard let cls, let connection, let url, let method, let uploadSize, let requestContext else {
            return MHD_Result.NO
        }
        guard let existing = requestContext.pointee else {
            requestContext.pointee = Unmanaged.passRetained(UploadBuffer()).toOpaque()
            return MHD_Result.YES
        }
        let upload = Unmanaged<UploadBuffer>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if let uploadData {
                upload.bytes.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        let box = Unmanaged<ScriptBox>.fromOpaque(cls).takeUnretainedValue()
        let response = box.answer(
            method: String(cString: method), path: String(cString: url),
            headers: ScriptedHTTPServer.headers(connection),
            body: upload.bytes)
        let reply = response.body.withUnsafeBytes {
            MHD_create_response_from_buffer(
                $0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
        }
        defer { MHD_destroy_response(reply) }
        for (name, value) in response.headers { MHD_add_response_header(reply, name, value) }
        return MHD_queue_response(connection, UInt32(response.status), reply)
    }

    private static func headers(_ connection: OpaquePointer) -> [String: String] {
        let collector = HeaderBox()
        MHD_get_connection_values(
            connection, .HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let box = Unmanaged<HeaderBox>.fromOpaque(cls).takeUnretainedValue()
                box.headers[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
                return MHD_Result.YES
            }, Unmanaged.passUnretained(collector).toOpaque())
        return collector.headers
    }
}

private struct Script {
    var queued: [String: [ScriptedHTTPServer.Response]] = [:]
    var fallbacks: [String: ScriptedHTTPServer.Response] = [:]
    var requests: [ScriptedHTTPServer.Request] = []
    var inFlight = 0
    var maximumInFlight = 0
}

/// The script and the record, which the C handler reaches through its `cls` pointer.
private final class ScriptBox: Sendable {
    typealias Response = ScriptedHTTPServer.Response
    typealias Request = ScriptedHTTPServer.Request
    let script = Mutex(Script())
    let responder: @Sendable (Request) -> Response?

    init(responder: @escaping @Sendable (Request) -> Response?) { self.responder = responder }

    func answer(method: String, path: String, headers: [String: String], body: [UInt8]) -> Response {
        let request = Request(method: method, path: path, headers: headers, body: body)
        let scripted = script.withLock { script -> Response? in
            script.requests.append(request)
            script.inFlight += 1
            script.maximumInFlight = max(script.maximumInFlight, script.inFlight)
            if var queue = script.queued[path], !queue.isEmpty {
                let first = queue.removeFirst()
                script.queued[path] = queue
                return first
            }
            return script.fallbacks[path]
        }
        let response =
            scripted ?? responder(request) ?? Response(status: 404, body: Array("no script for \(path)".utf8))
        if response.delay > .zero {
            let (seconds, attoseconds) = response.delay.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
        script.withLock { $0.inFlight -= 1 }
        return response
    }

}

/// Per-request upload buffer behind libmicrohttpd's request context pointer.
private final class UploadBuffer {
    var bytes: [UInt8] = []
}

/// The header iterator's sink, reached through its `cls` pointer (C callbacks cannot capture).
private final class HeaderBox {
    var headers: [String: String] = [:]
}
