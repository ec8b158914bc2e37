import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct ServeCommandTests {
    /// The JSON log lines printed so far, as dictionaries.
    private func logLines(_ running: RunningSwitchyard) -> [[String: Any]] {
        running.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits (up to a minute) for a log line whose message contains `text`; returns it.
    private func awaitLine(_ running: RunningSwitchyard, containing text: String, occurrence: Int = 1) async throws
        -> [String: Any]
    {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let matches = logLines(running).filter { ($0["message"] as? String)?.contains(text) == true }
            if matches.count >= occurrence { return matches[occurrence - 1] }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no log line containing '\(text)' in:\n\(running.text)")
        throw CancellationError()
    }

    private func get(_ url: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func watchModeReloadsConfigurationInPlaceAndRebuildsOnlyWhenTheBuildSucceeds() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("values.json", #"{"region": "eu"}"#)
        try app.write("functions/ping.swift", "// fine\n")
        // A stand-in for `swift build`: fails while the function file says so, printing a compiler-style error.
        let build =
            "grep -q broken functions/ping.swift && { echo 'functions/ping.swift:1:1: error: cannot find x in scope'; exit 1; } || true"
        let running = try RunningSwitchyard(
            ["serve", "--watch", "--port", "0", "--log-format", "json", "--build-command", build], in: app.path)
        defer { _ = running.interrupt() }
        let serving = try await awaitLine(running, containing: "serving app 'demo'")
        let dashboard = try #require(serving["dashboard"] as? String)
        #expect(try await get(dashboard + "no-such-page") == 404)

        try app.write("values.json", #"{"region": "us"}"#)
        _ = try await awaitLine(running, containing: "reloaded the configuration: values changed: region")
        try app.write("triggers.yaml", pingApp + "\ntriggers:\n  - name: x\n    type: databse\n")
        let rejected = try await awaitLine(running, containing: "was not reloaded")
        #expect(rejected["level"] as? String == "error")
        #expect((rejected["message"] as? String)?.contains("triggers.yaml:") == true)

        // A rebuild with a configuration that does not load leaves the old server serving.
        try app.write("functions/ping.swift", "// edited\n")
        _ = try await awaitLine(running, containing: "does not load with the new functions")
        #expect(try await get(dashboard + "no-such-page") == 404, "the old server keeps serving")
        try app.write("triggers.yaml", pingApp)
        _ = try await awaitLine(running, containing: "reloaded the configuration", occurrence: 2)

        try app.write("functions/ping.swift", "broken\n")
        let failed = try await awaitLine(running, containing: "the build failed")
        #expect((failed["message"] as? String)?.contains("functions/ping.swift:1:1: error: cannot find x") == true)
        #expect(app.read(".switchyard/build.json")?.contains("\"state\":\"failed\"") == true)
        #expect(try await get(dashboard + "no-such-page") == 404, "the old server keeps serving")

        try app.write("functions/ping.swift", "// fixed\n")
        _ = try await awaitLine(running, containing: "restarting the server")
        let again = try await awaitLine(running, containing: "serving app 'demo'", occurrence: 2)
        #expect(again["dashboard"] as? String == dashboard, "the same port")
        #expect(try await get(dashboard + "no-such-page") == 404)
        #expect(app.read(".switchyard/build.json")?.contains("\"state\":\"succeeded\"") == true)
        #expect(running.interrupt() == 0)
    }
}

@Suite struct ServePushTests {
    @Test func liveDeliveryWithoutCredentialsRefusesToStart() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let run = try switchyard(["serve", "--config", app.path, "--port", "0", "--push", "live"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--push live: no FCM credentials: give --service-account FILE"), "\(run.stderr)")
    }

    @Test func anUnreadableServiceAccountFileIsNamedAndTheKeyNeverPrinted() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let file = try app.write(
            "account.json",
            #"{"type": "service_account", "project_id": "p", "client_email": "e@p", "private_key": "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleQ==\n-----END PRIVATE KEY-----\n"}"#
        )
        let run = try switchyard([
            "serve", "--config", app.path, "--port", "0", "--push", "live", "--service-account", file,
        ])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(file): private_key is not a usable PEM private key"), "\(run.stderr)")
        #expect(!run.stderr.contains("c2VjcmV0LWtleQ") && !run.stdout.contains("c2VjcmV0LWtleQ"))
    }

    @Test func pushModesAreChecked() throws {
        let bad = try switchyard(["serve", "--push", "cloud"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--push is emulator or live, not 'cloud'"))
        let misplaced = try switchyard(["serve", "--service-account", "a.json"])
        #expect(misplaced.status == 2)
        #expect(misplaced.stderr.contains("--service-account is for --push live"))
    }
}
