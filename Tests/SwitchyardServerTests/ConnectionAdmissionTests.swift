import Foundation
import Messaging
import Synchronization
import Testing

@testable import SwitchyardServer

/// Clients holding connections open without asking anything (idle sockets, request heads trickled in part) never
/// lock real clients out: past the limits, the connection idle longest gives way to the new one.
@Suite(.timeLimit(.minutes(1))) struct ConnectionAdmissionTests {
    private func serve(
        maximumConnections: Int, perPeer: Int, idleTimeout: Int = 60, configure: (inout Router) -> Void = { _ in }
    ) throws -> HTTPServer {
        var router = Router()
        router.add("GET", "/hello", { _, _ in .json(["hello": "world"]) })
        configure(&router)
        return try HTTPServer(
            configuration: .init(
                host: "127.0.0.1", port: 0, idleTimeout: idleTimeout, maximumConnections: maximumConnections,
                maximumConnectionsPerPeer: perPeer, threads: 2),
            router: router)
    }

    /// `count` connections, every other one with a request head begun and never finished.
    private func slowLoris(_ count: Int, port: UInt16) throws -> [RawConnection] {
        try (0..<count).map { index in
            let connection = try RawConnection(port: port)
            if index % 2 == 1 { connection.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") }
            return connection
        }
    }

    private func expectServed(_ server: HTTPServer, clients: Int) async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<clients {
                group.addTask { try await HTTPClient().get(url: "\(server.baseURL)/hello").status }
            }
            for try await status in group { #expect(status == 200) }
        }
    }

    /// The server holds no more than its limit: at least `count` of the idle connections were closed.
    private func expectClosed(_ idle: [RawConnection], atLeast count: Int) async throws {
        var closed = 0
        for _ in 0..<500 {
            closed = idle.filter(\.closedByServer).count
            if closed >= count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(closed >= count)
    }

    @Test func idleConnectionsBeyondTheTotalGiveWayToRealClients() async throws {
        let server = try serve(maximumConnections: 16, perPeer: 16)
        let idle = try slowLoris(40, port: server.port)
        try await expectServed(server, clients: 14)
        try await expectClosed(idle, atLeast: 40 - 16)
        await server.stop()
    }

    @Test func idleConnectionsOfOnePeerGiveWayToThatPeersRealClients() async throws {
        let server = try serve(maximumConnections: 64, perPeer: 8)
        let idle = try slowLoris(20, port: server.port)
        try await expectServed(server, clients: 6)
        try await expectClosed(idle, atLeast: 20 - 8)
        await server.stop()
    }

    /// Trickling a request head keeps libmicrohttpd's inactivity timeout from firing, but not the idle timeout:
    /// it counts from when the connection opened, and a connection arriving later has the trickler closed.
    @Test func aHeadTrickledForLongerThanTheIdleTimeoutIsClosed() async throws {
        let server = try serve(maximumConnections: 16, perPeer: 16, idleTimeout: 1)
        let trickler = try RawConnection(port: server.port)
        trickler.send("GET /hello HTTP/1.1\r\n")
        for index in 0..<15 {
            trickler.send("X-\(index): a\r\n")
            try await Task.sleep(for: .milliseconds(100))
        }
        try await expectServed(server, clients: 1)
        // Still trickling, so only the idle timeout can close it.
        var closed = false
        for index in 0..<50 where !closed {
            trickler.send("Y-\(index): a\r\n")
            try await Task.sleep(for: .milliseconds(100))
            closed = trickler.closedByServer
        }
        #expect(closed)
        await server.stop()
    }

    /// Only idle connections make room: a request being answered keeps its connection through the flood.
    @Test func aRequestInProgressKeepsItsConnection() async throws {
        let arrived = Atomic(false)
        let release = Atomic(false)
        let server = try serve(maximumConnections: 8, perPeer: 8) { router in
            router.add("GET", "/slow") { _, _ in
                arrived.store(true, ordering: .releasing)
                for _ in 0..<2000 where !release.load(ordering: .acquiring) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                return .json(["slow": true])
            }
        }
        let slow = Task { try await HTTPClient().get(url: "\(server.baseURL)/slow") }
        for _ in 0..<2000 where !arrived.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        let idle = try slowLoris(30, port: server.port)
        try await expectServed(server, clients: 4)
        release.store(true, ordering: .releasing)
        #expect(try await slow.value.status == 200)
        withExtendedLifetime(idle) {}
        await server.stop()
    }
}
