import BSON
import DocumentStore
import Testing

@testable import MongoWire

/// Cursors are bounded per connection and in all; a killed or exhausted cursor frees its place.
@Suite struct CursorRegistryTests {
    @Test func boundsPerConnectionAndInAll() throws {
        let registry = CursorRegistry(maximumPerConnection: 2, maximumTotal: 3)
        let documents = CursorRegistry.Source.documents([["a": .int32(1)]])
        let first = try registry.open(documents, namespace: "d.c", connection: 1)
        _ = try registry.open(documents, namespace: "d.c", connection: 1)
        #expect(throws: StoreError(code: 96, message: "too many open cursors: 2 are open for this connection")) {
            try registry.open(documents, namespace: "d.c", connection: 1)
        }
        _ = try registry.open(documents, namespace: "d.c", connection: 2)
        #expect(throws: StoreError(code: 96, message: "too many open cursors: 3 are open in all")) {
            try registry.open(documents, namespace: "d.c", connection: 3)
        }
        #expect(registry.remove(first))
        _ = try registry.open(documents, namespace: "d.c", connection: 3)
        #expect(registry.count == 3)
    }

    @Test func aCursorIsReadOnlyInItsNamespaceAndOneGetMoreAtATime() throws {
        let registry = CursorRegistry()
        let id = try registry.open(.documents([]), namespace: "d.c", connection: 1)
        #expect(throws: StoreError.self) { try registry.checkOut(id, namespace: "d.other") }
        _ = try registry.checkOut(id, namespace: "d.c")
        #expect(throws: StoreError.self) { try registry.checkOut(id, namespace: "d.c") }
        registry.release(id, remaining: .documents([]))
        _ = try registry.checkOut(id, namespace: "d.c")
        #expect(throws: StoreError(code: 43, message: "cursor id 5 not found")) {
            try registry.checkOut(5, namespace: "d.c")
        }
    }
}
