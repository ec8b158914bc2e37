import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A 12-byte ObjectId: 4 bytes of seconds since the epoch (big-endian), 5 bytes random per process,
/// 3 bytes of a counter that starts at a random value.
public struct ObjectId: Sendable, Hashable, Comparable {
    public let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// A new, process-unique ObjectId.
    public init() {
        self = ObjectIdGenerator.shared.next()
    }

    /// An ObjectId from exactly 12 bytes.
    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 12 else { return nil }
        let b = Array(bytes)
        self.bytes = (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11])
    }

    init(byteTuple: Bytes) {
        bytes = byteTuple
    }

    /// The 12 bytes at `pointer` (no alignment needed).
    init(reading pointer: UnsafeRawPointer) {
        bytes = pointer.loadUnaligned(as: Bytes.self)
    }

    typealias Bytes = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// An ObjectId from 24 hexadecimal digits (either case).
    public init?(hex: String) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 24 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(12)
        var i = 0
        while i < 24 {
            guard let hi = Self.nibble(utf8[i]), let lo = Self.nibble(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        self.init(bytes: out)
    }

    /// The generation time, in whole seconds since the epoch.
    public var timestamp: UInt32 {
        UInt32(bytes.0) << 24 | UInt32(bytes.1) << 16 | UInt32(bytes.2) << 8 | UInt32(bytes.3)
    }

    public var byteArray: [UInt8] {
        withUnsafeBytes(of: bytes) { Array($0) }
    }

    /// 24 lowercase hexadecimal digits.
    public var hex: String {
        // Written straight into the string's storage: every invocation record's id is formatted.
        withUnsafeBytes(of: bytes) { bytes in
            String(unsafeUninitializedCapacity: 24) { out in
                let digits: StaticString = "0123456789abcdef"
                let table = digits.utf8Start
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = table[Int(byte >> 4)]
                    out[2 * index + 1] = table[Int(byte & 0xF)]
                }
                return 24
            }
        }
    }

    public static func == (lhs: ObjectId, rhs: ObjectId) -> Bool {
        compareBytes(lhs, rhs) == 0
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes(of: bytes) { hasher.combine(bytes: $0) }
    }

    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        compareBytes(lhs, rhs) < 0
    }

    private static func compareBytes(_ lhs: ObjectId, _ rhs: ObjectId) -> Int32 {
        withUnsafeBytes(of: lhs.bytes) { l in
            withUnsafeBytes(of: rhs.bytes) { r in memcmp(l.baseAddress!, r.baseAddress!, 12) }
        }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension ObjectId: CustomStringConvertible {
    public var description: String { "ObjectId(\"\(hex)\")" }
}

/// Shared state for ObjectId generation: the per-process random bytes and an atomic counter, so ids made
/// on any number of threads at once never repeat.
final class ObjectIdGenerator: Sendable {
    static let shared = ObjectIdGenerator()

    private let processUnique: (UInt8, UInt8, UInt8, UInt8, UInt8)
    private let counter: Atomic<UInt32>

    private init() {
        var rng = SystemRandomNumberGenerator()
        func byte() -> UInt8 { UInt8.random(in: 0...255, using: &rng) }
        processUnique = (byte(), byte(), byte(), byte(), byte())
        counter = Atomic(UInt32.random(in: 0...0xFF_FFFF, using: &rng))
    }

    /// Made without allocating: every function run's invocation record takes one.
    func next() -> ObjectId {
        let count = counter.add(1, ordering: .relaxed).newValue & 0xFF_FFFF
        // The precise clock, as `Date()` reads it: `time()` reads the kernel's coarse clock, which lags by up to a
        // tick, so an id made just after a second began could carry a time before a date taken just before it.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = UInt32(truncatingIfNeeded: now.tv_sec)
        let unique = processUnique
        return ObjectId(
            byteTuple: (
                UInt8(seconds >> 24), UInt8(seconds >> 16 & 0xFF), UInt8(seconds >> 8 & 0xFF), UInt8(seconds & 0xFF),
                unique.0, unique.1, unique.2, unique.3, unique.4,
                UInt8(count >> 16), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)
            ))
    }
}
