import BSON
import Foundation
import Synchronization
import Testing

@Suite struct ObjectIdTests {
    @Test func hexRoundTripsInEitherCase() {
        let id = ObjectId(hex: "57E193D7A9CC81B4027498B5")
        #expect(id?.hex == "57e193d7a9cc81b4027498b5")
        #expect(id == ObjectId(hex: "57e193d7a9cc81b4027498b5"))
        #expect(id?.description == "ObjectId(\"57e193d7a9cc81b4027498b5\")")
        #expect(id?.byteArray == [0x57, 0xE1, 0x93, 0xD7, 0xA9, 0xCC, 0x81, 0xB4, 0x02, 0x74, 0x98, 0xB5])
    }

    @Test(arguments: [
        "", "57e193d7a9cc81b4027498b", "57e193d7a9cc81b4027498b5a", "57e193d7a9cc81b4027498bg",
        "57e193d7a9cc81b4027498 5", "é7e193d7a9cc81b4027498b",
    ])
    func rejectsInvalidHex(_ hex: String) {
        #expect(ObjectId(hex: hex) == nil)
    }

    @Test func rejectsWrongByteCount() {
        #expect(ObjectId(bytes: [UInt8](repeating: 1, count: 11)) == nil)
        #expect(ObjectId(bytes: [UInt8](repeating: 1, count: 13)) == nil)
    }

    @Test func ordersByBytes() {
        let a = ObjectId(hex: "000000000000000000000001")!
        let b = ObjectId(hex: "000000000000000000000100")!
        #expect(a < b)
        #expect(!(b < a))
        #expect(!(a < a))
    }

    @Test func timestampIsTheCreationSecond() {
        let before = UInt32(Date().timeIntervalSince1970)
        let id = ObjectId()
        let after = UInt32(Date().timeIntervalSince1970)
        #expect((before...after).contains(id.timestamp))
        #expect(ObjectId(hex: "57e193d7a9cc81b4027498b5")?.timestamp == 0x57E1_93D7)
    }

    @Test func idsGeneratedConcurrentlyAreUnique() async {
        let perTask = 12_500
        let ids = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<perTask).map { _ in ObjectId() } }
            }
            var all: [ObjectId] = []
            for await batch in group { all += batch }
            return all
        }
        #expect(ids.count == 100_000)
        #expect(Set(ids).count == 100_000)
    }

    @Test func idsGeneratedOnThreadsAreUnique() {
        let ids = Mutex<[ObjectId]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let batch = (0..<12_500).map { _ in ObjectId() }
            ids.withLock { $0 += batch }
        }
        #expect(Set(ids.withLock { $0 }).count == 100_000)
    }
}
