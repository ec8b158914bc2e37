#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An ordered BSON document. Field order is kept (MongoDB compares documents field by field, in order);
/// lookup by key is O(1) once a document is large enough for a hash index to pay for itself.
public struct BSONDocument: Sendable {
    public private(set) var keys: [String] = []
    public private(set) var values: [BSON] = []
    /// Key → first position, kept only above `indexThreshold` fields; small documents scan, which is faster.
    private var index: [FieldName: Int]? = nil

    static let indexThreshold = 16

    public init() {}

    /// Builds a document from pairs in order; a repeated key replaces the earlier value in place.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, BSON) {
        for (key, value) in pairs { self[key] = value }
    }

    public var count: Int { keys.count }

    /// Room for `count` fields without reallocating (decoders that can estimate the size, builders
    /// that know it).
    public mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }
    public var isEmpty: Bool { keys.isEmpty }

    /// Position of `key`, or nil. Keys match by their UTF-8 bytes, as in MongoDB: "é" written precomposed
    /// and "e" followed by a combining accent are different keys, though Swift's `==` calls them equal.
    public func position(of key: String) -> Int? {
        if let index { return index[FieldName(key)] }
        return keys.firstIndex { FieldName.same($0, key) }
    }

    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// Whether two keys (or dotted paths) name the same field: their UTF-8 bytes agree, as in MongoDB.
    public static func sameKey(_ a: String, _ b: String) -> Bool { FieldName.same(a, b) }

    public subscript(key: String) -> BSON? {
        get { position(of: key).map { values[$0] } }
        set {
            if let i = position(of: key) {
                if let newValue { values[i] = newValue } else { remove(at: i) }
            } else if let newValue {
                append(key, newValue)
            }
        }
    }

    /// Appends a field without looking for an existing one. Readers of untrusted bytes use
    /// `appendUnique` instead; this is for builders that know their keys are fresh.
    public mutating func append(_ key: __owned String, _ value: __owned BSON) {
        if index != nil {
            if index![FieldName(key)] == nil { index![FieldName(key)] = keys.count }
            keys.append(key)
            values.append(value)
        } else {
            keys.append(key)
            values.append(value)
            if keys.count > Self.indexThreshold { rebuildIndex() }
        }
    }

    /// Appends a field unless the key is already present; returns false for a duplicate key.
    @discardableResult
    public mutating func appendUnique(_ key: String, _ value: BSON) -> Bool {
        guard index != nil else {
            if contains(key) { return false }
            append(key, value)
            return true
        }
        // One hash lookup: the defaulted subscript's in-place access stores `position` only for a new key.
        let position = keys.count
        guard Self.read(&index![FieldName(key), default: position]) == position else { return false }
        keys.append(key)
        values.append(value)
        return true
    }

    private static func read(_ value: inout Int) -> Int { value }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> BSON? {
        guard let i = position(of: key) else { return nil }
        let old = values[i]
        remove(at: i)
        return old
    }

    public mutating func remove(at position: Int) {
        keys.remove(at: position)
        values.remove(at: position)
        if index != nil { rebuildIndex() }
    }

    /// Inserts a field at a position (used by `$rename`-like operations that keep order meaningful).
    public mutating func insert(_ key: String, _ value: BSON, at position: Int) {
        keys.insert(key, at: position)
        values.insert(value, at: position)
        if index != nil || keys.count > Self.indexThreshold { rebuildIndex() }
    }

    /// The first key that occurs more than once, if any (documents decoded faithfully may carry one).
    public var firstDuplicateKey: String? {
        var seen = Set<FieldName>()
        for key in keys where !seen.insert(FieldName(key)).inserted { return key }
        return nil
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            index = nil
            return
        }
        var newIndex = [FieldName: Int](minimumCapacity: keys.count)
        for (i, key) in keys.enumerated() where newIndex[FieldName(key)] == nil { newIndex[FieldName(key)] = i }
        index = newIndex
    }

    /// A key compared and hashed by its UTF-8 bytes rather than by Unicode canonical equivalence.
    struct FieldName: Hashable {
        let string: String
        init(_ string: String) { self.string = string }

        /// Byte lengths first, an O(1) test that rejects most pairs, then the bytes themselves, compared at once
        /// (short strings too: `withUTF8` lends their inline bytes, so one memory comparison replaces a byte-by-byte
        /// walk over the UTF-8 views).
        static func same(_ a: String, _ b: String) -> Bool {
            guard a.utf8.count == b.utf8.count else { return false }
            // In place when both lend their bytes (no copy, no reference count); copies only for the rest.
            let compared = a.utf8.withContiguousStorageIfAvailable { x in
                b.utf8.withContiguousStorageIfAvailable { y in
                    x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
                }
            }
            if let compared = compared ?? nil { return compared }
            var (a, b) = (a, b)
            return a.withUTF8 { x in
                b.withUTF8 { y in x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
            }
        }

        static func == (lhs: FieldName, rhs: FieldName) -> Bool { same(lhs.string, rhs.string) }

        func hash(into hasher: inout Hasher) {
            var string = string
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}

extension BSONDocument: RandomAccessCollection {
    public typealias Element = (key: String, value: BSON)
    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> Element { (keys[position], values[position]) }
}

extension BSONDocument: Equatable {
    /// Documents are equal when they hold the same fields with exactly equal values in the same order.
    public static func == (lhs: BSONDocument, rhs: BSONDocument) -> Bool {
        lhs.keys.elementsEqual(rhs.keys, by: FieldName.same) && lhs.values == rhs.values
    }
}

extension BSONDocument: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}

extension BSONDocument: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, BSON)...) {
        self.init(elements)
    }
}
