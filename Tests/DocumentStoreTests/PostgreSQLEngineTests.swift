import BSON
import Foundation
import TestSupport
import Testing

@testable import DocumentStore

@Suite struct PostgreSQLEngineTests {
    @Test func aURLPrintsWithoutItsPassword() throws {
        let location = try PostgreSQLLocation(url: "postgresql://app:p@ss/w:rd@db.example:5432/books?sslmode=require")
        #expect("\(location)" == "postgresql://app:***@db.example:5432/books?sslmode=require")
        let inQuery = try PostgreSQLLocation(
            url: "postgres://db.example/books?user=app&password=hunter2&sslmode=disable")
        #expect("\(inQuery)" == "postgres://db.example/books?user=app&password=***&sslmode=disable")
        #expect("\(try PostgreSQLLocation(url: "postgresql://app@db/books"))" == "postgresql://app@db/books")
    }

    @Test func aURLOfAnotherSchemeIsABadValueWithoutItsPassword() async {
        let error = await expectStoreError(.badValue) {
            _ = try StoreConfiguration.postgresql(url: "mysql://app:hunter2@db/books")
        }
        #expect(error?.message.contains("mysql://app:***@db/books") == true)
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test func aStoreThatCannotConnectSaysWhereWithoutThePassword() async throws {
        let server = try await offPool { try PostgreSQLServer.shared() }
        let url = "postgresql://switchyard:hunter2@127.0.0.1:\(server.port)/no_such_database"
        let error = await expectStoreError(.cannotOpenStore) { _ = try await DocumentStore.open(.postgresql(url: url)) }
        #expect(
            error?.message.contains("postgresql://switchyard:***@127.0.0.1:\(server.port)/no_such_database") == true)
        #expect(error?.message.contains("does not exist") == true)
        #expect(error?.message.contains("hunter2") == false)
    }

    @Test func aSecondStoreOnTheDatabaseFindsWhatTheFirstWrote() async throws {
        let directory = TemporaryDirectory()
        let store = try await DocumentStore.open(try await configuration(.postgresql, directory: directory))
        try await store.database("app").collection("books").insertOne(["_id": 1, "title": "Dune"])
        await store.close()
        // A second store on the same database finds the tables made by the first and their data.
        let again = try await DocumentStore.open(try await configuration(.postgresql, directory: directory))
        #expect(try await again.database("app").collection("books").findOne(["_id": 1]) == ["_id": 1, "title": "Dune"])
        await again.close()
    }

    @Test func aDatabaseWithoutChangeOriginsGainsThemOnOpen() async throws {
        let directory = TemporaryDirectory()
        let configuration = try await configuration(.postgresql, directory: directory)
        var store = try await DocumentStore.open(configuration)
        try await store.database("app").collection("books").insertOne(["_id": 1])
        await store.close()
        // As a store of before the change log kept which writes appended an entry left it.
        let url = try await offPool { try PostgreSQLServer.shared().database(directory.database) }
        let connection = try PostgreSQLConnection(try PostgreSQLLocation(url: url))
        _ = try connection.execute(
            """
            DROP INDEX switchyard.changes_origin;
            ALTER TABLE switchyard.changes DROP COLUMN origin;
            DELETE FROM switchyard.metadata WHERE name = 'untaggedThrough';
            """)
        connection.close()

        store = try await DocumentStore.open(configuration)
        let books = store.database("app").collection("books")
        try await StoreWriteOrigin.$current.withValue("run-1") { try await books.insertOne(["_id": 2]) }
        #expect(try await store.changes(origins: ["run-1"])["run-1"]?.map(\.documentKey) == [["_id": 2]])
        // The two entries of the first store (the collection's creation, the insert) were appended untagged.
        #expect(try await store.changeOriginsTaggedAfter() == 2)
        await store.close()
    }
}
