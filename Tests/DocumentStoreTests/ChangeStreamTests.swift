import BSON
import Foundation
import Testing

@testable import DocumentStore

@Suite struct ChangeStreamTests {
    @Test(arguments: EngineKind.allCases) func insertEventHasMongoDBShape(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let books = store.database("app").collection("books")
            let stream = try await books.watch()
            try await books.insertOne(["_id": 1, "title": "Dune"])
            let event = try #require(try await next(1, from: stream).first)
            #expect(event.operationType == .insert)
            #expect(
                event.raw.keys == [
                    "_id", "operationType", "clusterTime", "wallTime", "fullDocument", "ns", "documentKey",
                ])
            #expect(event.raw["_id"] == .document(event.id.document))
            #expect(event.id.data.count == 16)
            #expect(event.namespace == Namespace(database: "app", collection: "books"))
            #expect(event.documentKey == ["_id": 1])
            #expect(event.fullDocument == ["_id": 1, "title": "Dune"])
            #expect(event.clusterTime != nil)
            let wall = try #require(event.wallTime).millisecondsSinceEpoch
            #expect(abs(Double(wall) / 1000 - Date().timeIntervalSince1970) < 60)
        }
    }

    @Test(arguments: EngineKind.allCases) func internalDatabasesAreNotChangeLogged(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            // With the expanded events: internal collections log no `create` either.
            let stream = try await store.watch(options: ChangeStreamOptions(showExpandedEvents: true))
            for database in ["local", "admin", "config"] {
                try await store.database(database).collection("state").insertOne(["_id": 1])
                try await store.database(database).collection("state").updateOne(
                    ["_id": 1], ["$set": ["x": 2]])
            }
            try await store.database("app").collection("books").insertOne(["_id": 7])
            let event = try #require(try await next(1, from: stream).first)
            #expect(event.namespace == Namespace(database: "app", collection: "books"))
            #expect(event.operationType == .create)
            #expect(event.id.sequence == 1)
            #expect(try await store.database("local").collection("state").findOne(["_id": 1]) == ["_id": 1, "x": 2])
        }
    }

    @Test(arguments: EngineKind.allCases) func streamsReplayThenFollowLiveWithoutGapOrDuplicate(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let stream = try await store.watch()
            try await c.insertMany((0..<20).map { ["_id": .int32(Int32($0))] })
            let writer = Task {
                for i in 20..<60 { try await c.insertOne(["_id": .int32(Int32(i))]) }
            }
            let events = try await next(60, from: stream)
            try await writer.value
            #expect(events.map { $0.documentKey?["_id"] } == (0..<60).map { .int32(Int32($0)) })
            let sequences = events.map(\.id.sequence)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 + 1 })
        }
    }

    @Test(arguments: EngineKind.allCases) func resumingYieldsExactlyTheEventsAfterTheToken(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let stream = try await c.watch()
            for i in 0..<10 { try await c.insertOne(["_id": .int32(Int32(i))]) }
            let events = try await next(10, from: stream)
            for (position, event) in events.enumerated() {
                let resumed = try await c.watch(options: ChangeStreamOptions(resumeAfter: event.id))
                let rest = try await next(9 - position, from: resumed)
                #expect(rest.map(\.id) == events[(position + 1)...].map(\.id))
            }
            // Nothing more after the last one: a new write is the next event.
            let tail = try await c.watch(options: ChangeStreamOptions(resumeAfter: events.last!.id))
            try await c.insertOne(["_id": 99])
            #expect(try await next(1, from: tail).first?.documentKey == ["_id": 99])
        }
    }

    @Test(arguments: EngineKind.allCases) func dropRenameAndDropDatabaseEvents(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let app = store.database("app")
            try await app.collection("a").insertOne(["_id": 1])
            try await app.collection("b").insertOne(["_id": 1])
            let all = try await store.watch()
            let onA = try await app.collection("a").watch()
            let onB = try await app.collection("b").watch()
            let onApp = try await app.watch()

            try await app.collection("a").rename(to: "a2")
            try await app.collection("b").drop()
            try await app.drop()

            let events = try await next(4, from: all)
            #expect(events.map(\.operationType) == [.rename, .drop, .drop, .dropDatabase])
            #expect(events[0].namespace == Namespace(database: "app", collection: "a"))
            #expect(events[0].to == Namespace(database: "app", collection: "a2"))
            #expect(events[0].raw.keys == ["_id", "operationType", "clusterTime", "wallTime", "ns", "to"])
            #expect(events[2].namespace == Namespace(database: "app", collection: "a2"))
            #expect(events[3].raw["ns"] == ["db": "app"])

            var aEvents: [ChangeEvent.OperationType] = []
            for try await event in onA { aEvents.append(event.operationType) }
            #expect(aEvents == [.rename, .invalidate])
            var bEvents: [ChangeEvent] = []
            for try await event in onB { bEvents.append(event) }
            #expect(bEvents.map(\.operationType) == [.drop, .invalidate])
            let invalidate = bEvents[1].id
            #expect(invalidate.isInvalidate)
            var appEvents: [ChangeEvent.OperationType] = []
            for try await event in onApp { appEvents.append(event.operationType) }
            #expect(appEvents == [.rename, .drop, .drop, .dropDatabase, .invalidate])

            // After an invalidate only startAfter can continue.
            await expectStoreError(.invalidResumeToken) {
                _ = try await app.collection("b").watch(options: ChangeStreamOptions(resumeAfter: invalidate))
            }
            let restarted = try await app.collection("b").watch(options: ChangeStreamOptions(startAfter: invalidate))
            try await app.collection("b").insertOne(["_id": 2])
            #expect(try await next(1, from: restarted).first?.documentKey == ["_id": 2])
        }
    }

    @Test(arguments: EngineKind.allCases) func resumingBeforeRetainedHistoryFails(kind: EngineKind) async throws {
        try await withStore(kind, configure: { $0.changeLogRetention = ChangeLogRetention(maximumEvents: 5) }) {
            store in
            // Created first, so that its `create` event is the oldest entry and the inserts are the five after it.
            let c = try await store.database("app").createCollection("c")
            let start = try await c.watch().startingPoint
            for i in 0..<5 { try await c.insertOne(["_id": .int32(Int32(i))]) }
            let first = try await next(1, from: try await c.watch(options: ChangeStreamOptions(resumeAfter: start)))
            for i in 5..<12 { try await c.insertOne(["_id": .int32(Int32(i))]) }
            let error = await expectStoreError(.changeStreamHistoryLost) {
                _ = try await c.watch(options: ChangeStreamOptions(resumeAfter: first[0].id))
            }
            #expect(error?.codeName == "ChangeStreamHistoryLost")
            // The newest five events are kept and still resumable.
            let kept = try await next(
                4, from: try await c.watch(options: ChangeStreamOptions(resumeAfter: ResumeToken(sequence: 9))))
            #expect(kept.map { $0.documentKey?["_id"] } == [8, 9, 10, 11])
        }
    }

    @Test(arguments: EngineKind.allCases) func retentionByBytesAndAge(kind: EngineKind) async throws {
        try await withStore(
            kind, configure: { $0.changeLogRetention = ChangeLogRetention(maximumAgeSeconds: nil, maximumBytes: 2_000) }
        ) {
            store in
            let c = store.database("app").collection("c")
            for i in 0..<40 {
                try await c.insertOne(["_id": .int32(Int32(i)), "pad": .string(String(repeating: "x", count: 100))])
            }
            let summary = try await store.worker.read { core in (core.logBytes, core.logCount, core.prunedThrough) }
            #expect(summary.0 <= 2_000 && summary.1 > 0 && summary.2 > 0)
            await expectStoreError(.changeStreamHistoryLost) {
                _ = try await c.watch(options: ChangeStreamOptions(resumeAfter: ResumeToken(sequence: 1)))
            }
        }
        try await withStore(kind, configure: { $0.changeLogRetention = ChangeLogRetention(maximumAgeSeconds: 0.05) }) {
            store in
            let c = store.database("app").collection("c")
            try await c.insertOne(["_id": 1])
            try await Task.sleep(for: .milliseconds(120))
            try await c.insertOne(["_id": 2])
            await expectStoreError(.changeStreamHistoryLost) {
                _ = try await c.watch(options: ChangeStreamOptions(resumeAfter: ResumeToken(sequence: 0)))
            }
        }
    }

    @Test(arguments: EngineKind.durable) func preImagesSurviveRestart(kind: EngineKind) async throws {
        let directory = TemporaryDirectory()
        let config = try await configuration(kind, directory: directory)
        var store = try await DocumentStore.open(config)
        let app = store.database("app")
        try await app.createCollection("books", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
        let start = try await app.watch().startingPoint
        try await app.collection("books").insertOne(["_id": 1, "title": "Dune"])
        try await app.collection("books").deleteOne(["_id": 1])
        await store.close()

        store = try await DocumentStore.open(config)
        let stream = try await store.database("app").collection("books").watch(
            options: ChangeStreamOptions(fullDocumentBeforeChange: .required, resumeAfter: start))
        let events = try await next(2, from: stream)
        #expect(events.map(\.operationType) == [.insert, .delete])
        #expect(events[1].fullDocumentBeforeChange == ["_id": 1, "title": "Dune"])
        #expect(
            events[1].raw.keys == [
                "_id", "operationType", "clusterTime", "wallTime", "ns", "documentKey", "fullDocumentBeforeChange",
            ])
        await store.close()
    }

    // MARK: Needing update operators and pipelines

    @Test(arguments: EngineKind.allCases) func updateReplaceDeleteEventsWithImages(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let app = store.database("app")
            try await app.createCollection(
                "books", options: CreateCollectionOptions(changeStreamPreAndPostImages: true))
            let books = app.collection("books")
            let start = try await books.watch().startingPoint
            try await books.insertOne(["_id": 1, "volumeInfo": ["title": "Dune", "pages": 412]])
            try await books.updateOne(["_id": 1], ["$set": ["volumeInfo.title": "Dune Messiah"]])
            try await books.replaceOne(["_id": 1], ["title": "Emma"])
            try await books.deleteOne(["_id": 1])

            let plain = try await next(4, from: try await books.watch(options: ChangeStreamOptions(resumeAfter: start)))
            #expect(plain.map(\.operationType) == [.insert, .update, .replace, .delete])
            #expect(
                plain[1].updateDescription == UpdateDescription(updatedFields: ["volumeInfo.title": "Dune Messiah"]))
            #expect(plain[1].fullDocument == nil && plain[1].fullDocumentBeforeChange == nil)
            #expect(plain[2].fullDocument == ["_id": 1, "title": "Emma"])
            #expect(plain[3].documentKey == ["_id": 1] && plain[3].fullDocument == nil)

            let imaged = try await next(
                4,
                from: try await books.watch(
                    options: ChangeStreamOptions(
                        fullDocument: .required, fullDocumentBeforeChange: .required, resumeAfter: start)))
            #expect(imaged[1].fullDocument == ["_id": 1, "volumeInfo": ["title": "Dune Messiah", "pages": 412]])
            #expect(imaged[1].fullDocumentBeforeChange == ["_id": 1, "volumeInfo": ["title": "Dune", "pages": 412]])
            #expect(
                imaged[2].fullDocumentBeforeChange == [
                    "_id": 1, "volumeInfo": ["title": "Dune Messiah", "pages": 412],
                ])
            #expect(imaged[3].fullDocumentBeforeChange == ["_id": 1, "title": "Emma"])
        }
    }

    @Test(arguments: EngineKind.allCases) func fullDocumentOptionsWithoutRecordedImages(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let start = try await c.watch().startingPoint
            try await c.insertOne(["_id": 1, "n": 1])
            try await c.updateOne(["_id": 1], ["$inc": ["n": 1]])
            try await c.updateOne(["_id": 1], ["$inc": ["n": 1]])
            let lookup = try await next(
                3,
                from: try await c.watch(options: ChangeStreamOptions(fullDocument: .updateLookup, resumeAfter: start)))
            // updateLookup reads the document as it is now.
            #expect(lookup[1].fullDocument == ["_id": 1, "n": 3])
            let available = try await next(
                3,
                from: try await c.watch(
                    options: ChangeStreamOptions(
                        fullDocument: .whenAvailable, fullDocumentBeforeChange: .whenAvailable, resumeAfter: start)))
            #expect(available[1].raw["fullDocument"] == .null && available[1].raw["fullDocumentBeforeChange"] == .null)
            let required = try await c.watch(
                options: ChangeStreamOptions(fullDocumentBeforeChange: .required, resumeAfter: start))
            await expectStoreError(.noMatchingDocument) { _ = try await next(2, from: required) }
        }
    }

    @Test(arguments: EngineKind.allCases) func pipelineFiltersAndReshapesEvents(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let stream = try await c.watch([
                ["$match": ["operationType": "insert", "fullDocument.keep": true]],
                ["$project": ["operationType": 1, "fullDocument._id": 1]],
            ])
            try await c.insertMany([["_id": 1, "keep": false], ["_id": 2, "keep": true]])
            try await c.deleteOne(["_id": 2])
            try await c.insertOne(["_id": 3, "keep": true])
            let events = try await next(2, from: stream)
            #expect(events.map(\.fullDocument) == [["_id": 2], ["_id": 3]])
            #expect(events[0].raw.keys == ["_id", "operationType", "fullDocument"])
            #expect(events[0].namespace == nil)
        }
    }

    /// A stream following the log's end gets the newest events from memory; the same events read back
    /// from the log (a stream with a pipeline reads only the log) must be identical, for every kind.
    @Test(arguments: EngineKind.allCases) func liveEventsEqualTheSameEventsReadFromTheLog(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let app = store.database("app")
            let c = app.collection("c")
            let live = try await store.watch()
            let start = live.startingPoint
            try await c.insertOne(["title": "no _id given", "tags": ["a", "b"], "n": .int64(1)])
            try await c.insertOne(["n": 2, "_id": "given, not first", "nested": ["x": ["y": .null]]])
            try await c.insertOne([
                "_id": ["compound": 1], "pattern": .regex(BSONRegularExpression(pattern: "a", options: "mi")),
            ])
            try await c.updateOne(["_id": "given, not first"], ["$set": ["nested.x.y": 3]])
            try await c.replaceOne(["_id": ["compound": 1]], ["replaced": true])
            try await c.deleteOne(["n": 2])
            try await c.rename(to: "d")
            try await app.drop()
            let events = try await next(9, from: live)
            #expect(
                events.map(\.operationType) == [
                    .insert, .insert, .insert, .update, .replace, .delete, .rename, .drop, .dropDatabase,
                ])
            let fromLog = try await next(
                9, from: try await store.watch([["$match": [:]]], options: ChangeStreamOptions(resumeAfter: start)))
            #expect(fromLog.map(\.raw) == events.map(\.raw))
            #expect(fromLog == events)
            #expect(
                events[0].raw.keys == [
                    "_id", "operationType", "clusterTime", "wallTime", "fullDocument", "ns", "documentKey",
                ])
            #expect(events[1].fullDocument?.keys.first == "_id")
        }
    }

    /// The store keeps only the newest events in memory: a stream further behind reads the log, and still
    /// gets every event once, in order.
    @Test(arguments: EngineKind.allCases) func aStreamBehindTheEventsInMemoryReadsTheLog(kind: EngineKind) async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let stream = try await c.watch()
            let count = ChangeNotifier.recentCapacity + 500
            try await c.insertMany((0..<count).map { ["_id": .int32(Int32($0))] })
            try await c.insertOne(["_id": .int32(Int32(count))])
            let events = try await next(count + 1, from: stream)
            #expect(events.map { $0.documentKey?["_id"] } == (0...count).map { .int32(Int32($0)) })
        }
    }

    /// A backlog of many batches, inserts and updates interleaved (events built in memory and decoded), arrives
    /// once each and in commit order, whether the stream reads it from memory or, behind that, from the log.
    @Test(arguments: EngineKind.allCases) func aBacklogOfManyBatchesArrivesOnceEachInOrder(kind: EngineKind)
        async throws
    {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let fromMemory = try await c.watch(options: ChangeStreamOptions(batchSize: 7))
            let count = 100
            for i in 0..<count {
                try await c.insertOne(["_id": .int32(Int32(i))])
                try await c.updateOne(["_id": .int32(Int32(i))], ["$set": ["seen": true]])
            }
            let expected = (0..<count).flatMap { i -> [String] in
                let id = BSON.int32(Int32(i))
                return ["insert \(id)", "update \(id)"]
            }
            func described(_ events: [ChangeEvent]) -> [String] {
                events.map { "\($0.operationType.rawValue) \($0.documentKey?["_id"] ?? .null)" }
            }
            #expect(described(try await next(2 * count, from: fromMemory)) == expected)
            // Resumed from the start, the same backlog read back from the log.
            let fromLog = try await c.watch(
                options: ChangeStreamOptions(resumeAfter: fromMemory.startingPoint, batchSize: 7))
            #expect(described(try await next(2 * count, from: fromLog)) == expected)
        }
    }

    /// A stream following the log's end with `updateLookup` sees each insert as inserted, each update with the
    /// document as it is when the event is read, and each delete without a document.
    @Test(arguments: EngineKind.allCases) func anUpdateLookupStreamFollowingCommitsReadsTheUpdatedDocuments(
        kind: EngineKind
    ) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            var iterator = try await c.watch(options: ChangeStreamOptions(fullDocument: .updateLookup))
                .makeAsyncIterator()
            try await c.insertOne(["_id": 1, "n": 1])
            #expect(try await iterator.next()?.fullDocument == ["_id": 1, "n": 1])
            try await c.updateOne(["_id": 1], ["$inc": ["n": 1]])
            let update = try await iterator.next()
            #expect(update?.operationType == .update && update?.fullDocument == ["_id": 1, "n": 2])
            // Two updates committed before the stream reads them: both show the document as it is now.
            try await c.updateOne(["_id": 1], ["$inc": ["n": 1]])
            try await c.updateOne(["_id": 1], ["$set": ["done": true]])
            try await c.insertOne(["_id": 2])
            try await c.deleteOne(["_id": 2])
            var events: [ChangeEvent] = []
            for _ in 0..<4 { events.append(try #require(try await iterator.next())) }
            #expect(events.map(\.operationType) == [.update, .update, .insert, .delete])
            #expect(events[0].fullDocument == ["_id": 1, "n": 3, "done": true])
            #expect(events[1].fullDocument == ["_id": 1, "n": 3, "done": true])
            #expect(events[2].fullDocument == ["_id": 2])
            #expect(events[3].fullDocument == nil && events[3].documentKey == ["_id": 2])
        }
    }

    /// A commit wakes only a stream that is waiting: the events committed while its consumer is busy
    /// elsewhere are all there when it asks again, once each and in order.
    @Test(arguments: EngineKind.allCases) func eventsCommittedWhileTheConsumerIsBusyAllArriveInOrder(
        kind: EngineKind
    ) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            var iterator = try await c.watch().makeAsyncIterator()
            try await c.insertOne(["_id": 0])
            #expect(try await iterator.next()?.documentKey == ["_id": 0])
            // The consumer is busy (not waiting) while these commit, one transaction each.
            for i in 1...300 { try await c.insertOne(["_id": .int32(Int32(i))]) }
            var ids: [BSON?] = []
            for _ in 1...300 { ids.append(try await iterator.next()?.documentKey?["_id"]) }
            #expect(ids == (1...300).map { .int32(Int32($0)) })
        }
    }

    /// Each insert lands just as the consumer, having taken the one before, goes back to wait: none may
    /// be missed (a lost wakeup would leave the consumer waiting for good).
    @Test(.timeLimit(.minutes(1)), arguments: EngineKind.allCases)
    func aCommitJustAsTheConsumerWaitsWakesIt(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let c = store.database("app").collection("c")
            let stream = try await c.watch()
            let (received, receiver) = AsyncStream.makeStream(of: BSON?.self)
            let consumer = Task {
                for try await event in stream {
                    receiver.yield(event.documentKey?["_id"])
                }
            }
            var acknowledgements = received.makeAsyncIterator()
            var mismatch: (sent: Int, received: BSON?)?
            for i in 0..<500 where mismatch == nil {
                try await c.insertOne(["_id": .int32(Int32(i))])
                let id = await acknowledgements.next() ?? nil
                if id != .int32(Int32(i)) { mismatch = (i, id) }
            }
            consumer.cancel()
            #expect(mismatch == nil)
        }
    }

    /// A stream waiting for the next commit ends when its task is cancelled, and when the store closes.
    @Test(arguments: EngineKind.allCases) func aWaitingStreamEndsOnCancellationAndOnClose(kind: EngineKind)
        async throws
    {
        let directory = TemporaryDirectory()
        let store = try await DocumentStore.open(try await configuration(kind, directory: directory))
        let c = store.database("app").collection("c")
        let first = try await c.watch()
        let cancelled = Task { try await next(1, from: first).count }
        let second = try await c.watch()
        let closed = Task { try await next(1, from: second).count }
        try await Task.sleep(for: .milliseconds(20))
        cancelled.cancel()
        #expect(try await cancelled.value == 0)
        await store.close()
        #expect(try await closed.value == 0)
    }
}
