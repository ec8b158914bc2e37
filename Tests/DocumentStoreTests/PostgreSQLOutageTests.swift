import BSON
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import DocumentStore

/// A store on PostgreSQL whose server restarts or drops its connection: reads and writes work again once the server
/// is back, writes meanwhile fail with an error that says so (never hang), and nothing acknowledged is lost.
/// Each test restarting a server has a server of its own; the shared one serves the tests that only cut connections.
@Suite struct PostgreSQLOutageTests {
    @Test func aReadAfterTheServerRestartedSucceeds() async throws {
        let server = try await offPool { try PostgreSQLServer.own() }
        defer { server.stop() }
        let store = try await DocumentStore.open(try .postgresql(url: server.database("outage")))
        let books = store.database("app").collection("books")
        try await books.insertOne(["_id": 1, "title": "Dune"])
        #expect(try await books.findOne(["_id": 1]) == ["_id": 1, "title": "Dune"])
        try await offPool {
            try server.stopGracefully()
            try server.start()
        }
        #expect(try await books.findOne(["_id": 1]) == ["_id": 1, "title": "Dune"])
        #expect(try await books.countDocuments() == 1)
        await store.close()
    }

    @Test func aWriteAfterTheServerRestartedSucceeds() async throws {
        let server = try await offPool { try PostgreSQLServer.own() }
        defer { server.stop() }
        let store = try await DocumentStore.open(try .postgresql(url: server.database("outage")))
        let books = store.database("app").collection("books")
        try await books.insertOne(["_id": 1, "title": "Dune"])
        try await offPool {
            try server.stopGracefully()
            try server.start()
        }
        try await books.insertOne(["_id": 2, "title": "Emma"])
        #expect(try await books.find().toArray().count == 2)
        await store.close()
    }

    @Test func aTerminatedConnectionIsReplacedForTheNextReadAndWrite() async throws {
        let directory = TemporaryDirectory()
        let store = try await DocumentStore.open(try await configuration(.postgresql, directory: directory))
        let books = store.database("app").collection("books")
        try await books.insertOne(["_id": 1, "title": "Dune"])
        #expect(try await books.findOne(["_id": 1]) != nil)
        let database = directory.database
        let server = try await offPool { try PostgreSQLServer.shared() }
        let terminated = try server.rows(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        #expect(!terminated.isEmpty)
        #expect(try await books.findOne(["_id": 1]) == ["_id": 1, "title": "Dune"])
        try await offPool {
            _ = try server.rows("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        }
        try await books.insertOne(["_id": 2, "title": "Emma"])
        #expect(try await books.countDocuments() == 2)
        await store.close()
    }

    @Test func writesDuringAnOutageFailClearlyAndNothingAcknowledgedIsLost() async throws {
        let server = try await offPool { try PostgreSQLServer.own() }
        defer { server.stop() }
        let store = try await DocumentStore.open(try .postgresql(url: server.database("outage")))
        let books = store.database("app").collection("books")
        let log = WriterLog()
        let writer = Task {
            var next = 0
            while !Task.isCancelled {
                next += 1
                do {
                    try await books.insertOne(["_id": .int64(Int64(next)), "title": .string("Book \(next)")])
                    log.acknowledged(next)
                } catch {
                    log.failed(next, "\(error)")
                    try? await Task.sleep(for: .milliseconds(5))
                }
            }
        }
        try await log.wait { $0.acknowledged.count >= 50 }
        try await offPool { try server.stopGracefully() }
        // Writes go on failing (each at once: the test waits for several) while the server is down.
        try await log.wait { $0.failures.count >= 5 }
        try await offPool { try server.start() }
        let acknowledgedBefore = log.state.acknowledged.count
        try await log.wait { $0.acknowledged.count >= acknowledgedBefore + 50 }
        writer.cancel()
        _ = await writer.result

        let state = log.state
        for message in state.failures.map(\.message) {
            #expect(message.contains("PostgreSQL"), "\(message)")
            #expect(message.contains("lost") || message.contains("connect"), "\(message)")
        }
        let stored = Set(
            try await books.find().toArray().compactMap { document -> Int? in
                if case .int64(let id) = document["_id"] { return Int(id) }
                return nil
            })
        #expect(Set(state.acknowledged).isSubset(of: stored))
        // Each stored document has exactly one insert event, whether its write was acknowledged or its COMMIT's
        // answer was lost with the connection.
        let (events, _) = try await store.changes(after: ResumeToken(sequence: 0), limit: 100_000)
        let inserted = events.filter { $0.operationType == .insert }.compactMap { event -> Int? in
            if case .int64(let id) = event.documentKey?["_id"] { return Int(id) }
            return nil
        }
        #expect(inserted.count == Set(inserted).count)
        #expect(Set(inserted) == stored)
        await store.close()
    }
}

/// What the background writer saw, for the test to wait on.
private final class WriterLog: Sendable {
    struct State: Sendable {
        var acknowledged: [Int] = []
        var failures: [(id: Int, message: String)] = []
    }

    private let storage = Mutex(State())

    var state: State { storage.withLock { $0 } }

    func acknowledged(_ id: Int) { storage.withLock { $0.acknowledged.append(id) } }

    func failed(_ id: Int, _ message: String) { storage.withLock { $0.failures.append((id, message)) } }

    /// Waits until `condition` holds, failing the test after a minute (a hang is what the test is there to catch).
    func wait(until condition: (State) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !storage.withLock({ condition($0) }) {
            guard ContinuousClock.now < deadline else {
                Issue.record(
                    "the writer stopped making progress: \(state.acknowledged.count) acknowledged, \(state.failures.count) failed"
                )
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
