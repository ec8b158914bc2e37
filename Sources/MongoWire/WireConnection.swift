import BSON
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One client connection, served on a thread of its own: reads whole messages, has the dispatcher run them and
/// writes the replies, in order. A message whose framing cannot be trusted closes the connection.
final class WireConnection: Sendable {
    let socket: Int32
    let id: Int64
    let peer: WirePeer
    let dispatcher: CommandDispatcher
    /// The connection's TLS session, when the server speaks TLS.
    let tls: WireTLSSession?
    private let replyIds = Atomic<Int32>(1)
    private let executor = ConnectionExecutor()

    init(socket: Int32, id: Int64, peer: WirePeer, dispatcher: CommandDispatcher, tls: WireTLSSession? = nil) {
        self.socket = socket
        self.id = id
        self.peer = peer
        self.dispatcher = dispatcher
        self.tls = tls
    }

    func serve() {
        let client = ClientConnection(id: id, peer: peer.text)
        while let message = readMessage() {
            let request: WireRequest
            do {
                request = try WireCodec.decode(message)
            } catch {
                guard !error.closesConnection, message.count >= 16 else { return }
                // Answered in the shape the client asked in, so it reads the error instead of hanging.
                let opCode =
                    Int32(message[12]) | Int32(message[13]) << 8 | Int32(message[14]) << 16
                    | Int32(message[15]) << 24
                let requestID =
                    Int32(message[4]) | Int32(message[5]) << 8 | Int32(message[6]) << 16
                    | Int32(message[7]) << 24
                let failed = WireRequest(
                    requestID: requestID,
                    kind: opCode == WireOpCode.query.rawValue ? .query : .message(moreToCome: false),
                    command: [:], database: "admin", compressor: nil)
                let reply = CommandReply.error(code: error.code, message: error.message)
                guard write(WireCodec.encodeReply(reply, to: failed, requestID: nextReplyId())) else { return }
                continue
            }
            let reply = runBlocking(request, client: client)
            if case .message(moreToCome: true) = request.kind { continue }
            guard write(WireCodec.encodeReply(reply, to: request, requestID: nextReplyId())) else { return }
        }
    }

    private func nextReplyId() -> Int32 {
        replyIds.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Runs the command on this connection's thread (see `ConnectionExecutor`), waiting for its reply.
    private func runBlocking(_ request: WireRequest, client: ClientConnection) -> BSONDocument {
        let dispatcher = self.dispatcher
        return executor.run { await dispatcher.run(request, client: client) }
    }

    /// The next whole message, or nil when the peer closed or sent a length no message can have.
    private func readMessage() -> [UInt8]? {
        var header = [UInt8](repeating: 0, count: WireLimits.headerSize)
        guard readExactly(&header, from: 0) else { return nil }
        let length = Int(Int32(header[0]) | Int32(header[1]) << 8 | Int32(header[2]) << 16 | Int32(header[3]) << 24)
        guard length >= WireLimits.headerSize + 4, length <= WireLimits.maxMessageSizeBytes else { return nil }
        var message = header
        message += [UInt8](repeating: 0, count: length - WireLimits.headerSize)
        guard readExactly(&message, from: WireLimits.headerSize) else { return nil }
        return message
    }

    private func readExactly(_ buffer: inout [UInt8], from start: Int) -> Bool {
        var offset = start
        while offset < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                if let tls { return tls.receive(raw.baseAddress! + offset, raw.count - offset) }
                return recv(socket, raw.baseAddress! + offset, raw.count - offset, 0)
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                if let tls { return tls.send(raw.baseAddress! + offset, raw.count - offset) }
                return send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}

/// What a command knows of the connection it came on.
package struct ClientConnection: Sendable {
    package var id: Int64
    package var peer: String
    package var authentication = ConnectionAuthentication()
}
