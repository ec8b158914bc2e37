import BSON
import Foundation
import Testing

@testable import DocumentStore

/// Streams started at an operation time, and pre-images turned on and off on an existing collection.
@Suite struct ChangeStreamStartTests {
    @Test(arguments: EngineKind.allCases) func streamStartsAtTheEventOfItsOperationTime(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let notes = store.database("app").collection("notes")
            let all = try await notes.watch()
            for n in 1...3 { try await notes.insertOne(["_id": .int32(Int32(n))]) }
            let events = try await next(3, from: all)
            let time = try #require(events[1].clusterTime)
            let started = try await notes.watch(options: ChangeStreamOptions(startAtOperationTime: time))
            try await notes.insertOne(["_id": 4])
            let keys = try await next(3, from: started).map { $0.documentKey?["_id"] }
            #expect(keys == [.int32(2), .int32(3), .int32(4)])
        }
    }

    @Test(arguments: EngineKind.allCases) func preImagesFollowTheCollectionsSetting(kind: EngineKind) async throws {
        try await withStore(kind) { store in
            let notes = store.database("app").collection("notes")
            try await notes.insertOne(["_id": 1, "v": 0])
            let stream = try await notes.watch(options: ChangeStreamOptions(fullDocumentBeforeChange: .whenAvailable))
            try await notes.updateOne(["_id": 1], ["$set": ["v": 1]])
            try await notes.setChangeStreamPreAndPostImages(true)
            try await notes.updateOne(["_id": 1], ["$set": ["v": 2]])
            try await notes.setChangeStreamPreAndPostImages(false)
            try await notes.updateOne(["_id": 1], ["$set": ["v": 3]])
            let images = try await next(3, from: stream).map(\.fullDocumentBeforeChange)
            #expect(images == [nil, ["_id": 1, "v": 1], nil])
            await #expect(throws: StoreError.self) {
                try await store.database("app").collection("missing").setChangeStreamPreAndPostImages(true)
            }
        }
    }
}
