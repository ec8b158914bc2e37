import BSON
import Foundation
import Testing

@testable import MongoWire

/// Messages built byte by byte as a driver sends them, decoded; and bad ones refused with located errors.
@Suite struct WireCodecTests {
    static func message(opCode: Int32, requestID: Int32 = 7, body: [UInt8]) -> [UInt8] {
        var writer = WireWriter()
        writer.int32(0)
        writer.int32(requestID)
        writer.int32(0)
        writer.int32(opCode)
        writer.bytes += body
        writer.patchLength()
        return writer.bytes
    }

    static func opMsg(_ command: BSONDocument, sequence: (String, [BSONDocument])? = nil, flags: UInt32 = 0)
        throws -> [UInt8]
    {
        var body = WireWriter()
        body.int32(Int32(bitPattern: flags))
        body.bytes.append(0)
        body.bytes += try command.bsonBytes
        if let (identifier, documents) = sequence {
            var section: [UInt8] = Array(identifier.utf8) + [0]
            for document in documents { section += try document.bsonBytes }
            body.bytes.append(1)
            body.int32(Int32(section.count + 4))
            body.bytes += section
        }
        var bytes = message(opCode: 2013, body: body.bytes)
        if flags & 1 != 0 {
            var checked = WireWriter(bytes: bytes + [0, 0, 0, 0])
            checked.patchLength()
            bytes = checked.bytes
            let checksum = CRC32C.checksum(bytes[0..<(bytes.count - 4)])
            for i in 0..<4 { bytes[bytes.count - 4 + i] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(i))) }
        }
        return bytes
    }

    @Test func opMsgWithADocumentSequence() throws {
        let bytes = try Self.opMsg(
            ["insert": "books", "$db": "shop"], sequence: ("documents", [["_id": .int32(1)], ["_id": .int32(2)]]))
        let request = try WireCodec.decode(bytes)
        #expect(request.database == "shop")
        #expect(request.requestID == 7)
        #expect(request.command["documents"] == [["_id": .int32(1)], ["_id": .int32(2)]])
        #expect(request.kind == .message(moreToCome: false))
    }

    @Test func checksumIsVerified() throws {
        var bytes = try Self.opMsg(["ping": .int32(1), "$db": "admin"], flags: 1 | 2)
        #expect(try WireCodec.decode(bytes).kind == .message(moreToCome: true))
        bytes[bytes.count - 1] ^= 0xFF
        #expect(throws: WireError.self) { try WireCodec.decode(bytes) }
    }

    @Test func zlibCompressedMessageAndReply() throws {
        let inner = try Self.opMsg(["ping": .int32(1), "$db": "admin"])
        let original = Array(inner.dropFirst(16))
        var body = WireWriter()
        body.int32(2013)
        body.int32(Int32(original.count))
        body.bytes.append(2)
        body.bytes += try #require(Zlib.compress(original))
        let request = try WireCodec.decode(Self.message(opCode: 2012, body: body.bytes))
        #expect(request.command["ping"] == .int32(1))
        #expect(request.compressor == 2)
        let reply = WireCodec.encodeReply(["ok": .double(1)], to: request, requestID: 9)
        #expect(reply[12] == 0xDC && reply[13] == 0x07)  // 2012, OP_COMPRESSED
        let inflated = try Zlib.decompress(Array(reply.dropFirst(25)), size: Int(reply[20]) | Int(reply[21]) << 8)
        #expect(try BSONDocument(bsonBytes: inflated.dropFirst(5)) == ["ok": .double(1)])
    }

    @Test func legacyIsMasterOverOpQuery() throws {
        var body = WireWriter()
        body.int32(0)
        body.bytes += Array("admin.$cmd".utf8) + [0]
        body.int32(0)
        body.int32(-1)
        body.bytes += try (["isMaster": .int32(1)] as BSONDocument).bsonBytes
        let request = try WireCodec.decode(Self.message(opCode: 2004, body: body.bytes))
        #expect(request.kind == .query)
        #expect(request.database == "admin")
        let reply = WireCodec.encodeReply(["ok": .double(1)], to: request, requestID: 3)
        #expect(reply[12] == 1)  // OP_REPLY
    }

    @Test func badMessagesAreRefused() throws {
        let good = try Self.opMsg(["ping": .int32(1), "$db": "admin"])
        var unknownSection = good
        unknownSection[20] = 9
        var unknownFlag = good
        unknownFlag[16] = 0x10
        let cases: [[UInt8]] = [
            Array(good.prefix(20)), unknownSection, unknownFlag, Self.message(opCode: 1, body: [0, 0, 0, 0]),
            Self.message(opCode: 2013, body: [0, 0, 0, 0]), try Self.opMsg(["ping": .int32(1)]),
        ]
        for bytes in cases {
            #expect(throws: WireError.self) { try WireCodec.decode(bytes) }
        }
    }

    /// Mutated messages (flipped bytes, truncations, changed lengths) decode or fail with a `WireError`, never
    /// trap. `SWITCHYARD_WIRE_FUZZ_CASES` runs more (`make fuzz`); a seed from `SWITCHYARD_FUZZ_SEED` replays one.
    @Test func fuzzedMessagesNeverCrashTheDecoder() throws {
        let environment = ProcessInfo.processInfo.environment
        let cases = environment["SWITCHYARD_WIRE_FUZZ_CASES"].flatMap(Int.init) ?? 20_000
        let seed = environment["SWITCHYARD_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        let seeds: [[UInt8]] = [
            try Self.opMsg(
                ["insert": "b", "$db": "d", "ordered": .bool(true)],
                sequence: ("documents", [["_id": .int32(1), "a": ["b": .string("c")]]])),
            try Self.opMsg(["find": "b", "$db": "d", "filter": ["x": .int32(1)]], flags: 1),
            try {
                let inner = try Self.opMsg(["ping": .int32(1), "$db": "admin"])
                var body = WireWriter()
                body.int32(2013)
                body.int32(Int32(inner.count - 16))
                body.bytes.append(2)
                body.bytes += Zlib.compress(Array(inner.dropFirst(16)))!
                return Self.message(opCode: 2012, body: body.bytes)
            }(),
        ]
        var decoded = 0
        for _ in 0..<cases {
            var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + random.next() % 4) {
                let position = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[position] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.removeSubrange(position...)
                case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
                default: bytes[position] ^= 1 << UInt8(random.next() % 8)
                }
                if bytes.count < 16 { bytes += [UInt8](repeating: 0, count: 16 - bytes.count) }
            }
            // The connection frames by the header's length; the decoder sees the whole message.
            var length = WireWriter(bytes: bytes)
            if random.next() % 2 == 0 { length.patchLength() }
            if (try? WireCodec.decode(length.bytes)) != nil { decoded += 1 }
        }
        #expect(decoded < cases, "seed \(seed): every mutation decoded, so the mutations test nothing")
    }
}

/// A small seeded generator, so a failing fuzz run can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
