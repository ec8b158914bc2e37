import Testing

@testable import DocumentStore

/// A notice names the committing instance and the collections its transaction wrote, or every collection when the
/// names do not fit; a listener drops its own instance's.
@Suite struct PostgreSQLCommitNoticeTests {
    @Test func namesTheCollectionsWritten() {
        let written: Set<Namespace> = [
            Namespace(database: "local", collection: "switchyard_sessions"),
            Namespace(database: "app", collection: "books.2024"),
        ]
        let payload = PostgreSQLCommitNotice.payload(instance: "node-a", wrote: written)
        #expect(PostgreSQLCommitNotice.wrote(payload, unlessBy: "node-b") == .collections(written))
        #expect(PostgreSQLCommitNotice.wrote(payload, unlessBy: "node-a") == nil)
        #expect(PostgreSQLCommitNotice.wrote("node-a", unlessBy: "node-b") == CommittedWrites.none)
    }

    @Test func namesEveryCollectionWhenTheNamesDoNotFit() {
        let many = (0..<1000).map { Namespace(database: "app", collection: "collection\($0)") }
        let payload = PostgreSQLCommitNotice.payload(instance: "node-a", wrote: many)
        #expect(payload.utf8.count < PostgreSQLCommitNotice.maximumBytes)
        #expect(PostgreSQLCommitNotice.wrote(payload, unlessBy: "node-b") == .every)
        let broken = PostgreSQLCommitNotice.payload(
            instance: "node-a", wrote: [Namespace(database: "app", collection: "two\nlines")])
        #expect(PostgreSQLCommitNotice.wrote(broken, unlessBy: "node-b") == .every)
    }
}
