import BSON
import DocumentStore
import Foundation
import TestSupport
import Testing

@testable import MongoWire

#if canImport(Glibc)
    import Glibc
#endif

/// The TCP side alone, with raw loopback sockets: connections beyond the per-peer bound are closed at once, and the
/// admitted ones keep being answered.
@Suite(.timeLimit(.minutes(2))) struct WireServerTests {
    static func connect(_ port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw DriverFailure("cannot connect to port \(port)") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// The reply to one ping, or nil when the server closed the connection instead.
    static func ping(_ socket: Int32) throws -> BSONDocument? {
        try Self.send(["ping": .int32(1), "$db": "admin"], on: socket)
        return try Self.reply(on: socket)
    }

    static func send(_ command: BSONDocument, on socket: Int32) throws {
        let request = try WireCodecTests.opMsg(command)
        _ = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The body of the next OP_MSG reply, or nil when the server closed the connection instead.
    static func reply(on socket: Int32) throws -> BSONDocument? {
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while reply.count < 4 || reply.count < Int(reply[0]) | Int(reply[1]) << 8 {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            reply += buffer.prefix(count)
        }
        return try BSONDocument(bsonBytes: reply.dropFirst(21))
    }

    /// A driver's streaming monitor sends each hello with the topologyVersion it knows: one naming this server's run
    /// waits for a change (here only the server stopping, which ends the wait), so the monitor does not ask again at once; one naming
    /// another run is answered at once.
    @Test func awaitableHelloWaitsUntilTheServerStops() async throws {
        let store = try await DocumentStore.open(.memory)
        let server = try WireServer.start(store: store, configuration: .init(port: 0))
        let port = server.port
        let (monitor, other) = try await offPool { (try Self.connect(port), try Self.connect(port)) }
        defer { for socket in [monitor, other] { close(socket) } }
        let (first, stale, pendingAfterPing) = try await offPool {
            try Self.send(["hello": .int32(1), "$db": "admin"], on: monitor)
            let first = try Self.reply(on: monitor)
            try Self.send(
                [
                    "hello": .int32(1), "$db": "admin", "maxAwaitTimeMS": .int64(600_000),
                    "topologyVersion": ["processId": .objectId(ObjectId()), "counter": .int64(0)],
                ], on: monitor)
            let stale = try Self.reply(on: monitor)
            try Self.send(
                [
                    "hello": .int32(1), "$db": "admin", "maxAwaitTimeMS": .int64(600_000),
                    "topologyVersion": first?["topologyVersion"] ?? .null,
                ], on: monitor)
            // Answered on another connection meanwhile, while the awaited hello has no reply yet.
            _ = try Self.ping(other)
            var byte: UInt8 = 0
            let pending = recv(monitor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
            return (first, stale, pending > 0)
        }
        #expect(first?["isWritablePrimary"] == .bool(true))
        #expect(stale?["isWritablePrimary"] == .bool(true))
        #expect(!pendingAfterPing)
        await server.stop()
        // The stop ends the wait rather than waiting out its ten minutes, and closes the connection.
        let awaited = try await offPool { try Self.reply(on: monitor) }
        #expect(awaited == nil)
        await store.close()
    }

    @Test func connectionsBeyondThePerPeerBoundAreClosed() async throws {
        let store = try await DocumentStore.open(.memory)
        let server = try WireServer.start(
            store: store, configuration: .init(port: 0, maximumConnections: 10, maximumConnectionsPerPeer: 2))
        let port = server.port
        let (first, second, third, admitted) = try await offPool {
            let first = try Self.connect(port)
            let second = try Self.connect(port)
            let third = try Self.connect(port)
            defer { for socket in [second, third] { close(socket) } }
            let answers = (
                try Self.ping(first)?["ok"], try Self.ping(second)?["ok"], try Self.ping(third)
            )
            close(first)
            // A place freed by a closed connection is taken by the next one, once the server has seen the close
            // (its connection's thread may wait for a core while the machine is busy: a deadline, not a count).
            var admitted = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !admitted && ContinuousClock.now < deadline {
                let next = try Self.connect(port)
                admitted = try Self.ping(next)?["ok"] == .double(1)
                close(next)
                if !admitted { usleep(10_000) }
            }
            return (answers.0, answers.1, answers.2, admitted)
        }
        #expect(first == .double(1))
        #expect(second == .double(1))
        #expect(third == nil)
        #expect(admitted)
        await server.stop()
        await store.close()
    }
}
