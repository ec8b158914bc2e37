import Testing

@testable import DocumentStore

/// A notice names the committing instance and the collections its transaction wrote, or every collection when the
/// names do not fit.
@Suite struct PostgreSQLCommitNoticeTests {
    @Test func namesTheCollectionsWritten() {
        let written: Set<Namespace> = [
            Namespace(database: "local", collection: "switchyard_sessions"),
            Namespace(database: "app", collection: "books.2024"),
        ]
        let notice = PostgreSQLCommitNotice.parse(PostgreSQLCommitNotice.payload(instance: "node-a", wrote: written))
        #expect(notice.instance == "node-a")
        #expect(notice.wrote == .collections(written))
        #expect(PostgreSQLCommitNotice.parse("node-a").wrote == .none)
    }

    @Test func namesEveryCollectionWhenTheNamesDoNotFit() {
        let many = (0..<1000).map { Namespace(database: "app", collection: "collection\($0)") }
        let payload = PostgreSQLCommitNotice.payload(instance: "node-a", wrote: many)
        #expect(payload.utf8.count < PostgreSQLCommitNotice.maximumBytes)
        #expect(PostgreSQLCommitNotice.parse(payload) == ("node-a", .every))
        let broken = [Namespace(database: "app", collection: "two\nlines")]
        #expect(
            PostgreSQLCommitNotice.parse(PostgreSQLCommitNotice.payload(instance: "node-a", wrote: broken)).wrote
                == .every)
    }
}
