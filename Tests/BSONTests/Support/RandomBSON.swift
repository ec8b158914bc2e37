import BSON

/// A small deterministic generator (SplitMix64), so a failing randomised test can be replayed by its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random BSON values of every type, nested up to `maximumDepth`, for round-trip and property tests.
struct RandomBSON {
    var generator: SeededGenerator
    var maximumDepth = 4

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func document(depth: Int = 0) -> BSONDocument {
        var document = BSONDocument()
        let count = Int.random(in: 0...(depth == 0 ? 24 : 6), using: &generator)
        for _ in 0..<count {
            document[key()] = value(depth: depth + 1)
        }
        return document
    }

    mutating func value(depth: Int) -> BSON {
        let nested = depth < maximumDepth
        switch Int.random(in: 0..<(nested ? 22 : 19), using: &generator) {
        case 0: return .double(Double(bitPattern: generator.next()))
        case 1: return .double(Double.random(in: -1e6...1e6, using: &generator))
        case 2: return .string(text(allowNUL: true))
        case 3: return .binary(BSONBinary(subtype: subtype(), data: bytes()))
        case 4: return .undefined
        case 5: return .objectId(ObjectId(bytes: (0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })!)
        case 6: return .bool(Bool.random(using: &generator))
        case 7: return .datetime(BSONDate(millisecondsSinceEpoch: Int64(bitPattern: generator.next())))
        case 8: return .null
        case 9: return .regex(BSONRegularExpression(pattern: text(allowNUL: false), options: text(allowNUL: false)))
        case 10: return .dbPointer(BSONDBPointer(namespace: text(allowNUL: true), id: ObjectId()))
        case 11: return .javascript(text(allowNUL: true))
        case 12: return .symbol(text(allowNUL: true))
        case 13: return .int32(Int32(truncatingIfNeeded: generator.next()))
        case 14:
            return .timestamp(
                BSONTimestamp(
                    time: UInt32.random(in: 0...UInt32.max, using: &generator),
                    increment: UInt32.random(in: 0...UInt32.max, using: &generator)))
        case 15: return .int64(Int64(bitPattern: generator.next()))
        case 16: return .decimal128(Decimal128(high: generator.next(), low: generator.next()))
        case 17: return .minKey
        case 18: return .maxKey
        case 19: return .document(document(depth: depth))
        case 20: return .array((0..<Int.random(in: 0...5, using: &generator)).map { _ in value(depth: depth + 1) })
        default:
            return .javascriptWithScope(BSONCodeWithScope(code: text(allowNUL: true), scope: document(depth: depth)))
        }
    }

    private mutating func subtype() -> UInt8 {
        [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x80, 0xFF].randomElement(using: &generator)!
    }

    private mutating func bytes() -> [UInt8] {
        (0..<Int.random(in: 0...20, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private mutating func key() -> String {
        text(allowNUL: false) + String(Int.random(in: 0...999, using: &generator))
    }

    /// Text mixing ASCII, accented, CJK, emoji and combining characters (and NUL where BSON allows it).
    private mutating func text(allowNUL: Bool) -> String {
        let pieces =
            ["a", "b", "z", "$", ".", " ", "é", "e\u{301}", "日本", "🎉", "\u{7F}", "\n"] + (allowNUL ? ["\0"] : [])
        return (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
    }
}

/// Bytes from hexadecimal digits (either case; spaces ignored), for test vectors.
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8.filter { $0 != UInt8(ascii: " ") })
    return stride(from: 0, to: digits.count - 1, by: 2).map { i in
        UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16)!
    }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
}
