import BSON
import Testing

@testable import DocumentStore

@Suite struct ChangeEventEncodingTests {
    /// Inserts write their event directly; it must be the very bytes the general encoding gives.
    @Test(arguments: [
        BSON.objectId(ObjectId()), .string("isbn-1"), .int32(7), .document(["a": 1, "b": ["c": "d"]]), .null,
    ])
    func insertEventIsWhatTheGeneralEncodingWrites(id: BSON) throws {
        let namespace = Namespace(database: "prödüct", collection: "book")
        let document: BSONDocument = ["_id": id, "title": "Dune", "authors": ["Frank Herbert"]]
        let body = try DocumentEncoding.encode(document)
        let general = try ChangeEventEncoding.encode(
            ["operationType": "insert", "ns": StoreCore.namespaceDocument(namespace), "documentKey": ["_id": id]],
            embedding: ("fullDocument", body))
        let direct = try ChangeEventEncoding.encodeInsert(namespace: namespace, id: id, document: body)
        #expect(direct == general)
        var stamped = direct
        ChangeEventEncoding.stamp(&stamped, clusterTime: BSONTimestamp(time: 5, increment: 2), wallTime: 1_234)
        let decoded = try DocumentEncoding.decode(stamped)
        #expect(decoded["clusterTime"] == .timestamp(BSONTimestamp(time: 5, increment: 2)))
        #expect(decoded["wallTime"] == .datetime(BSONDate(millisecondsSinceEpoch: 1_234)))
        #expect(decoded["fullDocument"] == .document(document))
    }
}
