import BSON
import Testing

@testable import DocumentStore

@Suite struct SortSpecificationTests {
    func sortedIDs(_ specification: BSONDocument, _ documents: [BSONDocument]) throws -> [Int] {
        let sort = try SortSpecification(specification)
        let viaSorted = sort.sorted(documents).compactMap { $0["_id"]?.int64Value.map(Int.init) }
        // compare(_:_:) must agree with sorted(_:).
        let viaCompare = documents.enumerated().sorted { lhs, rhs in
            let order = sort.compare(lhs.element, rhs.element)
            return order != 0 ? order < 0 : lhs.offset < rhs.offset
        }.compactMap { $0.element["_id"]?.int64Value.map(Int.init) }
        #expect(viaSorted == viaCompare)
        return viaSorted
    }

    @Test func mixedTypesFollowTheComparisonOrder() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "v": "apple"],
            ["_id": 2, "v": .bool(false)],
            ["_id": 3, "v": .double(2.5)],
            ["_id": 4, "v": .null],
            ["_id": 5],
            ["_id": 6, "v": .int64(1)],
            ["_id": 7, "v": ["k": 1]],
            ["_id": 8, "v": .objectId(ObjectId())],
            ["_id": 9, "v": .minKey],
            ["_id": 10, "v": .maxKey],
            ["_id": 11, "v": .datetime(BSONDate(millisecondsSinceEpoch: 0))],
        ]
        // MinKey, null and missing (equal, so stable), numbers, strings, objects, ObjectId, bool, date, MaxKey.
        #expect(try sortedIDs(["v": 1], documents) == [9, 4, 5, 6, 3, 1, 7, 8, 2, 11, 10])
        #expect(try sortedIDs(["v": -1], documents) == [10, 11, 2, 8, 7, 1, 3, 6, 4, 5, 9])
    }

    @Test func arraysSortBySmallestAscendingAndLargestDescending() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "a": [1, 10]],
            ["_id": 2, "a": 5],
            ["_id": 3, "a": [3, 4]],
            ["_id": 4, "a": []],
            ["_id": 5, "a": .null],
        ]
        // The empty array sorts before null either way round it is compared.
        #expect(try sortedIDs(["a": 1], documents) == [4, 5, 1, 3, 2])
        #expect(try sortedIDs(["a": -1], documents) == [1, 2, 3, 5, 4])
    }

    @Test func dottedPathsThroughArraysOfDocuments() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "items": [["price": 30], ["price": 5]]],
            ["_id": 2, "items": [["price": 10]]],
            ["_id": 3, "items": [["price": 20], ["other": 1]]],
        ]
        // Document 3 has an element without a price, which sorts as null.
        #expect(try sortedIDs(["items.price": 1], documents) == [3, 1, 2])
        #expect(try sortedIDs(["items.price": -1], documents) == [1, 3, 2])
    }

    @Test func compoundKeysAndStability() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "city": "Oslo", "age": 30],
            ["_id": 2, "city": "Bergen", "age": 30],
            ["_id": 3, "city": "Oslo", "age": 20],
            ["_id": 4, "city": "Bergen", "age": 30],
            ["_id": 5, "city": "Oslo", "age": .double(20)],
        ]
        #expect(try sortedIDs(["city": 1, "age": -1], documents) == [2, 4, 1, 3, 5])
        #expect(try sortedIDs(["age": 1], documents) == [3, 5, 1, 2, 4])
        #expect(try sortedIDs([:], documents) == [1, 2, 3, 4, 5])
    }

    @Test func numbersSortByValueAcrossTypes() throws {
        let documents: [BSONDocument] = [
            ["_id": 1, "n": .double(2.5)], ["_id": 2, "n": .int64(-3)], ["_id": 3, "n": .int32(2)],
            ["_id": 4, "n": .double(.nan)],
        ]
        #expect(try sortedIDs(["n": 1], documents) == [4, 2, 3, 1])
    }

    @Test func badSortValuesAreRejected() {
        let ordering = StoreError.location(
            15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)")
        #expect(throws: ordering) { try SortSpecification(["a": 0]) }
        #expect(throws: ordering) { try SortSpecification(["a": "asc"]) }
        #expect(throws: ordering) { try SortSpecification(["a": 2]) }
        #expect(throws: StoreError.self) { try SortSpecification(["a": ["$meta": "textScore"]]) }
        #expect(throws: StoreError.self) { try SortSpecification(["$a": 1]) }
        #expect(throws: StoreError.self) { try SortSpecification(["": 1]) }
        #expect((try? SortSpecification(["a": .double(-1), "b": .int64(1)])) != nil)
    }
}
