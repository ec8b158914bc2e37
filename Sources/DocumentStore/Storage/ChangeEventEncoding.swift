import BSON

/// How a change event is stored: BSON whose first two fields are `clusterTime` and `wallTime`. An event
/// can be encoded anywhere (an insert's, on the caller's thread beside its document) with both left
/// zero; the store's thread stamps them in place when it appends the event, at the fixed offsets that
/// the fixed field order gives them.
enum ChangeEventEncoding {
    private static let clusterTimeOffset = 4 + 1 + "clusterTime".utf8.count + 1
    private static let wallTimeOffset = clusterTimeOffset + 8 + 1 + "wallTime".utf8.count + 1

    /// The event with zero times: `fields`, then `embedded` (an encoded document, copied in as is).
    static func encode(_ fields: BSONDocument, embedding embedded: (key: String, bytes: [UInt8])? = nil)
        throws(StoreError) -> [UInt8]
    {
        var event: BSONDocument = [
            "clusterTime": .timestamp(BSONTimestamp(time: 0, increment: 0)),
            "wallTime": .datetime(BSONDate(millisecondsSinceEpoch: 0)),
        ]
        for (key, value) in fields { event.append(key, value) }
        var bytes = try DocumentEncoding.encode(event)
        if let embedded { DocumentEncoding.append(embedded.key, document: embedded.bytes, to: &bytes) }
        return bytes
    }

    /// Appends `fields` to an encoded event, after its last field.
    static func append(_ fields: BSONDocument, to event: inout [UInt8]) throws(StoreError) {
        let encoded = try DocumentEncoding.encode(fields)
        event.removeLast()
        event.append(contentsOf: encoded[4..<(encoded.count - 1)])
        event.append(0)
        let length = Int32(truncatingIfNeeded: event.count).littleEndian
        event.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: 0, as: Int32.self) }
    }

    /// An `insert` event, byte for byte what `encode` makes of `operationType`, `ns`, `documentKey` and
    /// `fullDocument` (the encoded document), written directly at its final size: building the fields
    /// as documents first would cost more than encoding the inserted document itself.
    static func encodeInsert(namespace: Namespace, id: BSON, document body: [UInt8]) throws(StoreError) -> [UInt8] {
        // The usual `_id`, an ObjectId, is written in place; any other is encoded as a document first.
        var objectId: ObjectId?
        var documentKey: [UInt8] = []
        if case .objectId(let value) = id {
            objectId = value
        } else {
            documentKey = try DocumentEncoding.encode(["_id": id])
        }
        let documentKeyLength = objectId == nil ? documentKey.count : 4 + 1 + 4 + 12 + 1
        var database = namespace.database
        var collection = namespace.collection
        return database.withUTF8 { database in
            collection.withUTF8 { collection in
                let namespaceLength = 4 + (1 + 3 + 4 + database.count + 1) + (1 + 5 + 4 + collection.count + 1) + 1
                let length =
                    wallTimeOffset + 8 + (1 + 14 + 4 + 7) + (1 + 3 + namespaceLength) + (1 + 12 + documentKeyLength)
                    + (1 + 13 + body.count) + 1
                return [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                    guard let base = buffer.baseAddress else { return }
                    var writer = ByteWriter(base)
                    writer.int32(length)
                    writer.key(0x11, "clusterTime")
                    writer.zeros(8)
                    writer.key(0x09, "wallTime")
                    writer.zeros(8)
                    writer.string(0x02, "operationType", UnsafeBufferPointer(start: Self.insert.utf8Start, count: 6))
                    writer.key(0x03, "ns")
                    writer.int32(namespaceLength)
                    writer.string(0x02, "db", database)
                    writer.string(0x02, "coll", collection)
                    writer.zeros(1)
                    writer.key(0x03, "documentKey")
                    if let objectId {
                        writer.int32(documentKeyLength)
                        writer.key(0x07, "_id")
                        withUnsafeBytes(of: objectId.bytes) { writer.bytes($0.assumingMemoryBound(to: UInt8.self)) }
                        writer.zeros(1)
                    } else {
                        documentKey.withUnsafeBufferPointer { writer.bytes($0) }
                    }
                    writer.key(0x03, "fullDocument")
                    body.withUnsafeBufferPointer { writer.bytes($0) }
                    writer.zeros(1)
                    count = writer.count
                }
            }
        }
    }

    private static let insert: StaticString = "insert"

    /// Writes into a buffer sized for exactly what is written.
    private struct ByteWriter {
        let base: UnsafeMutablePointer<UInt8>
        var count = 0

        init(_ base: UnsafeMutablePointer<UInt8>) {
            self.base = base
        }

        mutating func bytes(_ source: UnsafeBufferPointer<UInt8>) {
            guard let start = source.baseAddress, !source.isEmpty else { return }
            (base + count).initialize(from: start, count: source.count)
            count += source.count
        }

        mutating func zeros(_ n: Int) {
            (base + count).initialize(repeating: 0, count: n)
            count += n
        }

        mutating func int32(_ value: Int) {
            withUnsafeBytes(of: Int32(truncatingIfNeeded: value).littleEndian) {
                bytes($0.assumingMemoryBound(to: UInt8.self))
            }
        }

        mutating func key(_ type: UInt8, _ name: StaticString) {
            base[count] = type
            count += 1
            bytes(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            zeros(1)
        }

        mutating func string(_ type: UInt8, _ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
            key(type, name)
            int32(value.count + 1)
            bytes(value)
            zeros(1)
        }
    }

    /// Writes the times into an event from `encode`.
    /// The `clusterTime` that `stamp` wrote.
    static func clusterTime(of event: [UInt8]) -> BSONTimestamp {
        let value = event.withUnsafeBytes {
            UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: clusterTimeOffset, as: UInt64.self))
        }
        return BSONTimestamp(
            time: UInt32(truncatingIfNeeded: value >> 32), increment: UInt32(truncatingIfNeeded: value))
    }

    static func stamp(_ event: inout [UInt8], clusterTime: BSONTimestamp, wallTime: Int64) {
        let timestamp = (UInt64(clusterTime.time) << 32 | UInt64(clusterTime.increment)).littleEndian
        event.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: timestamp, toByteOffset: clusterTimeOffset, as: UInt64.self)
            bytes.storeBytes(of: wallTime.littleEndian, toByteOffset: wallTimeOffset, as: Int64.self)
        }
    }
}
