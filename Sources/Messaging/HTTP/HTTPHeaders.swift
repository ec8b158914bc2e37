/// HTTP header fields in order, names compared without regard to ASCII case (`content-type` finds
/// `Content-Type`); a name may repeat.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    public typealias Field = (name: String, value: String)

    public private(set) var fields: [Field] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name: name, value: value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name`; setting replaces every field of that name (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            let position = fields.firstIndex { Self.same($0.name, name) }
            fields.removeAll { Self.same($0.name, name) }
            if let newValue { fields.insert((name, newValue), at: Swift.min(position ?? fields.count, fields.count)) }
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { fields.contains { Self.same($0.name, name) } }

    public mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { same($0.name, $1.name) && $0.value == $1.value }
    }

    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lowercase($0) == lowercase($1) }
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
