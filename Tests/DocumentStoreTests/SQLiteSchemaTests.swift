import BSON
import Testing

@testable import DocumentStore

/// Data directories written before the store recorded its layout: index entries held the document's
/// `_id` key (and, earlier still, the documents table had no rowids). Opening one migrates it.
@Suite struct SQLiteSchemaTests {
    /// Rewrites a closed store's file into the first layout: documents WITHOUT ROWID, index entries
    /// naming documents by key, no recorded version.
    private func rewriteToFirstLayout(_ path: String) throws {
        let connection = try SQLiteConnection(path: path, create: false)
        defer { connection.close() }
        try connection.execute(
            """
            BEGIN;
            CREATE TABLE old_entries(
                idx INTEGER NOT NULL, key BLOB NOT NULL, doc BLOB NOT NULL, PRIMARY KEY(idx, key, doc)) WITHOUT ROWID;
            INSERT INTO old_entries SELECT e.idx, e.key, d.key FROM index_entries e JOIN documents d ON d.id = e.doc;
            DROP TABLE index_entries;
            ALTER TABLE old_entries RENAME TO index_entries;
            CREATE TABLE old_documents(
                collection INTEGER NOT NULL, key BLOB NOT NULL, body BLOB NOT NULL,
                PRIMARY KEY(collection, key)) WITHOUT ROWID;
            INSERT INTO old_documents SELECT collection, key, body FROM documents;
            DROP TABLE documents;
            ALTER TABLE old_documents RENAME TO documents;
            PRAGMA user_version = 0;
            COMMIT;
            """)
    }

    @Test func storeOfTheFirstLayoutIsMigratedOnOpen() async throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        var store = try await DocumentStore.open(.sqlite(directory: data))
        var books = store.database("app").collection("books")
        try await books.createIndex(["isbn": 1], unique: true)
        try await books.createIndex(["tags": 1])
        for i in 0..<20 {
            try await books.insertOne(["_id": .int32(Int32(i)), "isbn": .string("isbn-\(i)"), "tags": ["a", "b"]])
        }
        await store.close()
        try rewriteToFirstLayout(data + "/store.sqlite")

        store = try await DocumentStore.open(.sqlite(directory: data))
        books = store.database("app").collection("books")
        #expect(try await books.findOne(["isbn": "isbn-7"])?["_id"] == .int32(7))
        let plan = try await books.explain(["isbn": "isbn-7"])
        #expect(plan.stage == "IXSCAN" && plan.keysExamined == 1 && plan.returned == 1)
        #expect(try await books.countDocuments(["tags": "b"]) == 20)
        // Entries still work as entries: uniqueness holds, updates and deletes keep them current.
        await expectStoreError(.duplicateKey) { try await books.insertOne(["_id": 99, "isbn": "isbn-3"]) }
        try await books.updateOne(["_id": 3], ["$set": ["isbn": "changed"]])
        #expect(try await books.findOne(["isbn": "isbn-3"]) == nil)
        #expect(try await books.findOne(["isbn": "changed"])?["_id"] == 3)
        try await books.deleteOne(["_id": 4])
        #expect(try await books.findOne(["isbn": "isbn-4"]) == nil)
        try await books.insertOne(["_id": 100, "isbn": "isbn-4"])
        #expect(try await books.findOne(["isbn": "isbn-4"])?["_id"] == 100)
        await store.close()

        let connection = try SQLiteConnection(path: data + "/store.sqlite", create: false)
        defer { connection.close() }
        #expect(try connection.integer("PRAGMA user_version") == SQLiteSchema.current)
    }

    @Test func storeOfLayoutOneGainsTaggedChangesOnOpen() async throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        var store = try await DocumentStore.open(.sqlite(directory: data))
        try await store.database("app").collection("books").insertOne(["_id": 1])
        await store.close()
        // Layout 1: the change log had no `origin` column.
        let connection = try SQLiteConnection(path: data + "/store.sqlite", create: false)
        try connection.execute(
            """
            DROP INDEX changes_origin;
            ALTER TABLE changes DROP COLUMN origin;
            PRAGMA user_version = 1;
            """)
        let untagged = try connection.integer("SELECT max(seq) FROM changes")
        connection.close()

        store = try await DocumentStore.open(.sqlite(directory: data))
        let books = store.database("app").collection("books")
        #expect(try await books.countDocuments() == 1)
        try await StoreWriteOrigin.$current.withValue("run-1") { try await books.insertOne(["_id": 2]) }
        #expect(try await store.changes(origins: ["run-1"])["run-1"]?.map(\.documentKey) == [["_id": 2]])
        // The entries logged before the column existed are known to be untagged.
        #expect(try await store.changeOriginsTaggedAfter() == Int64(untagged))
        await store.close()
    }

    @Test func storeOfALaterLayoutIsRefused() async throws {
        let directory = TemporaryDirectory()
        let data = directory.path + "/data"
        let store = try await DocumentStore.open(.sqlite(directory: data))
        try await store.database("app").collection("books").insertOne(["_id": 1])
        await store.close()
        let connection = try SQLiteConnection(path: data + "/store.sqlite", create: false)
        try connection.execute("PRAGMA user_version = \(SQLiteSchema.current + 1)")
        connection.close()

        let error = await expectStoreError(17_012) { _ = try await DocumentStore.open(.sqlite(directory: data)) }
        #expect(error?.message.contains("newer version") == true)
    }
}
