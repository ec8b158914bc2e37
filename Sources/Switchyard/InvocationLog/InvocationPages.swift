import BSON
import DocumentStore
import Foundation
import Synchronization

/// The invocation log's records as the store keeps them: in pages, one document per batch written
/// (`{_id, firstStart, lastStart, count, records: [record, …]}`), so that a busy server stores one row per batch
/// instead of one per run (each row costs an insert and later a delete, the largest part of a served call), and
/// prunes a page at a time. Logs written with the earlier layout, a record per document, are read as they are
/// (`InvocationPages+Migrations.swift`).
///
/// It keeps the newest `retention` records, in the order they were written, and at most a page more: a page goes
/// once every record on it is beyond the retention, and pages hold at most `capacity(retention:)` records.
final class InvocationPages: Sendable {
    /// A record on its way to a page: its bytes, and its start, which the page's range is made of.
    typealias Entry = (document: EncodedDocument, start: BSONDate)

    let collection: DocumentCollection
    let retention: Int
    let pageCapacity: Int
    /// Record bytes beyond which a page is closed early, far below the store's 16 MB for a document.
    static let pageBytes = 1 << 20
    /// The pages in the store, oldest first: read once by the first write, then kept as pages are written and
    /// pruned, and read again when someone else wrote to the collection (its write version moved by more than this
    /// log's own writes).
    private let contents = Mutex<Contents?>(nil)

    private struct Contents {
        /// The pages' newest starts and ids, with their record counts.
        var pages: [(key: LogOrder.Key, count: Int)] = []
        var records = 0
        /// Documents that are neither pages nor records (written by hand): counted, never pruned.
        var others = 0
        /// The collection's write version when this log's last write ended, if nobody else wrote during it: while
        /// the version has not moved since, these are the pages. (Asking the store for its count instead costs more
        /// than the rest of a write, and misses a page replaced by another document.)
        var version: UInt64?
    }

    init(collection: DocumentCollection, retention: Int) {
        self.collection = collection
        self.retention = max(1, retention)
        pageCapacity = Self.capacity(retention: retention)
    }

    /// Records per page: a tenth of the retention (at least one), so the log holds at most a tenth more records
    /// than it keeps.
    static func capacity(retention: Int) -> Int {
        max(1, retention / 10)
    }

    /// Writes `entries` as pages of up to `pageCapacity` records (one insert), then deletes the pages that fell
    /// beyond the retention (one delete).
    func write(_ entries: [Entry]) async throws {
        let written = pages(of: entries)
        let version = collection.writeVersion
        let before = version.current
        do {
            try await collection.insertMany(encoded: written.map(\.document))
        } catch {
            contents.withLock { $0 = nil }  // some pages may be in: read them again next time
            throw error
        }
        // Each write through the store moves the version by one: by exactly one here, the insert was the only one.
        var last: UInt64? = version.current == before &+ 1 ? version.current : nil
        var contents = try await current(
            adding: written.map { ($0.key, $0.count) }, unchangedSince: last == nil ? nil : before)
        var pruned: [BSON] = []
        while let oldest = contents.pages.first, contents.records - oldest.count >= retention {
            pruned.append(.objectId(oldest.key.id))
            contents.records -= oldest.count
            contents.pages.removeFirst()
        }
        if !pruned.isEmpty {
            let beforeDeleting = version.current
            try await collection.deleteMany(["_id": ["$in": .array(pruned)]])
            last = last == beforeDeleting && version.current == beforeDeleting &+ 1 ? version.current : nil
        }
        contents.version = last
        self.contents.withLock { [contents] in $0 = contents }
    }

    /// The pages as the store holds them: those kept in memory plus `written` when the kept ones are as this log's
    /// last write left them (`version`) and nothing but `written` was written since `unchangedSince`; otherwise
    /// read from the store. Until the caller puts them back, nothing is kept, so that a write that fails on the way
    /// makes the next one read the store.
    private func current(adding written: [(key: LogOrder.Key, count: Int)], unchangedSince: UInt64?) async throws
        -> Contents
    {
        if var kept = contents.withLock({ $0.take() }), let unchangedSince, kept.version == unchangedSince {
            kept.pages += written
            kept.records += written.reduce(0) { $0 + $1.count }
            return kept
        }
        var read = Contents()
        // `start`: a record stored alone, in the earlier layout.
        let headers = try await collection.find(
            [:], options: FindOptions(projection: ["lastStart": 1, "count": 1, "start": 1])
        ).toArray()
        for header in headers {
            if let page = Self.header(header) {
                read.pages.append(page)
                read.records += page.count
            } else {
                read.others += 1
            }
        }
        read.pages.sort { $0.key < $1.key }
        return read
    }

