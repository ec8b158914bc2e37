import BSON
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `serve --watch` on a scaffolded app with the real `swift build`: items stream in while a function is edited;
/// the rebuilt server takes over on the same port, no committed item is lost, and a broken edit leaves the last
/// good server serving with the compiler's errors in the terminal and the admin API.
extension InitScaffoldBuildTests {
    /// The scaffold's `countNewItem` edited to also record, in order, the items it saw.
    static let editedFunction = #"""
        import Switchyard

        func countNewItem(_ event: ChangeEvent, _ context: FunctionContext) async throws {
            let stats = try context.services.mongodb().db("app").collection("stats")
            let id = event.documentKey?["_id"] ?? .null
            try await stats.updateOne(["_id": "items"], ["$inc": ["count": 1], "$push": ["editedCodeSaw": id]], upsert: true)
        }

        """#

    @Test func watchRebuildsAnEditedFunctionWhileItemsStreamAndKeepsServingThroughABrokenEdit() async throws {
        let parent = try TemporaryDirectory()
        let app = try scaffold(in: parent)
        let build = try swift(["build", "--scratch-path", Self.scratch, "--product", "BookShop"], in: app)
        try #require(build.status == 0, "\(build.stdout)\n\(build.stderr)")
        let running = try RunningSwitchyard(
            ["serve", "--watch", "--port", "0", "--log-format", "json"], in: app,
            executable: URL(fileURLWithPath: "\(Self.scratch)/debug/BookShop"))
        defer { _ = running.interrupt() }
        let watching = try await running.awaitLine(containing: "watching")
        #expect(
            (watching["message"] as? String)?.contains(
                "swift build --package-path \(URL(fileURLWithPath: app).standardizedFileURL.path) --product BookShop --scratch-path \(Self.scratch)"
            ) == true, "the build of this executable, where it was built")
        let serving = try await running.awaitLine(containing: "serving app 'app'")
        let dashboard = try #require(serving["dashboard"] as? String)
        // The dashboard's files come from Switchyard's resource bundle, beside the app's own executable.
        let (page, _) = try await URLSession.shared.data(from: try #require(URL(string: dashboard)))
        #expect(String(decoding: page, as: UTF8.self).contains("<title>Switchyard</title>"))
        let admin = try RestartingAdminClient(base: dashboard + "admin/v1", dataDirectory: "\(app)/.switchyard")

        let writer = ItemWriter(admin: admin)
        let writing = Task { await writer.run() }
        defer { writing.cancel() }
        try await admin.awaitStats("the scaffold's function counts") { $0["count"]?.int64Value ?? 0 >= 5 }

        try Self.editedFunction.write(toFile: "\(app)/functions/countNewItem.swift", atomically: true, encoding: .utf8)
        _ = try await running.awaitLine(containing: "restarting the server", timeout: .seconds(900))
        let restarted = try await running.awaitLine(containing: "serving app 'app'", occurrence: 2)
        #expect(restarted["dashboard"] as? String == serving["dashboard"] as? String, "the same port")
        // The writer inserts one item at a time: the one after the next cannot have reached the old server.
        let firstAfterRestart = await writer.acknowledged + 2
        try await admin.awaitStats("the edited function takes over") { stats in
            stats.sawByEditedCode.contains(Int64(firstAfterRestart))
        }

        try "func countNewItem(_ event: ChangeEvent {\n".write(
            toFile: "\(app)/functions/countNewItem.swift", atomically: true, encoding: .utf8)
        let failed = try await running.awaitLine(containing: "the build failed", timeout: .seconds(900))
        #expect((failed["message"] as? String)?.contains("countNewItem.swift:1:") == true, "\(failed)")
        let status = await admin.get("/build")
        #expect(status?["state"] == "failed")
        #expect(status?["output"]?.stringValue?.contains("countNewItem.swift:1:") == true)
        let duringBrokenEdit = await writer.acknowledged + 3
        try await admin.awaitStats("the last good server keeps handling items") { stats in
            stats.sawByEditedCode.contains(Int64(duringBrokenEdit))
        }

        writing.cancel()
        await writing.value
        let total = await writer.acknowledged
        try await admin.awaitStats("every acknowledged item is counted") { $0["count"]?.int64Value ?? 0 >= total }
        let stats = try #require(await admin.stats())
        let missing = (Int64(firstAfterRestart)...Int64(total)).filter { !stats.sawByEditedCode.contains($0) }
        #expect(missing.isEmpty, "items the rebuilt server never handled: \(missing.prefix(10))")
        #expect(running.interrupt() == 0)
    }
}

extension RestartingAdminClient {
    /// app.stats' one document, nil while the server is down or nothing was counted.
    func stats() async -> BSONDocument? {
        await firstDocument("app", "stats")
    }

    /// Waits up to two minutes for app.stats' document to satisfy `condition`.
    func awaitStats(_ what: String, _ condition: (BSONDocument) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        var last: BSONDocument?
        while ContinuousClock.now < deadline {
            if let stats = await stats() {
                last = stats
                if condition(stats) { return }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(what): not within two minutes; app.stats is \(last.map { "\($0)" } ?? "missing")")
        throw CancellationError()
    }
}

extension BSONDocument {
    /// The items the edited `countNewItem` recorded.
    fileprivate var sawByEditedCode: Set<Int64> {
        Set(self["editedCodeSaw"]?.arrayValue?.compactMap(\.int64Value) ?? [])
    }
}

/// Inserts items 1, 2, 3, … into app.items, each until the server acknowledges it, until cancelled.
actor ItemWriter {
    let admin: RestartingAdminClient
    /// The highest item the server acknowledged (all below it were too).
    private(set) var acknowledged = 0

    init(admin: RestartingAdminClient) {
        self.admin = admin
    }

    func run() async {
        while !Task.isCancelled {
            let next = acknowledged + 1
            let item = #"{"_id": {"$numberLong": "\#(next)"}, "name": "item \#(next)"}"#
            if await admin.insert(item, into: "app", "items") {
                acknowledged = next
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
