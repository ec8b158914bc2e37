import Foundation
import Messaging
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `switchyard serve` stopping on SIGTERM while a trigger works through a queue of events: the functions running
/// finish against endpoints still served (the FCM emulator their pushes go to), so no run fails for the server
/// having gone first.
@Suite(.timeLimit(.minutes(3))) struct ServeStopOrderTests {
    static let books = 30

    @Test func sigtermStopsTheTriggersBeforeTheEndpointsTheirFunctionsUse() async throws {
        let data = try TemporaryDirectory()
        let running = try RunningSwitchyard(
            [
                "serve", "--config", repositoryRoot.path, "--data-dir", data.path + "/data", "--port", "0",
                "--log-format", "json",
            ], in: data.path)
        defer { running.kill() }
        let serving = try await running.awaitLine(containing: "serving app")
        let adminAPI = try #require(serving["adminAPI"] as? String)
        // The books come from the back office (only the system writes books), one insert each.
        let admin = try await AdminDataSession(
            http: try HTTPClient(), root: String(adminAPI.dropLast("/admin/v1".count)),
            dataDirectory: data.path + "/data")
        for index in 0..<Self.books {
            let inserted = try await admin.insert(
                "book", #"{"_partition":"PUBLIC","volumeInfo":{"title":"Book \#(index)"}}"#)
            #expect(inserted.status == 201, "\(inserted.text)")
        }

        // The signal comes while the trigger is part-way through the books' events.
        for _ in 0..<3_000 where runs(in: running).isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!runs(in: running).isEmpty, "no run of sentTopicNotification in:\n\(running.text)")
        #expect(running.interrupt(with: SIGTERM) == 0)

        let finished = runs(in: running)
        let failed = finished.filter { $0["outcome"] as? String != "success" }
        #expect(failed.isEmpty, "\(failed)")
        #expect(!running.text.contains("refused"), "\(running.text)")
    }

    private func runs(in running: RunningSwitchyard) -> [[String: Any]] {
        running.logLines.filter { $0["function"] as? String == "sentTopicNotification" }
    }

}
