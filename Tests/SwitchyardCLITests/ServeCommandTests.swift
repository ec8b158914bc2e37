import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(2))) struct ServeCommandTests {
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
        let serving = try await running.awaitLine(containing: "serving app 'demo'")
        let dashboard = try #require(serving["dashboard"] as? String)
        #expect(try await get(dashboard + "no-such-page") == 404)

        try app.write("values.json", #"{"region": "us"}"#)
        _ = try await running.awaitLine(containing: "reloaded the configuration: values changed: region")
        try app.write("triggers.yaml", pingApp + "\ntriggers:\n  - name: x\n    type: databse\n")
        let rejected = try await running.awaitLine(containing: "was not reloaded")
        #expect(rejected["level"] as? String == "error")
        #expect((rejected["message"] as? String)?.contains("triggers.yaml:") == true)

        // A rebuild with a configuration that does not load leaves the old server serving.
        try app.write("functions/ping.swift", "// edited\n")
        _ = try await running.awaitLine(containing: "does not load with the new functions")
        #expect(try await get(dashboard + "no-such-page") == 404, "the old server keeps serving")
        try app.write("triggers.yaml", pingApp)
        _ = try await running.awaitLine(containing: "reloaded the configuration", occurrence: 2)

        try app.write("functions/ping.swift", "broken\n")
        let failed = try await running.awaitLine(containing: "the build failed")
        #expect((failed["message"] as? String)?.contains("functions/ping.swift:1:1: error: cannot find x") == true)
        #expect(app.read(".switchyard/build.json")?.contains("\"state\":\"failed\"") == true)
        #expect(try await get(dashboard + "no-such-page") == 404, "the old server keeps serving")

        try app.write("functions/ping.swift", "// fixed\n")
        _ = try await running.awaitLine(containing: "restarting the server")
        let again = try await running.awaitLine(containing: "serving app 'demo'", occurrence: 2)
        #expect(again["dashboard"] as? String == dashboard, "the same port")
        #expect(try await get(dashboard + "no-such-page") == 404)
        #expect(app.read(".switchyard/build.json")?.contains("\"state\":\"succeeded\"") == true)
        #expect(running.interrupt() == 0)
    }

    @Test func aBuildKilledByASignalRunsOnceMoreButAFailedOneDoesNot() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("functions/ping.swift", "// fine\n")
        // Counts its runs; dies of SIGSEGV on its first (as SwiftPM sometimes does) and whenever the file says
        // "crash"; fails while it says "broken".
        let build =
            "echo run >> build-runs; grep -q crash functions/ping.swift && kill -SEGV $$; "
            + "[ $(wc -l < build-runs) -ge 2 ] || kill -SEGV $$; ! grep -q broken functions/ping.swift"
        let running = try RunningSwitchyard(
            ["serve", "--watch", "--port", "0", "--log-format", "json", "--build-command", build], in: app.path)
        defer { _ = running.interrupt() }
        _ = try await running.awaitLine(containing: "serving app 'demo'")

        try app.write("functions/ping.swift", "// edited\n")
        _ = try await running.awaitLine(containing: "serving app 'demo'", occurrence: 2)
        #expect(!running.text.contains("the build failed"), "\(running.text)")
        #expect(app.read("build-runs") == "run\nrun\n")

        try app.write("functions/ping.swift", "broken\n")
        _ = try await running.awaitLine(containing: "the build failed")
        #expect(app.read("build-runs") == "run\nrun\nrun\n", "a build that failed is not run again")

        // Killed twice: the build failed, and says why.
        try app.write("build-runs", "")
        try app.write("functions/ping.swift", "// crash\n")
        let killed = try await running.awaitLine(containing: "the build failed", occurrence: 2)
        #expect((killed["message"] as? String)?.contains("was killed by signal 11") == true, "\(killed)")
        #expect(app.read("build-runs") == "run\nrun\n")
        #expect(running.interrupt() == 0)
    }

    @Test func servePrintsTheAdminTokenAndKeepsItForTheOwnerOnly() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let running = try RunningSwitchyard(["serve", "--port", "0"], in: app.path)
        var interrupted = false
        defer { if !interrupted { _ = running.interrupt() } }
        let deadline = Date().addingTimeInterval(60)
        var printed: [String] = []
        while printed.count < 2, Date() < deadline {
            let lines = running.text.split(separator: "\n")
            printed = ["dashboard", "admin token"].compactMap { label in
                lines.first { $0.hasPrefix("  \(label) ") }.map { String($0.dropFirst(label.count + 2)) }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(printed.count == 2, "\(running.text)")
        let dashboard = printed[0].trimmingCharacters(in: .whitespaces)
        let token = String(printed[1].trimmingCharacters(in: .whitespaces).prefix { $0 != " " })
        #expect(token.count == 64)
        #expect(printed[1].contains("(also in .switchyard/admin.token)"))
        #expect(app.read(".switchyard/admin.token") == token + "\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(app.path)/.switchyard/admin.token")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        var request = URLRequest(url: URL(string: dashboard + "admin/v1/app")!)
        #expect(try await status(request) == 401)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        #expect(try await status(request) == 200)
        interrupted = true
        #expect(running.interrupt() == 0)
    }

    @Test func servePrintsEveryCallItServesInTheOrderTheyRan() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let running = try RunningSwitchyard(["serve", "--port", "0", "--log-format", "json"], in: app.path)
        defer { running.kill() }
        let serving = try await running.awaitLine(containing: "serving app 'demo'")
        let clientAPI = try #require(serving["clientAPI"] as? String)
        let token = try await anonymousAccessToken(at: clientAPI)
        let calls = 300
        for index in 0..<calls {
            var call = URLRequest(url: URL(string: "\(clientAPI)/functions/call")!)
            call.httpMethod = "POST"
            call.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            call.httpBody = Data(#"{"name":"ping","arguments":[\#(index)]}"#.utf8)
            let (_, answered) = try await URLSession.shared.data(for: call)
            #expect((answered as? HTTPURLResponse)?.statusCode == 200)
        }
        // Stopping prints what is still queued before it says it stopped.
        #expect(running.interrupt() == 0)
        let lines = running.text.split(separator: "\n")
        let runs = lines.filter { $0.contains(#""function":"ping""#) }
        #expect(runs.count == calls)
        // One after another, so each ended after the one before (times are UTC, printed at a fixed width).
        let times = runs.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["time"] as? String
        }
        #expect(times.count == calls)
        #expect(times == times.sorted())
        let stopped = try #require(lines.lastIndex { $0.contains("\"stopped\"") })
        #expect(lines.lastIndex { $0.contains(#""function":"ping""#) }.map { $0 < stopped } == true)
    }

    private func status(_ request: URLRequest) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func anAppWithoutDataAccessRulesSaysSoOnceAndClientsAreRefused() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", "appId: demo\n")
        let running = try RunningSwitchyard(["serve", "--port", "0", "--log-format", "json"], in: app.path)
        defer { running.kill() }
        let serving = try await running.awaitLine(containing: "serving app 'demo'")
        let warning = try await running.awaitLine(containing: "no data access rules")
        #expect((warning["message"] as? String)?.contains("add a rules: section to triggers.yaml") == true)
        let clientAPI = try #require(serving["clientAPI"] as? String)
        let token = try await anonymousAccessToken(at: clientAPI)
        var find = URLRequest(url: URL(string: "\(clientAPI)/functions/call")!)
        find.httpMethod = "POST"
        find.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        find.httpBody = Data(
            #"{"name":"find","service":"mongodb-atlas","arguments":[{"database":"shop","collection":"items","query":{}}]}"#
                .utf8)
        let (body, answered) = try await URLSession.shared.data(for: find)
        #expect((answered as? HTTPURLResponse)?.statusCode == 403)
        #expect(String(decoding: body, as: UTF8.self).contains("NoMatchingRuleFound"))
        #expect(running.interrupt() == 0)
        #expect(
            running.logLines.filter { ($0["message"] as? String)?.contains("no data access rules") == true }.count == 1)
    }

    @Test func anAppWithRulesSaysNothingOfThem() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let running = try RunningSwitchyard(["serve", "--port", "0", "--log-format", "json"], in: app.path)
        defer { running.kill() }
        _ = try await running.awaitLine(containing: "serving app 'demo'")
        #expect(running.interrupt() == 0)
        #expect(!running.text.contains("no data access rules"))
    }

    @Test func serveImportsSeedDataBeforeServingAndExportsItOnExit() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write("seed/shop.items.json", #"{"_id": 1, "name": "kettle"}"# + "\n")
        let running = try RunningSwitchyard(
            ["serve", "--port", "0", "--log-format", "json", "--import", "seed", "--export-on-exit", "out"],
            in: app.path)
        defer { running.kill() }
        _ = try await running.awaitLine(containing: "imported 1 documents in 1 collections from seed")
        let serving = try await running.awaitLine(containing: "serving app 'demo'")
        let clientAPI = try #require(serving["clientAPI"] as? String)

        // A client adds a second item through the client API; both leave in the export.
        let token = try await anonymousAccessToken(at: clientAPI)
        var insert = URLRequest(url: URL(string: "\(clientAPI)/functions/call")!)
        insert.httpMethod = "POST"
        insert.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        insert.httpBody = Data(
            #"{"name":"insertOne","service":"mongodb-atlas","arguments":[{"database":"shop","collection":"items","document":{"_id":2,"name":"mug"}}]}"#
                .utf8)
        let (_, inserted) = try await URLSession.shared.data(for: insert)
        #expect((inserted as? HTTPURLResponse)?.statusCode == 200)

        #expect(running.interrupt() == 0)
        let exported = try #require(app.read("out/shop.items.json"))
        #expect(exported.contains("kettle"))
        #expect(exported.contains("mug"))
        #expect(running.text.contains("exported 1 collections to out"))
    }

    @Test func theQueryTimeLimitIsSecondsAboveZero() throws {
        for bad in ["0", "soon", "-1"] {
            let run = try switchyard(["serve", "--query-time-limit", bad])
            #expect(run.status == 2)
            #expect(
                run.stderr.contains("--query-time-limit takes seconds, more than 0 and at most 86400, not '\(bad)'"))
        }
    }

    @Test func aStoreThatIsNoPostgreSQLURLIsRefusedWithoutItsPassword() throws {
        let run = try switchyard(["serve", "--store", "mysql://app:hunter2@db.example/books"])
        #expect(run.status == 2)
        #expect(
            run.stderr.contains(
                "--store: a PostgreSQL store is a URL starting postgresql://, not mysql://app:***@db.example/books"))
        #expect(!run.stderr.contains("hunter2"))
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
