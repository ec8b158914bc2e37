/// Binary data with its subtype (0x00 generic, 0x04 UUID, 0x80–0xFF user defined, …).
public struct BSONBinary: Sendable, Hashable {
    public var subtype: UInt8
    public var data: [UInt8]

    public init(subtype: UInt8 = 0, data: [UInt8]) {
        self.subtype = subtype
        self.data = data
    }

    public static let uuidSubtype: UInt8 = 0x04
}

/// A UTC datetime: signed milliseconds since the Unix epoch.
public struct BSONDate: Sendable, Hashable, Comparable {
    public var millisecondsSinceEpoch: Int64

    public init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    public static func < (lhs: BSONDate, rhs: BSONDate) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }
}

/// A regular expression with its option letters, kept sorted as the specification requires.
public struct BSONRegularExpression: Sendable, Hashable {
    public var pattern: String
    public var options: String

    public init(pattern: String, options: String = "") {
        self.pattern = pattern
        // Sorted by Unicode scalar, not by Character: sorting grapheme clusters can merge them into new ones,
        // and then sorting the result again would not give the same string.
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: options.unicodeScalars.sorted())
        self.options = String(scalars)
    }
}

/// The internal replication timestamp: seconds and an ordinal within the second.
public struct BSONTimestamp: Sendable, Hashable, Comparable {
    public var time: UInt32
    public var increment: UInt32

    public init(time: UInt32, increment: UInt32) {
        self.time = time
        self.increment = increment
    }

    public static func < (lhs: BSONTimestamp, rhs: BSONTimestamp) -> Bool {
        (lhs.time, lhs.increment) < (rhs.time, rhs.increment)
    }
}

/// Deprecated DBPointer: a namespace and an ObjectId.
public struct BSONDBPointer: Sendable, Hashable {
    public var namespace: String
    public var id: ObjectId

    public init(namespace: String, id: ObjectId) {
        self.namespace = namespace
        self.id = id
    }
}

/// Deprecated JavaScript code with a scope document.
public struct BSONCodeWithScope: Sendable, Hashable {
    public var code: String
    public var scope: BSONDocument

    public init(code: String, scope: BSONDocument) {
        self.code = code
        self.scope = scope
    }
}
