import Foundation

/// A request's headers by lower-cased name, repeated headers joined with ", ".
///
/// Kept as bytes, names lower-cased, back to back in one array sized beforehand: a request sends a handful of
/// headers and its handler reads two or three, so a value becomes a `String` only when read. A string per header
/// cost every request more than routing it, and a table keyed by name more than scanning a few names.
package struct RequestHeaders: Sendable, ExpressibleByDictionaryLiteral {
    private let bytes: [UInt8]
    private let fields: [Field]

    /// Where a header's name and value are in `bytes`: the value follows the name.
    fileprivate struct Field {
        var nameStart: Int32
        var valueStart: Int32
        var valueEnd: Int32
    }

    /// Writes headers into storage sized for them (see `init(count:byteCount:collect:)`).
    struct Collector {
        fileprivate let bytes: UnsafeMutableBufferPointer<UInt8>
        fileprivate let fields: UnsafeMutableBufferPointer<Field>
        fileprivate var byteCount = 0
        fileprivate var fieldCount = 0

        /// Adds a header, lower-casing its ASCII name; one beyond the room given is left out.
        mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            guard fieldCount < fields.count, name.count + value.count <= bytes.count - byteCount,
                let storage = bytes.baseAddress, let slots = fields.baseAddress
            else { return }
            // Through plain pointers and locals: checked subscripts and counters kept in `self` cost a name more than
            // its value's copy.
            let nameStart = byteCount
            let target = storage + nameStart
            for index in 0..<name.count {
                let byte = name[index]
                target[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            let valueStart = nameStart + name.count
            if let source = value.baseAddress {
                (storage + valueStart).initialize(from: source.assumingMemoryBound(to: UInt8.self), count: value.count)
            }
            byteCount = valueStart + value.count
            (slots + fieldCount).initialize(
                to: Field(
                    nameStart: Int32(truncatingIfNeeded: nameStart), valueStart: Int32(truncatingIfNeeded: valueStart),
                    valueEnd: Int32(truncatingIfNeeded: byteCount)))
            fieldCount += 1
        }
    }

    /// Headers `collect` adds: at most `count` of them, with `byteCount` bytes of names and values in all.
    init(count: Int, byteCount: Int, collect: (inout Collector) -> Void) {
        var bytes: [UInt8] = []
        fields = [Field](unsafeUninitializedCapacity: count) { fields, fieldsMade in
            bytes = [UInt8](unsafeUninitializedCapacity: byteCount) { bytes, bytesMade in
                var collector = Collector(bytes: bytes, fields: fields)
                collect(&collector)
                bytesMade = collector.byteCount
                fieldsMade = collector.fieldCount
            }
        }
        self.bytes = bytes
    }

    /// Names are lower-cased here.
    package init(dictionaryLiteral elements: (String, String)...) {
        let byteCount = elements.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        self.init(count: elements.count, byteCount: byteCount) { collector in
            for (name, value) in elements {
                Array(name.utf8).withUnsafeBytes { name in
                    Array(value.utf8).withUnsafeBytes { value in collector.add(name: name, value: value) }
                }
            }
        }
    }

    /// The value of the header named `name`, which must be lower-case (as every name here is).
    package subscript(_ name: String) -> String? {
        var name = name
        return name.withUTF8 { name in
            bytes.withUnsafeBufferPointer { bytes in
                var found: String?
                for field in fields where Self.equal(name, bytes, from: field.nameStart, to: field.valueStart) {
                    let value = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[Int(field.valueStart)..<Int(field.valueEnd)]),
                        as: UTF8.self)
                    found = found.map { "\($0), \(value)" } ?? value
                }
                return found
            }
        }
    }

    /// Every header in the order received, names lower-cased; a repeated header once per value.
    package var all: [(name: String, value: String)] {
        bytes.withUnsafeBufferPointer { bytes in
            fields.map { field in
                (
                    String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[Int(field.nameStart)..<Int(field.valueStart)]),
                        as: UTF8.self),
                    String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[Int(field.valueStart)..<Int(field.valueEnd)]),
                        as: UTF8.self)
                )
            }
        }
    }

    private static func equal(
        _ name: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>, from start: Int32, to end: Int32
    ) -> Bool {
        Int(end - start) == name.count
            && (name.isEmpty || memcmp(name.baseAddress!, bytes.baseAddress! + Int(start), name.count) == 0)
    }
}
