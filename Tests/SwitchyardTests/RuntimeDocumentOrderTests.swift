import BSON
import DocumentStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Switchyard

/// `ordered: byDocumentKey`: one document's events one at a time in commit order, documents in parallel.
@Suite struct RuntimeDocumentOrderTests {
    /// Starts and ends of function runs on a logical clock (a counter), per document, so overlap is a fact of
    /// order and not of timing.
    final class RunRecorder: Sendable {
        struct Run: Sendable {
            var sequence: Int64
            var start: Int
            var end: Int?
        }

        private struct State {
            var tick = 0
            var runs: [BSON: [Run]] = [:]
            var running = 0
            var mostRunning = 0
        }

        private let state = Mutex(State())

        func start(_ document: BSON, sequence: Int64) {
            state.withLock { state in
                state.tick += 1
                state.runs[document, default: []].append(Run(sequence: sequence, start: state.tick))
                state.running += 1
                state.mostRunning = max(state.mostRunning, state.running)
            }
        }

        func end(_ document: BSON) {
            state.withLock { state in
                state.tick += 1
                let last = state.runs[document]!.count - 1
                state.runs[document]![last].end = state.tick
                state.running -= 1
            }
        }

        var runs: [BSON: [Run]] { state.withLock { $0.runs } }
        var mostRunning: Int { state.withLock { $0.mostRunning } }
    }

    @Test func oneDocumentsEventsStayInOrderWhileDocumentsOverlap() async throws {
        try await withStore(.memory) { store, _ in
            let recorder = RunRecorder()
            let definitions = [databaseTrigger("perDocument", delivery: .byDocumentKey(maxConcurrency: 4))]
            let runtime = TriggerRuntime(store: store, definitions: definitions) { invocation in
                guard case .database(let event) = invocation.input, let id = event.documentKey?["_id"] else { return }
                recorder.start(id, sequence: event.id.sequence)
                // Hold the first run until a second one runs beside it (or give up after a while).
                for _ in 0..<2000 where recorder.mostRunning < 2 { try await Task.sleep(for: .milliseconds(1)) }
                try await Task.sleep(for: .milliseconds(1))
                recorder.end(id)
            }
            try await runtime.start()
            let books = store.database("app").collection("books")
            let documents = 6
            try await books.insertMany((0..<documents).map { ["_id": .int32(Int32($0)), "n": 0] })
            // Round after round of one update per document, so each document's events interleave with the others'.
            for round in 1...8 {
                for id in 0..<documents {
                    try await books.updateOne(["_id": .int32(Int32(id))], ["$set": ["n": .int32(Int32(round))]])
                }
            }
            try await runtime.awaitIdle()

            // The log's own order of each document's events.
            let stream = try await store.watch(options: ChangeStreamOptions(resumeAfter: ResumeToken(sequence: 0)))
            var committed: [BSON: [Int64]] = [:]
            var count = 0
            for try await event in stream {
                committed[event.documentKey!["_id"]!, default: []].append(event.id.sequence)
                count += 1
                if count == documents * 9 { break }
            }
            let runs = recorder.runs
            for (document, sequences) in committed {
                let documentRuns = runs[document] ?? []
                #expect(documentRuns.map(\.sequence) == sequences, "document \(document) out of commit order")
                for (earlier, later) in zip(documentRuns, documentRuns.dropFirst()) {
                    #expect(earlier.end! < later.start, "document \(document)'s runs overlapped")
                }
            }
            let all = runs.flatMap { document, runs in runs.map { (document, $0) } }
            let overlapped = all.contains { a in
                all.contains { b in a.0 != b.0 && a.1.start < b.1.end! && b.1.start < a.1.end! }
            }
            #expect(overlapped, "no two documents' runs overlapped")
            #expect((2...4).contains(recorder.mostRunning))
            let status = try await runtime.status(of: "perDocument")
            #expect(status.processed == documents * 9 && status.inFlight == 0 && status.pendingLogEntries == 0)
            await runtime.stop()
        }
    }

    /// The saved token stops before the oldest unfinished event while later documents' events finish; a stop
    /// leaves a document's waiting event unfinished, and a restart delivers from it (and again what finished
    /// after it), never anything before.
    @Test func theTokenStopsBeforeTheOldestUnfinishedEventAndARestartResumesThere() async throws {
        try await withStore(.sqlite) { store, _ in
            let log = DeliveryLog()
            let release = Mutex(false)
            let entered = AsyncStream.makeStream(of: Void.self)
            let blocking: TriggerHandler = { invocation in
                log.record(invocation)
                guard case .database(let event) = invocation.input, event.documentKey?["_id"] == 3,
                    event.operationType == .insert
                else { return }
                entered.continuation.yield()
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            }
            let definitions = [databaseTrigger("perDocument", delivery: .byDocumentKey(maxConcurrency: 4))]
            let runtime = TriggerRuntime(store: store, definitions: definitions, handler: blocking)
            try await runtime.start()
            let books = store.database("app").collection("books")
            let stream = try await books.watch()
            for id in 1...4 { try await books.insertOne(["_id": .int32(Int32(id))]) }
            var waiting = entered.stream.makeAsyncIterator()
            _ = await waiting.next()
            for id in [3, 1, 2, 4] { try await books.updateOne(["_id": .int32(Int32(id))], ["$set": ["seen": true]]) }
            var sequences: [(id: BSON, type: ChangeEvent.OperationType, sequence: Int64)] = []
            for try await event in stream {
                sequences.append((event.documentKey!["_id"]!, event.operationType, event.id.sequence))
                if sequences.count == 8 { break }
            }
            func sequence(_ id: BSON, _ type: ChangeEvent.OperationType) -> Int64 {
                sequences.first { $0.id == id && $0.type == type }!.sequence
            }

            // Everything but document 3's two events finishes; the token stays before 3's insert.
            var status = try await runtime.status(of: "perDocument")
            while status.processed < 6 {
                try await Task.sleep(for: .milliseconds(1))
                status = try await runtime.status(of: "perDocument")
            }
            #expect(status.inFlight == 2)
            await runtime.progress["perDocument"]?.flush()
            #expect(try await runtime.savedState("perDocument")?.position == sequence(3, .insert) - 1)
            #expect(!log.events("perDocument").contains { $0.documentKey?["_id"] == 3 && $0.operationType == .update })

            // Stopping lets 3's insert finish and does not start its update, which waited behind it.
            let stopping = Task { await runtime.stop() }
            while await runtime.isRunning { try await Task.sleep(for: .milliseconds(1)) }
            release.withLock { $0 = true }
            await stopping.value
            #expect(try await runtime.savedState("perDocument")?.position == sequence(3, .update) - 1)
            let firstRun = log.events("perDocument").count
            #expect(firstRun == 7)

            let restarted = TriggerRuntime(store: store, definitions: definitions, handler: blocking)
            try await restarted.start()
            try await restarted.awaitIdle()
            let redelivered = log.events("perDocument").dropFirst(firstRun).map(\.id.sequence)
            #expect(redelivered.sorted() == [3, 1, 2, 4].map { sequence(.int32($0), .update) }.sorted())
            await restarted.stop()
        }
    }
}
