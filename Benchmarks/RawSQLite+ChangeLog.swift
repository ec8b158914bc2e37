import BSON
import CSQLite
import DocumentStore
import Foundation

/// The trigger benchmark's raw peer: what the store writes for an inserted document, done with the C API.
extension RawSQLite {
    struct LoggedInsert {
        var key: [UInt8]
        var document: [UInt8]
        var event: [UInt8]
        var wallTime: Int64
    }

    /// The `_id` key, the document's BSON and an insert event of the store's shape embedding the document,
    /// built before any clock starts.
    static func loggedInserts(_ documents: [BSONDocument], namespace: Namespace) throws -> [LoggedInsert] {
        try documents.map { book in
            let id = ObjectId()
            var document: BSONDocument = ["_id": .objectId(id)]
            for (key, value) in book { document.append(key, value) }
            let milliseconds = Int64(Date().timeIntervalSince1970 * 1000)
            let event: BSONDocument = [
                "operationType": "insert",
                "clusterTime": .timestamp(BSONTimestamp(time: UInt32(milliseconds / 1000), increment: 1)),
                "wallTime": .datetime(BSONDate(millisecondsSinceEpoch: milliseconds)),
                "ns": ["db": .string(namespace.database), "coll": .string(namespace.collection)],
                "documentKey": ["_id": .objectId(id)], "fullDocument": .document(document),
            ]
            return LoggedInsert(
                key: withUnsafeBytes(of: id.bytes) { Array($0) }, document: try document.bsonBytes,
                event: try event.bsonBytes, wallTime: milliseconds)
        }
    }

    /// Per transaction: the document row and its change-log row, committed. Returns inserts per second.
    func insertRate(_ inserts: [LoggedInsert]) throws -> Double {
        try execute(
            """
            CREATE TABLE documents(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, body BLOB NOT NULL);
            CREATE TABLE changes(seq INTEGER PRIMARY KEY, wall_time INTEGER NOT NULL, event BLOB NOT NULL);
            """)
        let document = try prepare("INSERT INTO documents(key, body) VALUES(?, ?)")
        let change = try prepare("INSERT INTO changes(seq, wall_time, event) VALUES(?, ?, ?)")
        let begin = try prepare("BEGIN IMMEDIATE")
        let commit = try prepare("COMMIT")
        defer { [document, change, begin, commit].forEach { sqlite3_finalize($0) } }
        let start = ContinuousClock.now
        for (index, insert) in inserts.enumerated() {
            sqlite3_step(begin)
            sqlite3_reset(begin)
            sqlite3_bind_blob(document, 1, insert.key, Int32(insert.key.count), csqlite_transient())
            sqlite3_bind_blob(document, 2, insert.document, Int32(insert.document.count), csqlite_transient())
            guard sqlite3_step(document) == SQLITE_DONE else { throw StoreError.badValue("raw insert failed") }
            sqlite3_reset(document)
            sqlite3_bind_int64(change, 1, Int64(index + 1))
            sqlite3_bind_int64(change, 2, insert.wallTime)
            sqlite3_bind_blob(change, 3, insert.event, Int32(insert.event.count), csqlite_transient())
            guard sqlite3_step(change) == SQLITE_DONE else { throw StoreError.badValue("raw change insert failed") }
            sqlite3_reset(change)
            guard sqlite3_step(commit) == SQLITE_DONE else { throw StoreError.badValue("raw commit failed") }
            sqlite3_reset(commit)
        }
        return Double(inserts.count) / Timing.seconds(ContinuousClock.now - start)
    }
}
