import CSQLite
import Foundation
import Testing

@Suite struct SQLiteLibraryTests {
    @Test func storesAndReadsBackARowInWALMode() throws {
        let path = "/tmp/switchyard-sqlite-\(UInt64.random(in: 0...UInt64.max)).db"
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nil, nil, nil) == SQLITE_OK)
        #expect(sqlite3_exec(db, "CREATE TABLE book(title TEXT)", nil, nil, nil) == SQLITE_OK)
        var insert: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "INSERT INTO book VALUES (?)", -1, &insert, nil) == SQLITE_OK)
        sqlite3_bind_text(insert, 1, "Dune", -1, csqlite_transient())
        #expect(sqlite3_step(insert) == SQLITE_DONE)
        sqlite3_finalize(insert)

        var select: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT title FROM book", -1, &select, nil) == SQLITE_OK)
        defer { sqlite3_finalize(select) }
        #expect(sqlite3_step(select) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(select, 0)) == "Dune")
    }
}
