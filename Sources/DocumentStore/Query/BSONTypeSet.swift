import BSON

/// The types a `$type` query accepts: numeric codes (`2`), aliases (`"string"`, `"number"`), or an array of them.
struct BSONTypeSet: Sendable, Equatable {
    /// One bit per type byte; minKey (0xFF) and maxKey (0x7F) use bits 30 and 31.
    private var bits: UInt32 = 0

    static let aliases: [String: [UInt8]] = [
        "double": [0x01], "string": [0x02], "object": [0x03], "array": [0x04], "binData": [0x05],
        "undefined": [0x06], "objectId": [0x07], "bool": [0x08], "date": [0x09], "null": [0x0A],
        "regex": [0x0B], "dbPointer": [0x0C], "javascript": [0x0D], "symbol": [0x0E],
        "javascriptWithScope": [0x0F], "int": [0x10], "timestamp": [0x11], "long": [0x12], "decimal": [0x13],
        "minKey": [0xFF], "maxKey": [0x7F], "number": [0x01, 0x10, 0x12, 0x13],
    ]

    init(parsing specification: BSON) throws(StoreError) {
        if case .array(let elements) = specification {
            if elements.isEmpty { throw .failedToParse("$type must match at least one type") }
            for element in elements { try insert(parsing: element) }
        } else {
            try insert(parsing: specification)
        }
    }

    func contains(_ value: BSON) -> Bool {
        bits & Self.bit(value.typeByte) != 0
    }

    private mutating func insert(parsing element: BSON) throws(StoreError) {
        if case .string(let alias) = element {
            guard let bytes = Self.aliases[alias] else { throw .badValue("Unknown type name alias: \(alias)") }
            for byte in bytes { bits |= Self.bit(byte) }
            return
        }
        guard element.isNumber else { throw .typeMismatch("type must be represented as a number or a string") }
        guard let code = element.int64Value else {
            throw .badValue("Invalid numerical type code: \(element.doubleValue ?? .nan)")
        }
        switch code {
        case -1: bits |= Self.bit(0xFF)
        case 127: bits |= Self.bit(0x7F)
        case 1...19: bits |= Self.bit(UInt8(code))
        default: throw .badValue("Invalid numerical type code: \(code)")
        }
    }

    private static func bit(_ typeByte: UInt8) -> UInt32 {
        switch typeByte {
        case 0xFF: 1 << 30
        case 0x7F: 1 << 31
        default: typeByte < 30 ? 1 << UInt32(typeByte) : 0
        }
    }
}
