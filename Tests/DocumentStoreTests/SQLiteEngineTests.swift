import Foundation
import Testing

@testable import DocumentStore

@Suite struct SQLiteEngineTests {
    /// Concurrent writers leave the copy of a log past 1,000 pages to the checkpointer, on its own
    /// connection and thread. It once copied nothing (a connection that has not read the file does not
    /// know it is in WAL mode), so the log grew to its bound, where every writer waited for the store's
    /// thread to copy all of it.
    @Test func theCheckpointerCopiesTheLogIntoTheDatabaseFile() throws {
        let directory = TemporaryDirectory()
        let engine = try SQLiteEngine(directory: directory.path, synchronous: .normal, busyTimeoutMilliseconds: 5_000)
        defer { engine.close() }
        try engine.beginTransaction()
        let collection = try engine.insertCollection(database: "app", name: "c", options: [:])
        try engine.commitTransaction()
        // 1,200 pages' worth of documents, in commits of a few pages as writers' batches make them.
        let body = [UInt8](repeating: 0x61, count: 12_000)
        for batch in 0..<400 {
            try engine.beginTransaction()
            _ = try engine.insertDocument(collection: collection, key: Array("\(batch)".utf8), body: body)
            try engine.commitTransaction()
        }
        #expect(engine.checkpointNeed == .besideWriters)
        let database = directory.path + "/store.sqlite"
        func databaseBytes() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: database)[.size] as? NSNumber)?.intValue ?? 0
        }
        let before = try databaseBytes()
        let checkpointer = try #require(try engine.makeCheckpointer())
        checkpointer.checkpoint()
        // It copies on its own thread: wait for the file to take the log's pages.
        let deadline = ContinuousClock.now + .seconds(20)
        while try databaseBytes() < before + 4_000_000, ContinuousClock.now < deadline { usleep(5_000) }
        checkpointer.close()
        #expect(try databaseBytes() >= before + 4_000_000, "the log was not copied into the database file")
    }
}
