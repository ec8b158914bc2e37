import BSON
import Foundation
import Synchronization
import Testing

@Suite struct ObjectIdTests {
    @Test func hexRoundTripsInEitherCase() {
        let id = ObjectId(hex: "6650A1F4C2B9E83D17A4F0C2")
        #expect(id?.hex == "6650a1f4c2b9e83d17a4f0c2")
        #expect(id == ObjectId(hex: "6650a1f4c2b9e83d17a4f0c2"))
        #expect(id?.description == "ObjectId(\"6650a1f4c2b9e83d17a4f0c2\")")
        #expect(id?.byteArray == [0x66, 0x50, 0xA1, 0xF4, 0xC2, 0xB9, 0xE8, 0x3D, 0x17, 0xA4, 0xF0, 0xC2])
    }

    @Test(arguments: [
        "", "6650a1f4c2b9e83d17a4f0c", "6650a1f4c2b9e83d17a4f0c2a", "6650a1f4c2b9e83d17a4f0cg",
        "6650a1f4c2b9e83d17a4f0 5", "é650a1f4c2b9e83d17a4f0c",
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
        #expect(ObjectId(hex: "6650a1f4c2b9e83d17a4f0c2")?.timestamp == 0x6650_A1F4)
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
