import CMicroHTTPD
import Foundation
import Synchronization

/// What libmicrohttpd's C callbacks reach through their user pointer (they cannot capture): the router,
/// the body limit, the event streams still open (so stopping can end them) and the requests in progress (so
/// stopping can let them finish).
final class ServerShared: Sendable {
    let router: Router
    let maximumBodySize: Int
    private let streams = Mutex(OpenStreams())
    /// Requests begun and not yet completed (answered and sent, or abandoned).
    private let requestsInProgress = Atomic(0)

    private struct OpenStreams {
        var byIdentifier: [ObjectIdentifier: EventStream] = [:]
        /// Set by `finishStreams`: a stream answered after that ends at once.
        var stopping = false
    }

    init(router: Router, maximumBodySize: Int) {
        self.router = router
        self.maximumBodySize = maximumBodySize
    }

    func finishStreams() {
        let open = streams.withLock { streams in
            streams.stopping = true
            return Array(streams.byIdentifier.values)
        }
        for stream in open { stream.finish() }
    }

    /// Whether an event stream is open or a request is still being answered.
    var isBusy: Bool {
        requestsInProgress.load(ordering: .acquiring) > 0 || streams.withLock { !$0.byIdentifier.isEmpty }
    }

    /// Called once for the headers, once per body chunk and once at the end of each request.
    static let access: MHD_AccessHandlerCallback = {
        cls, connection, url, method, _, uploadData, uploadSize, requestContext in
        guard let cls, let connection, let url, let method, let uploadSize, let requestContext else {
            return MHD_Result.NO
        }
        let shared = Unmanaged<ServerShared>.fromOpaque(cls).takeUnretainedValue()
        guard let existing = requestContext.pointee else {
            let pending = PendingRequest()
            shared.requestsInProgress.add(1, ordering: .relaxed)
            if let length = header(connection, "content-length").flatMap({ Int($0) }), length > shared.maximumBodySize {
                pending.tooLarge = true
            }
            requestContext.pointee = Unmanaged.passRetained(pending).toOpaque()
            return MHD_Result.YES
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !pending.tooLarge, let uploadData {
                if pending.body.count + uploadSize.pointee > shared.maximumBodySize {
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
        if pending.tooLarge {
            return shared.queue(APIError.payloadTooLarge(limit: shared.maximumBodySize).response, on: connection)
        }
        let request = ServerRequest(
            method: String(cString: method), path: String(cString: url),
            query: values(connection, .GET_ARGUMENT_KIND, lowercasingNames: false),
            headers: values(connection, .HEADER_KIND, lowercasingNames: true), body: pending.body,
            remoteAddress: remoteAddress(connection))
        return shared.queue(shared.respond(to: request), on: connection)
    }

    static let completed: MHD_RequestCompletedCallback = { cls, _, requestContext, _ in
        guard let cls, let requestContext, let pending = requestContext.pointee else { return }
        Unmanaged<PendingRequest>.fromOpaque(pending).release()
        requestContext.pointee = nil
        Unmanaged<ServerShared>.fromOpaque(cls).takeUnretainedValue().requestsInProgress.subtract(
            1, ordering: .releasing)
    }

    /// Runs the handler on this connection thread (see `ConnectionExecutor`).
    private func respond(to request: ServerRequest) -> ServerResponse {
        let router = self.router
        return ConnectionExecutor().run { await router.respond(to: request) }
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
            let stopping = streams.withLock { streams in
                if !streams.stopping { streams.byIdentifier[ObjectIdentifier(stream)] = stream }
                return streams.stopping
            }
            if stopping { stream.finish() }
            let box = StreamBox(stream: stream, shared: self)
            created = MHD_create_response_from_callback(
                UInt64.max, 4096, Self.readEvents, Unmanaged.passRetained(box).toOpaque(), Self.releaseEvents)
        case .connectionReset:
            // Refusing the request makes libmicrohttpd close the connection; linger 0 turns the close into a reset.
            _ = cmhd_reset_on_close(connection)
            return MHD_Result.NO
        }
        guard let created else { return MHD_Result.NO }
        defer { MHD_destroy_response(created) }
        for header in response.headers { MHD_add_response_header(created, header.name, header.value) }
        return MHD_queue_response(connection, UInt32(clamping: response.status), created)
    }

    private static let readEvents: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
        guard let cls, let buffer else { return -2 }
        let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
        guard let chunk = box.stream.next(capacity: capacity) else { return -1 }
        chunk.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return chunk.count
    }

    /// The client left or the stream ended: the stream is finished either way.
    private static let releaseEvents: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
        box.stream.finish()
        box.shared.streams.withLock { _ = $0.byIdentifier.removeValue(forKey: ObjectIdentifier(box.stream)) }
    }

    private static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercasingNames: Bool)
        -> [String: String]
    {
        let collector = ValueCollector(lowercasingNames: lowercasingNames)
        MHD_get_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return MHD_Result.YES }
                let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
                let name = collector.lowercasingNames ? ServerShared.lowercasedName(key) : String(cString: key)
                collector.add(name, value.map { String(cString: $0) } ?? "")
                return MHD_Result.YES
            }, Unmanaged.passUnretained(collector).toOpaque())
        return collector.values
    }

    /// A header name lower-cased straight from its C string: names are ASCII tokens, and `lowercased()` of a
    /// `String` made first costs every header of every request a Unicode mapping and a second string.
    private static func lowercasedName(_ key: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeRawBufferPointer(start: key, count: strlen(key))
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return String(cString: key).lowercased() }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    /// Read into stack memory: every request asks.
    private static func remoteAddress(_ connection: OpaquePointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            buffer.initialize(repeating: 0)
            guard cmhd_client_address(connection, buffer.baseAddress, socklen_t(buffer.count)) == 0 else { return "" }
            let length = buffer.firstIndex(of: 0) ?? buffer.count
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length), as: UTF8.self)
        }
    }
}

/// One request's body as it arrives, behind libmicrohttpd's per-request pointer; used by one connection thread.
private final class PendingRequest {
    var body: [UInt8] = []
    var tooLarge = false
}

/// Headers or query arguments being collected by the C iterator.
private final class ValueCollector {
    let lowercasingNames: Bool
    var values: [String: String] = [:]

    init(lowercasingNames: Bool) { self.lowercasingNames = lowercasingNames }

    /// `name` comes lower-cased already when `lowercasingNames` is set.
    func add(_ name: String, _ value: String) {
        if lowercasingNames, let earlier = values[name] {
            values[name] = "\(earlier), \(value)"
        } else {
            values[name] = value
        }
    }
}

/// An event stream and its server, behind the content reader's user pointer.
private final class StreamBox {
    let stream: EventStream
    let shared: ServerShared

    init(stream: EventStream, shared: ServerShared) {
        self.stream = stream
        self.shared = shared
    }
}
