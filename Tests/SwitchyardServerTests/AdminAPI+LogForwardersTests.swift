import BSON
import Functions
import Switchyard
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPILogForwardersTests {
    /// The example app's functions with one forwarder of every successful function run into `logs.runs`.
    static func appWithForwarder() async throws -> SwitchyardApp {
        let definition = AppDefinition(
            logForwarders: [
                LogForwarder(
                    name: "runs", logTypes: [.function], logStatuses: [.success], policy: .batch,
                    action: .collection(database: "logs", collection: "runs"))
            ])
        return try await SwitchyardApp.open(
            configuration: AppConfiguration(definition: definition, environment: .development, values: AppValues()),
            registry: functionRegistry, store: .memory)
    }

    @Test func forwardersAreListedWithTheirCounts() async throws {
        try await AdminTestServer.run(app: Self.appWithForwarder) { server in
            for _ in 1...3 { _ = try await server.app.call(function: "ping", arguments: [], user: .system) }
            await server.app.logForwarding.flush()

            let response = try await server.get("/logForwarders")
            #expect(response.status == 200)
            let forwarders = response.document?["logForwarders"]?.arrayValue?.compactMap(\.documentValue) ?? []
            #expect(forwarders.count == 1)
            let status = try #require(forwarders.first)
            #expect(status["name"] == "runs")
            #expect(status["policy"] == "batch")
            #expect(status["action"] == ["collection": "logs.runs"])
            #expect(status["logTypes"] == ["function"])
            #expect(status["delivered"]?.int64Value == 3)
            #expect(status["failed"]?.int64Value == 0)
            #expect(status["dropped"]?.int64Value == 0)
            #expect(status["queued"]?.int64Value == 0)
            #expect(status["lastError"] == nil)
        }
    }
}
