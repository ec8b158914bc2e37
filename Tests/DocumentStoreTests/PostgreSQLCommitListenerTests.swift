import BSON
import Foundation
import TestSupport
import Testing

@testable import DocumentStore

@Suite struct PostgreSQLCommitListenerTests {
    @Test func aStreamInOneInstanceWakesForAnotherInstancesInsert() async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        let stream = try await second.database("app").collection("books").watch()
        // Waiting before the insert: only the notification of the first instance's commit can wake it.
        let reading = Task { try await within(seconds: 60) { try await next(1, from: stream) } }
        try await first.database("app").collection("books").insertOne(["_id": 1, "title": "Dune"])
        let events = try await reading.value
        #expect(events.map(\.operationType) == [.insert])
        #expect(events.first?.fullDocument == ["_id": 1, "title": "Dune"])
        // The instance that heard the commit reads the collection it did not create.
        #expect(try await second.database("app").collection("books").countDocuments() == 1)
        await first.close()
        await second.close()
    }

    @Test func aStreamGoesOnAfterItsListeningConnectionIsTerminated() async throws {
        let directory = TemporaryDirectory()
        let database = directory.database
        let configuration = try await configuration(.postgresql, directory: directory)
        let server = try await offPool { try PostgreSQLServer.shared() }
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        let books = first.database("app").collection("books")
        let stream = try await second.database("app").collection("books").watch()
        // One iterator waits through it all: every event must reach it by a wake-up.
        let reading = Task { try await within(seconds: 60) { try await next(3, from: stream) } }
        let listeners = """
            SELECT pid FROM pg_stat_activity
            WHERE datname = '\(database)' AND application_name = '\(PostgreSQLCommitListener.applicationName)'
            """
        let terminated = try await offPool { try server.rows(listeners).map { $0[0] } }
        #expect(terminated.count == 2)
        try await offPool {
            try server.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (\(terminated.joined(separator: ",")))"
            )
        }
        // Committed while the listeners may still be away: heard once they are back.
        try await books.insertOne(["_id": 1])
        // Both listen again, on new connections, and the next commits are heard as before.
        try await within(seconds: 60) {
            while true {
                let pids = try await offPool { try server.rows(listeners).map { $0[0] } }
                if pids.count == 2 && Set(pids).isDisjoint(with: terminated) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await books.insertOne(["_id": 2])
        try await books.insertOne(["_id": 3])
        let events = try await reading.value
        #expect(events.map { $0.documentKey?["_id"] } == [1, 2, 3])
        await first.close()
        await second.close()
    }

    /// A collection in the change log (`app`) and one that is not (`local`, where serve keeps users and sessions).
    @Test(arguments: ["app", "local"]) func aWriteThroughOneInstanceMovesTheOthersWriteVersionAndItsCacheReadsAgain(
        database: String
    ) async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        let first = try await DocumentStore.open(configuration)
        let second = try await DocumentStore.open(configuration)
        try await first.database(database).collection("users").insertOne(["_id": "ada", "role": "reader"])
        let users = second.database(database).collection("users")
        // The second instance reads the collection once it has heard of it.
        try await within(seconds: 60) {
            while try await users.findOne(["_id": "ada"]) == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let cache = CollectionReadCache<String, BSONDocument?>(collection: users)
        let role = { @Sendable in try await cache.value(for: "ada") { try await $0.findOne(["_id": "ada"]) }?["role"] }
        #expect(try await role() == "reader")
        let stamp = users.writeVersion.current
        try await first.database(database).collection("users").updateOne(
            ["_id": "ada"], ["$set": ["role": "editor"]])
        try await within(seconds: 30) {
            while users.writeVersion.current == stamp { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(try await role() == "editor")
        // A write to another collection leaves it be.
        let moved = users.writeVersion.current
        try await first.database(database).collection("books").insertOne(["title": "Dune"])
        try await within(seconds: 30) {
            while second.database(database).collection("books").writeVersion.current == 0 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(users.writeVersion.current == moved)
        await first.close()
        await second.close()
    }

    @Test func aListenerThatLostItsConnectionMovesEveryWriteVersion() async throws {
        let directory = TemporaryDirectory()
        let database = directory.database
        let configuration = try await configuration(.postgresql, directory: directory)
        let server = try await offPool { try PostgreSQLServer.shared() }
        let store = try await DocumentStore.open(configuration)
        let version = store.database("local").collection("sessions").writeVersion
        let stamp = version.current
        try await offPool {
            try server.execute(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = '\(database)' AND application_name = '\(PostgreSQLCommitListener.applicationName)'
                """)
        }
        // Notices may have gone by while it was away: nothing it kept is vouched for any more.
        try await within(seconds: 60) {
            while version.current == stamp { try await Task.sleep(for: .milliseconds(10)) }
        }
        await store.close()
    }
}
