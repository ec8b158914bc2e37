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

    /// Writes the times into an event from `encode`.
    static func stamp(_ event: inout [UInt8], clusterTime: BSONTimestamp, wallTime: Int64) {
        let timestamp = (UInt64(clusterTime.time) << 32 | UInt64(clusterTime.increment)).littleEndian
        event.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: timestamp, toByteOffset: clusterTimeOffset, as: UInt64.self)
            bytes.storeBytes(of: wallTime.littleEndian, toByteOffset: wallTimeOffset, as: Int64.self)
        }
    }
}
