import BSON
import DocumentStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Switchyard

@Suite struct RuntimeDatabaseTriggerTests {
    @Test(arguments: StoreKind.allCases) func routesByNamespaceOperationMatchAndProject(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [
                    databaseTrigger("bookInserts", operations: [.insert]),
                    databaseTrigger("appChanges", scope: .database("app"), operations: [.update, .delete]),
                    databaseTrigger("everything", scope: .deployment),
                    databaseTrigger(
                        "scienceFiction", operations: [.insert, .update], match: ["fullDocument.genre": "sf"],
                        project: ["operationType": 1, "fullDocument.title": 1]),
                ]
            ) { log.record($0) }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "genre": "sf", "title": "Dune"])
            try await books.insertOne(["_id": 2, "genre": "drama", "title": "Middlemarch"])
            try await books.updateOne(["_id": 1], ["$set": ["year": 1965]])
            try await books.deleteOne(["_id": 2])
            try await store.database("app").collection("authors").insertOne(["_id": 3])
            try await store.database("app").collection("authors").updateOne(["_id": 3], ["$set": ["x": 1]])
            try await store.database("other").collection("books").insertOne(["_id": 4])
            try await runtime.awaitIdle()

            #expect(log.keys("bookInserts") == [1, 2])
            #expect(log.events("appChanges").map(\.operationType) == [.update, .delete, .update])
            #expect(log.keys("appChanges") == [1, 2, 3])
            #expect(log.keys("everything") == [1, 2, 1, 2, 3, 3, 4])
            // Only the sf insert matched (the update carries no fullDocument without `fullDocument: true`),
            // projected to the fields asked for; _id (the resume token) stays.
            let projected = log.events("scienceFiction")
            #expect(projected.count == 1)
            #expect(projected.first?.raw.keys == ["_id", "operationType", "fullDocument"])
            #expect(projected.first?.fullDocument == ["title": "Dune"])
            #expect(projected.first?.namespace == nil)
            #expect(log.of("scienceFiction").first?.eventId == projected.first?.id.data)
            await runtime.stop()
        }
    }

    @Test(arguments: StoreKind.allCases) func ddlTriggersReceiveTheirEvents(kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [
                    databaseTrigger("indexes", scope: .database("app"), operations: [.createIndexes]),
                    databaseTrigger(
                        "lifecycle", scope: .database("app"), operations: [.createCollection, .dropCollection]),
                    databaseTrigger("documents", scope: .database("app"), operations: [.insert]),
                    databaseTrigger("sharding", scope: .deployment, operations: [.shardCollection]),
                    databaseTrigger("databases", scope: .deployment, operations: [.dropDatabase]),
                ]
            ) { log.record($0) }
            try await runtime.start()
            let app = store.database("app")
            try await app.createCollection("books")
            try await app.collection("authors").insertOne(["_id": 1])
            _ = try await app.collection("books").createIndex(["title": 1])
            try await app.collection("books").drop()
            try await store.database("other").createCollection("elsewhere")
            try await store.dropDatabase("other")
            try await runtime.awaitIdle()

            let lifecycle = log.events("lifecycle")
            #expect(lifecycle.map(\.operationType) == [.create, .create, .drop])
            #expect(lifecycle.map(\.namespace?.collection) == ["books", "authors", "books"])
            #expect(lifecycle.first?.operationDescription == ["idIndex": ["v": 2, "key": ["_id": 1], "name": "_id_"]])
            let indexes = log.events("indexes")
            #expect(indexes.map(\.operationType) == [.createIndexes])
            #expect(indexes.first?.namespace == Namespace(database: "app", collection: "books"))
            #expect(
                indexes.first?.operationDescription == ["indexes": [["v": 2, "key": ["title": 1], "name": "title_1"]]])
            #expect(log.of("indexes").first?.eventId == indexes.first?.id.data)
            #expect(log.keys("documents") == [1])
            #expect(log.events("databases").map(\.raw["ns"]) == [["db": "other"]])
            // Switchyard has no sharding: the trigger is accepted and never fires.
            #expect(log.of("sharding").isEmpty)
            await runtime.stop()
        }
    }

    @Test func fullDocumentLooksUpUpdatesAndPreImagesNeedACollectionThatRecordsThem() async throws {
        try await withStore(.memory) { store, _ in
            // Created before the runtime, without pre-images: its events carry a null pre-image.
            try await store.database("app").collection("older").insertOne(["_id": 9, "n": 0])
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [
                    databaseTrigger(
                        "withImages", operations: [.update, .delete], fullDocument: true, fullDocumentBeforeChange: true
                    ),
                    databaseTrigger("plain", operations: [.update]),
                    databaseTrigger(
                        "older", scope: .collection(database: "app", collection: "older"), operations: [.update],
                        fullDocumentBeforeChange: true),
                ]
            ) { log.record($0) }
            try await runtime.start()
            try await runtime.awaitIdle()  // the trigger created app.books with pre-images enabled
            // Written while stopped, so the update is looked up (at delivery) after the delete.
            await runtime.stop()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "n": 1])
            try await books.updateOne(["_id": 1], ["$set": ["n": 2]])
            try await books.deleteOne(["_id": 1])
            try await store.database("app").collection("older").updateOne(["_id": 9], ["$set": ["n": 1]])
            try await runtime.start()
            try await runtime.awaitIdle()

            let events = log.events("withImages")
            #expect(events.map(\.operationType) == [.update, .delete])
            // Looked up when delivered: the document was deleted by then.
            #expect(events.first?.raw["fullDocument"] == .null)
            #expect(events.first?.fullDocumentBeforeChange == ["_id": 1, "n": 1])
            #expect(events.last?.fullDocumentBeforeChange == ["_id": 1, "n": 2])
            #expect(log.events("plain").first?.raw["fullDocument"] == nil)
            #expect(log.events("older").first?.raw["fullDocumentBeforeChange"] == .null)
            await runtime.stop()
        }
    }

    @Test func aWriteRightAfterStartAlreadyRecordsPreImages() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [databaseTrigger("deletes", operations: [.delete], fullDocumentBeforeChange: true)]
            ) { log.record($0) }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "title": "Dune"])
            try await books.deleteOne(["_id": 1])
            try await runtime.awaitIdle()
            #expect(log.events("deletes").map(\.fullDocumentBeforeChange) == [["_id": 1, "title": "Dune"]])
            await runtime.stop()
        }
    }

    @Test func fullDocumentIsTheCurrentDocumentWhenItStillExists() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store, definitions: [databaseTrigger("lookup", operations: [.update], fullDocument: true)]
            ) { log.record($0) }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1, "n": 1])
            try await books.updateOne(["_id": 1], ["$set": ["n": 2]])
            try await runtime.awaitIdle()
            let event = try #require(log.events("lookup").first)
            #expect(event.fullDocument == ["_id": 1, "n": 2])
            #expect(event.raw.keys.firstIndex(of: "fullDocument")! < event.raw.keys.firstIndex(of: "ns")!)
            await runtime.stop()
        }
    }

    @Test(arguments: StoreKind.allCases) func orderedTriggerDeliversOneAtATimeInCommitOrder(kind: StoreKind)
        async throws
    {
        try await withStore(kind) { store, _ in
            let log = DeliveryLog()
            let running = Mutex((now: 0, most: 0))
            let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("ordered")]) { invocation in
                running.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                try await Task.sleep(for: .microseconds(200))
                log.record(invocation)
                running.withLock { $0.now -= 1 }
            }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for i in 0..<40 { try await books.insertOne(["_id": .string("w\(writer)-\(i)")]) }
                    }
                }
                try await group.waitForAll()
            }
            try await runtime.awaitIdle()

            let sequences = log.events("ordered").map(\.id.sequence)
            #expect(sequences.count == 160)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "out of commit order")
            // The commit order is the change log's: the same order a plain change stream reads.
            let stream = try await books.watch(options: ChangeStreamOptions(resumeAfter: ResumeToken(sequence: 0)))
            var logged: [BSON] = []
            for try await event in stream {
                logged.append(event.documentKey?["_id"] ?? .null)
                if logged.count == 160 { break }
            }
            #expect(log.keys("ordered") == logged)
            #expect(running.withLock { $0.most } == 1)
            await runtime.stop()
        }
    }

    @Test func unorderedTriggerRunsAtMostMaxConcurrencyAtOnce() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let running = Mutex((now: 0, most: 0))
            let runtime = TriggerRuntime(
                store: store, definitions: [databaseTrigger("parallel", delivery: .unordered(maxConcurrency: 3))]
            ) { invocation in
                let now = running.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                    return $0.now
                }
                // Hold the first ones until three run together (or give up after a while).
                if now < 3 {
                    for _ in 0..<2000 where running.withLock({ $0.most }) < 3 {
                        try await Task.sleep(for: .milliseconds(1))
                    }
                }
                log.record(invocation)
                running.withLock { $0.now -= 1 }
            }
            try await runtime.start()
            try await store.database("app").collection("books").insertMany((0..<60).map { ["_id": .int32(Int32($0))] })
            try await runtime.awaitIdle()
            #expect(Set(log.keys("parallel")) == Set((0..<60).map { BSON.int32(Int32($0)) }))
            #expect(running.withLock { $0.most } == 3)
            let status = try await runtime.status(of: "parallel")
            #expect(status.processed == 60 && status.pendingLogEntries == 0 && status.inFlight == 0)
            await runtime.stop()
        }
    }

    @Test func unorderedTokenStopsBeforeTheOldestUnfinishedEvent() async throws {
        try await withStore(.memory) { store, _ in
            let release = Mutex(false)
            let runtime = TriggerRuntime(
                store: store, definitions: [databaseTrigger("parallel", delivery: .unordered(maxConcurrency: 4))]
            ) { invocation in
                guard case .database(let event) = invocation.input, event.documentKey?["_id"] == 3 else { return }
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            }
            try await runtime.start()
            let books = store.database("app").collection("books")
            var tokens: [BSON: Int64] = [:]
            let stream = try await books.watch()
            for i in 1...8 { try await books.insertOne(["_id": .int32(Int32(i))]) }
            for try await event in stream {
                tokens[event.documentKey?["_id"] ?? .null] = event.id.sequence
                if tokens.count == 8 { break }
            }
            // Everything but 3 finishes; the saved token must not pass 3.
            var status = try await runtime.status(of: "parallel")
            while status.processed < 7 {
                try await Task.sleep(for: .milliseconds(1))
                status = try await runtime.status(of: "parallel")
            }
            await runtime.progress["parallel"]?.flush()
            #expect(try await runtime.savedState("parallel")?.position == tokens[3]! - 1)
            release.withLock { $0 = true }
            try await runtime.awaitIdle()
            #expect(try await runtime.savedState("parallel")?.position == tokens[8]!)
            await runtime.stop()
        }
    }

    /// Functions run inline in their trigger's task: stopping while one runs must neither cancel it nor
    /// return before it finished, and the token saved on the way out covers its event, so a restart does
    /// not deliver it again. No further event starts once stopping began.
    @Test(arguments: [DeliveryOrder.ordered, .unordered(maxConcurrency: 2)])
    func stopLetsARunningFunctionFinishUncancelledAndSavesItsToken(order: DeliveryOrder) async throws {
        try await withStore(.sqlite) { store, _ in
            let log = DeliveryLog()
            let entered = AsyncStream.makeStream(of: Void.self)
            let release = Mutex(false)
            let stopReturned = Mutex(false)
            let handler: TriggerHandler = { invocation in
                guard case .database(let event) = invocation.input, event.documentKey?["_id"] == 1,
                    invocation.attempt == 1
                else {
                    log.record(invocation)
                    return
                }
                entered.continuation.yield()
                // Throws if the stop cancelled this task: the attempt would fail and no retry would start.
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                log.record(invocation)
            }
            let definitions = [databaseTrigger("slow", delivery: order)]
            let runtime = TriggerRuntime(store: store, definitions: definitions, handler: handler)
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1])
            var waiting = entered.stream.makeAsyncIterator()
            _ = await waiting.next()
            if order == .ordered { try await books.insertOne(["_id": 2]) }
            let stopping = Task {
                await runtime.stop()
                stopReturned.withLock { $0 = true }
            }
            try await Task.sleep(for: .milliseconds(20))
            #expect(!stopReturned.withLock { $0 }, "stop returned while a function was still running")
            release.withLock { $0 = true }
            await stopping.value
            #expect(log.keys("slow") == [1], "the function was cut short, or another event started after stop")
            let logEnd = try await store.watch().startingPoint.sequence
            let saved = try await runtime.savedState("slow")?.position
            #expect(saved == (order == .ordered ? logEnd - 1 : logEnd))

            // A restart delivers what was not finished (2, when written) and never 1 again.
            let restarted = TriggerRuntime(store: store, definitions: definitions, handler: handler)
            try await restarted.start()
            try await restarted.awaitIdle()
            #expect(log.keys("slow") == (order == .ordered ? [1, 2] : [1]))
            await restarted.stop()
        }
    }

    @Test func failedAttemptsAreRetriedWithTheSameEventId() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("flaky", retry: .quick(4))]) {
                invocation in
                log.record(invocation)
                if invocation.attempt < 3 { throw InjectedFailure() }
            }
            try await runtime.start()
            try await store.database("app").collection("books").insertOne(["_id": 1])
            try await runtime.awaitIdle()
            let attempts = log.of("flaky")
            #expect(attempts.map(\.attempt) == [1, 2, 3])
            #expect(Set(attempts.map(\.eventId)).count == 1)
            let status = try await runtime.status(of: "flaky")
            #expect(status.processed == 1 && status.failedAttempts == 2 && status.state == .running)
            await runtime.stop()
        }
    }

    @Test func backoffGrowsExponentiallyWithinItsBounds() {
        let policy = RetryPolicy(maxAttempts: 10, initialBackoff: .milliseconds(100), maxBackoff: .seconds(1))
        #expect(policy.backoff(afterAttempt: 1, random: 1) == .milliseconds(100))
        #expect(policy.backoff(afterAttempt: 2, random: 1) == .milliseconds(200))
        #expect(policy.backoff(afterAttempt: 4, random: 1) == .milliseconds(800))
        #expect(policy.backoff(afterAttempt: 5, random: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 500, random: 1) == .seconds(1))
        #expect(policy.backoff(afterAttempt: 3, random: 0) == .zero)
        #expect(policy.backoff(afterAttempt: 3, random: 0.5) == .milliseconds(200))
        for attempt in 1...20 {
            let wait = policy.backoff(afterAttempt: attempt)
            #expect(wait >= .zero && wait <= .seconds(1))
        }
    }

    @Test func orderedTriggerSuspendsAfterTheLastAttemptAndResumes() async throws {
        try await withStore(.sqlite) { store, _ in
            let log = DeliveryLog()
            let failing = Mutex<Set<BSON>>([2])
            let handler: TriggerHandler = { invocation in
                log.record(invocation)
                guard case .database(let event) = invocation.input else { return }
                if failing.withLock({ $0.contains(event.documentKey?["_id"] ?? .null) }) { throw InjectedFailure() }
            }
            let definitions = [databaseTrigger("ordered", retry: .quick(2))]
            var runtime = TriggerRuntime(store: store, definitions: definitions, handler: handler)
            try await runtime.start()
            let books = store.database("app").collection("books")
            for i in 1...3 { try await books.insertOne(["_id": .int32(Int32(i))]) }
            try await runtime.awaitIdle()

            var status = try await runtime.status(of: "ordered")
            #expect(status.state == .suspended)
            #expect(status.processed == 1 && status.failedAttempts == 2)
            let failedId = try #require(status.suspension?.failedEventId)
            #expect(log.of("ordered").map(\.attempt) == [1, 1, 2])
            #expect(log.of("ordered").last?.eventId == failedId)
            #expect(status.suspension?.reason.contains("injected failure") == true)

            // The suspension survives a restart; nothing more is delivered.
            await runtime.stop()
            runtime = TriggerRuntime(store: store, definitions: definitions, handler: handler)
            try await runtime.start()
            try await runtime.awaitIdle()
            #expect(try await runtime.status(of: "ordered").state == .suspended)
            #expect(log.keys("ordered") == [1, 2, 2])

            // Resuming from the token delivers the failed event again, then what followed.
            failing.withLock { $0 = [] }
            try await runtime.resume(trigger: "ordered", fromToken: true)
            try await runtime.awaitIdle()
            #expect(log.keys("ordered") == [1, 2, 2, 2, 3])
            status = try await runtime.status(of: "ordered")
            #expect(status.state == .running && status.suspension == nil && status.processed == 3)
            await runtime.stop()
        }
    }

    @Test func resumingWithoutTheTokenSkipsWhatHappenedWhileSuspended() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let failing = Mutex<Set<BSON>>([2, 5])
            let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("ordered", retry: .quick(1))]) {
                invocation in
                guard case .database(let event) = invocation.input else { return }
                if failing.withLock({ $0.contains(event.documentKey?["_id"] ?? .null) }) { throw InjectedFailure() }
                log.record(invocation)
            }
            try await runtime.start()
            let books = store.database("app").collection("books")
            for i in 1...3 { try await books.insertOne(["_id": .int32(Int32(i))]) }
            try await runtime.awaitIdle()
            #expect(try await runtime.status(of: "ordered").state == .suspended)

            try await runtime.resume(trigger: "ordered", fromToken: false)
            try await books.insertOne(["_id": 4])
            try await books.insertOne(["_id": 5])
            try await books.insertOne(["_id": 6])
            try await runtime.awaitIdle()
            #expect(log.keys("ordered") == [1, 4])
            #expect(try await runtime.status(of: "ordered").state == .suspended)

            // Skipping only the failed event goes on with the one after it.
            try await runtime.resume(trigger: "ordered", from: .afterFailedEvent)
            try await runtime.awaitIdle()
            #expect(log.keys("ordered") == [1, 4, 6])
            await #expect(throws: TriggerRuntimeError.self) {
                try await runtime.resume(trigger: "ordered", fromToken: true)
            }
            await runtime.stop()
        }
    }

    @Test func pendingCountsOnlyTheEventsTheTriggerReceives() async throws {
        try await withStore(.memory) { store, _ in
            let trigger = databaseTrigger(
                "english", operations: [.insert, .update], fullDocument: true, match: ["fullDocument.lang": "en"])
            let runtime = TriggerRuntime(store: store, definitions: [trigger]) { _ in }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 0, "lang": "en"])
            try await runtime.awaitIdle()
            try await runtime.suspend(trigger: "english")
            try await books.insertOne(["_id": 1, "lang": "en"])
            try await books.insertOne(["_id": 2, "lang": "fr"])
            try await books.insertOne(["_id": 3, "lang": "fr"])
            // An update matches on the document as it is now (fullDocument is looked up).
            try await books.updateOne(["_id": 3], ["$set": ["lang": "en"]])
            try await books.deleteOne(["_id": 1])
            try await store.database("app").collection("authors").insertOne(["_id": 1, "lang": "en"])
            let pending = try await runtime.status(of: "english").pendingLogEntries
            #expect(pending == 2, "\(String(describing: pending))")
            await runtime.stop()
        }
    }

    /// A running trigger that skipped more entries than a status judges still shows nothing pending once it has
    /// read them, though it saves the position they advance only now and then.
    @Test func aRunningTriggerPastManySkippedEntriesHasNothingPending() async throws {
        try await withStore(.memory) { store, _ in
            let trigger = databaseTrigger("books", operations: [.insert])
            let runtime = TriggerRuntime(store: store, definitions: [trigger]) { _ in }
            try await runtime.start()
            try await store.database("app").collection("books").insertOne(["_id": 1])
            let skipped = TriggerRuntime.pendingScanLimit + 50
            try await store.database("app").collection("authors").insertMany(
                (0..<skipped).map { ["_id": .int32(Int32($0))] })
            var status = try await runtime.status(of: "books")
            for _ in 0..<2_000 where status.processed < 1 || status.pendingLogEntries != 0 {
                try await Task.sleep(for: .milliseconds(10))
                status = try await runtime.status(of: "books")
            }
            #expect(
                status.processed == 1 && status.pendingLogEntries == 0,
                "\(String(describing: status.pendingLogEntries))")
            await runtime.stop()
        }
    }

    @Test func suspendByRequestStopsDeliveryUntilResumed() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("t")]) { log.record($0) }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1])
            try await runtime.awaitIdle()
            try await runtime.suspend(trigger: "t")
            try await books.insertOne(["_id": 2])
            try await runtime.awaitIdle()
            let status = try await runtime.status(of: "t")
            #expect(status.state == .suspended && status.pendingLogEntries == 1)
            #expect(log.keys("t") == [1])
            try await runtime.resume(trigger: "t", fromToken: true)
            try await runtime.awaitIdle()
            #expect(log.keys("t") == [1, 2])
            await #expect(throws: TriggerRuntimeError.self) { try await runtime.suspend(trigger: "nope") }
            await runtime.stop()
        }
    }

    @Test func unorderedTriggerDeadLettersAndRedelivers() async throws {
        try await withStore(.sqlite) { store, _ in
            let log = DeliveryLog()
            let failing = Mutex(true)
            let runtime = TriggerRuntime(
                store: store,
                definitions: [databaseTrigger("parallel", delivery: .unordered(maxConcurrency: 2), retry: .quick(2))]
            ) { invocation in
                log.record(invocation)
                guard case .database(let event) = invocation.input else { return }
                if event.documentKey?["_id"] == 2, failing.withLock({ $0 }) { throw InjectedFailure() }
            }
            try await runtime.start()
            let books = store.database("app").collection("books")
            for i in 1...4 { try await books.insertOne(["_id": .int32(Int32(i)), "title": .string("t\(i)")]) }
            try await runtime.awaitIdle()

            let status = try await runtime.status(of: "parallel")
            #expect(status.state == .running && status.processed == 3 && status.deadLettered == 1)
            #expect(status.failedAttempts == 2 && status.pendingLogEntries == 0)
            let letters = try await runtime.deadLetters(trigger: "parallel")
            #expect(letters.count == 1)
            let letter = try #require(letters.first)
            #expect(letter.attempts == 2 && letter.error == "injected failure")
            guard case .database(let event) = letter.input else {
                Issue.record("not a database event: \(letter.input)")
                return
            }
            #expect(event.fullDocument == ["_id": 2, "title": "t2"])
            #expect(event.id.data == letter.eventId && event.operationType == .insert)

            // Still failing: it stays, with its attempts counted on.
            await #expect(throws: TriggerRuntimeError.self) { try await runtime.redeliver(deadLetterId: letter.id) }
            #expect(try await runtime.deadLetters().first?.attempts == 4)
            failing.withLock { $0 = false }
            try await runtime.redeliver(deadLetterId: letter.id)
            #expect(try await runtime.deadLetters().isEmpty)
            let last = try #require(log.of("parallel").last)
            #expect(last.attempt == 5 && last.eventId == letter.eventId)
            await #expect(throws: TriggerRuntimeError.self) { try await runtime.redeliver(deadLetterId: letter.id) }
            await runtime.stop()
        }
    }

    @Test func restartCatchesUpOnEventsWrittenWhileStopped() async throws {
        let directory = try TemporaryDirectory()
        let configuration = StoreConfiguration.sqlite(directory: directory.path)
        let definitions = [databaseTrigger("catchUp"), databaseTrigger("skipper", skipCatchupEvents: true)]
        let log = DeliveryLog()
        var store = try await DocumentStore.open(configuration)
        var runtime = TriggerRuntime(store: store, definitions: definitions) { log.record($0) }
        try await runtime.start()
        var books = store.database("app").collection("books")
        for i in 1...3 { try await books.insertOne(["_id": .int32(Int32(i))]) }
        try await runtime.awaitIdle()
        await runtime.stop()
        await store.close()

        store = try await DocumentStore.open(configuration)
        books = store.database("app").collection("books")
        for i in 4...6 { try await books.insertOne(["_id": .int32(Int32(i))]) }
        runtime = TriggerRuntime(store: store, definitions: definitions) { log.record($0) }
        try await runtime.start()
        try await runtime.awaitIdle()
        try await books.insertOne(["_id": 7])
        try await runtime.awaitIdle()
        #expect(log.keys("catchUp") == [1, 2, 3, 4, 5, 6, 7])
        #expect(log.keys("skipper") == [1, 2, 3, 7])
        let status = try await runtime.status(of: "catchUp")
        #expect(status.processed == 7 && status.lastEventId == log.of("catchUp").last?.eventId)
        await runtime.stop()
        await store.close()
    }

    @Test func aTriggerWithNoTokenStartsFromNow() async throws {
        try await withStore(.memory) { store, _ in
            try await store.database("app").collection("books").insertOne(["_id": 1])
            let log = DeliveryLog()
            let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("fresh")]) { log.record($0) }
            try await runtime.start()
            try await store.database("app").collection("books").insertOne(["_id": 2])
            try await runtime.awaitIdle()
            #expect(log.keys("fresh") == [2])
            await runtime.stop()
        }
    }

    @Test func lostHistorySuspendsUnlessTolerated() async throws {
        try await withStore(.memory, retention: ChangeLogRetention(maximumEvents: 5)) { store, _ in
            let log = DeliveryLog()
            let told = Mutex<[String]>([])
            let runtime = TriggerRuntime(
                store: store,
                definitions: [databaseTrigger("strict"), databaseTrigger("tolerant", tolerateResumeErrors: true)],
                configuration: TriggerRuntimeConfiguration(log: { line in told.withLock { $0.append(line) } })
            ) { log.record($0) }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1])
            try await runtime.awaitIdle()
            // Writes elsewhere move a quiet trigger's token too, so it stays within the retained history.
            // (A few at a time, so the running triggers never lag behind what is kept.)
            let other = store.database("app").collection("other")
            for batch in 0..<4 {
                for i in 0..<3 { try await other.insertOne(["_id": .int32(Int32(batch * 3 + i))]) }
                try await runtime.awaitIdle()
            }
            await runtime.stop()
            try await runtime.start()
            try await runtime.awaitIdle()
            #expect(try await runtime.statuses().allSatisfy { $0.state == .running })
            await runtime.stop()

            let stoppedAt = try await store.watch().startingPoint.sequence
            for i in 0..<12 {
                try await store.database("app").collection("other").insertOne(["_id": .int32(100 + Int32(i))])
            }
            #expect(told.withLock { $0.isEmpty })
            try await runtime.start()
            try await runtime.awaitIdle()
            try await books.insertOne(["_id": 2])
            try await runtime.awaitIdle()
            let strict = try await runtime.status(of: "strict")
            #expect(strict.state == .suspended && strict.suspension?.code == .changeStreamHistoryLost)
            let tolerant = try await runtime.status(of: "tolerant")
            #expect(tolerant.state == .running)
            #expect(tolerant.warnings.contains { $0.contains("ChangeStreamHistoryLost") })
            // What it skipped: the 12 entries written while it was stopped, in its status, warning and the log.
            let gap = try #require(tolerant.resumeGap)
            #expect(gap.after == stoppedAt && gap.through == stoppedAt + 12 && gap.skippedEntries == 12)
            #expect(tolerant.warnings.contains { $0.contains("(12 entries)") })
            #expect(TriggerStatus.table([tolerant]).contains { $0.hasPrefix("  resume point lost: skipped ") })
            #expect(told.withLock { $0 }.count == 1)
            #expect(told.withLock { $0 }.first?.contains("restarted from now") == true)
            #expect(try await runtime.status(of: "strict").resumeGap == nil)
            #expect(log.keys("strict") == [1])
            #expect(log.keys("tolerant") == [1, 2])
            await runtime.stop()
        }
    }

    @Test func disabledTriggersDoNotRun() async throws {
        try await withStore(.memory) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(store: store, definitions: [databaseTrigger("off", disabled: true)]) {
                log.record($0)
            }
            try await runtime.start()
            try await store.database("app").collection("books").insertOne(["_id": 1])
            try await runtime.awaitIdle()
            #expect(log.all.isEmpty)
            #expect(try await runtime.status(of: "off").state == .disabled)
            await runtime.stop()
        }
    }

    @Test func applyKeepsTokensOfTriggersWithTheSameIdentity() async throws {
        try await withStore(.sqlite) { store, _ in
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store, definitions: [databaseTrigger("books"), databaseTrigger("gone")]
            ) { log.record($0) }
            try await runtime.start()
            let books = store.database("app").collection("books")
            try await books.insertOne(["_id": 1])
            try await runtime.awaitIdle()

            // A changed function and match keeps the token: nothing is redelivered, nothing skipped.
            try await runtime.apply(definitions: [
                databaseTrigger("books", function: "renamed", match: ["fullDocument.keep": true])
            ])
            try await books.insertOne(["_id": 2, "keep": true])
            try await books.insertOne(["_id": 3, "keep": false])
            try await runtime.awaitIdle()
            #expect(log.keys("books") == [1, 2])
            #expect(log.of("books").last?.trigger.function == "renamed")
            #expect(try await runtime.statuses().map(\.name) == ["books"])
            #expect(try await runtime.savedState("gone") == nil)

            // Changed while stopped: the token is kept across the restart too, so writes in between arrive.
            await runtime.stop()
            try await books.insertOne(["_id": 4, "keep": true])
            try await runtime.apply(definitions: [databaseTrigger("books", operations: [.insert], retry: .quick(5))])
            try await runtime.start()
            try await runtime.awaitIdle()
            #expect(log.keys("books") == [1, 2, 4])

            // Another source is another trigger: it starts from now.
            try await runtime.apply(definitions: [
                databaseTrigger("books", scope: .collection(database: "app", collection: "authors"))
            ])
            try await runtime.awaitIdle()
            try await books.insertOne(["_id": 5])
            try await store.database("app").collection("authors").insertOne(["_id": 6])
            try await runtime.awaitIdle()
            #expect(log.keys("books") == [1, 2, 4, 6])
            #expect(try await runtime.status(of: "books").processed == 1)
            await runtime.stop()
        }
    }

    @Test func watermarkIsTheLastEntryBeforeTheOldestInFlight() {
        var watermark = Watermark(position: 10)
        watermark.begin(12)
        watermark.skip(13)
        watermark.begin(15)
        watermark.begin(16)
        #expect(watermark.position == 11)
        watermark.finish(15)
        #expect(watermark.position == 11)
        watermark.finish(12)
        #expect(watermark.position == 15)
        watermark.finish(16)
        #expect(watermark.position == 16)
        watermark.skip(20)
        #expect(watermark.position == 20)
    }
}
