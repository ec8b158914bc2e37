import BSON
import Messaging
import Switchyard
import TestSupport
import Testing

/// The platforms devices registered with are kept in `local.devices`, so a restarted app records the same views.
@Suite struct DeviceCollectionTests {
    @Test func registeredPlatformsSurviveARestart() async throws {
        let directory = try TemporaryDirectory()
        let configuration = AppConfiguration(
            definition: AppDefinition(), environment: .development, values: AppValues())
        let app = try await SwitchyardApp.open(
            configuration: configuration, registry: FunctionRegistry(), store: .sqlite(directory: directory.path))
        try await app.pushOutbox.devices.register("phone", platform: .ios)
        try await app.pushOutbox.devices.register("browser", platform: .web)
        try await app.pushOutbox.devices.register("browser", platform: nil)
        await app.stop()

        let reopened = try await SwitchyardApp.open(
            configuration: configuration, registry: FunctionRegistry(), store: .sqlite(directory: directory.path))
        #expect(reopened.pushOutbox.devices.all == ["phone": .ios])
        _ = try await reopened.pushOutbox.send(PushMessage(target: .token("phone"), notification: .init(title: "t")))
        let entry = try #require(try await reopened.outbox().last)
        #expect(entry.ios != nil && entry.android == nil)
        await reopened.stop()
    }
}