    /// A page's newest start, id and record count (or a record's stored alone, see `singleRecordHeader`).
    private static func header(_ document: BSONDocument) -> (key: LogOrder.Key, count: Int)? {
        guard case .objectId(let id) = document["_id"] else { return nil }
        if case .datetime(let last) = document["lastStart"], let count = document["count"]?.int64Value {
            return (LogOrder.Key(time: last, id: id), Int(count))
        }
        return singleRecordHeader(document, id: id)
    }

    /// `entries` cut into pages of at most `pageCapacity` records and about `pageBytes` bytes, each encoded.
    private func pages(of entries: [Entry]) -> [(document: EncodedDocument, key: LogOrder.Key, count: Int)] {
        var pages: [(document: EncodedDocument, key: LogOrder.Key, count: Int)] = []
        var start = entries.startIndex
        while start < entries.endIndex {
            var end = start
            var bytes = 0
            while end < entries.endIndex, end - start < pageCapacity,
                end == start || bytes + entries[end].document.bytes.count <= Self.pageBytes
            {
                bytes += entries[end].document.bytes.count
                end += 1
            }
            let page = entries[start..<end]
            let first = page.lazy.map(\.start).min()!
            let last = page.lazy.map(\.start).max()!
            let document = EncodedDocument(capacity: bytes + 8 * page.count + 80) { writer in
                writer.append("firstStart", first)
                writer.append("lastStart", last)
                writer.append("count", Int64(page.count))
                writer.append("records", documents: page.map(\.document.bytes))
            }
            pages.append((document, LogOrder.Key(time: last, id: document.id), page.count))
            start = end
        }
        return pages
    }

    /// The newest `limit` records matching `filter` (by start, then id), oldest first.
    func latest(_ filter: InvocationFilter, limit: Int) async throws -> [InvocationRecord] {
        guard limit > 0 else { return [] }
        let pages = try await collection.find().toArray().map { StoredPage($0) }.sorted { $0.newerThan($1) }
        var found: [InvocationRecord] = []
        for page in pages {
            // Pages hold runs in the order they ended, so their ranges overlap: a page may still hold a match
            // newer than the oldest found while its newest start is not older than that.
            if found.count >= limit, let oldest = found.last, page.last < oldest.start { break }
            guard filter.mayMatch(first: page.first, last: page.last) else { continue }
            for document in page.records {
                let record = try InvocationRecord(document: document)
                if filter.matches(record) { found.append(record) }
            }
            if found.count >= limit {
                found.sort { ($0.start, $0.id) > ($1.start, $1.id) }
                found.removeLast(found.count - limit)
            }
        }
        return found.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
    }

    /// A stored page (or a record stored alone, read as a page of one: `init(singleRecord:)`).
    struct StoredPage {
        let first: Date
        let last: Date
        let id: BSON
        let records: [BSONDocument]

        init(id: BSON, first: Date, last: Date, records: [BSONDocument]) {
            self.id = id
            self.first = first
            self.last = last
            self.records = records
        }

        init(_ document: BSONDocument) {
            guard let records = document["records"]?.arrayValue else {
                self.init(singleRecord: document)
                return
            }
            self.init(
                id: document["_id"] ?? .null, first: Self.date(document["firstStart"]) ?? .distantPast,
                last: Self.date(document["lastStart"]) ?? .distantFuture, records: records.compactMap(\.documentValue))
        }

        func newerThan(_ other: StoredPage) -> Bool {
            last != other.last ? last > other.last : BSON.compare(id, other.id) > 0
        }

        static func date(_ value: BSON?) -> Date? {
            if case .datetime(let date) = value { date.date } else { nil }
        }
    }
}
