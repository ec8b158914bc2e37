import Messaging
import Synchronization
import Testing

@Suite struct DeviceRegistryTests {
    @Test func keepsAtMostItsCapacityAndForgetsTheLeastRecentlyRegisteredInTheSinkToo() async throws {
        let changes = Mutex<[DeviceRegistry.Change]>([])
        let devices = DeviceRegistry(capacity: 3, sink: { change in changes.withLock { $0.append(change) } })
        for index in 0..<5 { try await devices.register("t\(index)", platform: .ios) }
        #expect(devices.all == ["t2": .ios, "t3": .ios, "t4": .ios])
        #expect(devices.platform(of: "t0") == nil)
        let forgotten = changes.withLock { $0 }.filter { $0.platform == nil }.map(\.token)
        #expect(forgotten == ["t0", "t1"])
    }

    @Test func registeringAgainMakesATokenTheNewest() async throws {
        let devices = DeviceRegistry(capacity: 2)
        try await devices.register("a", platform: .ios)
        try await devices.register("b", platform: .android)
        try await devices.register("a", platform: .web)
        try await devices.register("c", platform: .ios)
        #expect(devices.all == ["a": .web, "c": .ios])
    }

    @Test func anEarlierRunsRegistrationsBeyondTheCapacityAreNotLoaded() {
        let devices = DeviceRegistry(["a": .ios, "b": .ios, "c": .ios], capacity: 2)
        #expect(devices.all.count == 2)
    }
}
