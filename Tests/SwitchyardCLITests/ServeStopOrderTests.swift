import Foundation
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
        let clientAPI = try #require(serving["clientAPI"] as? String)
        let token = try await anonymousAccessToken(at: clientAPI)
        let books = (0..<Self.books).map { #"{"_partition":"PUBLIC","volumeInfo":{"title":"Book \#($0)"}}"# }
        var insert = URLRequest(url: URL(string: "\(clientAPI)/functions/call")!)
        insert.httpMethod = "POST"
        insert.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        insert.httpBody = Data(
            #"{"name":"insertMany","service":"mongodb-atlas","arguments":[{"database":"product","collection":"book","documents":[\#(books.joined(separator: ","))]}]}"#
                .utf8)
        let (body, answered) = try await URLSession.shared.data(for: insert)
        #expect((answered as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: body, as: UTF8.self))")

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
