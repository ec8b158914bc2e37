import BSON
import DocumentStore
import Foundation
import Messaging
import TestSupport
import Testing

/// The example app's notification queue catching up in a `switchyard serve` child process that is killed with
/// SIGKILL mid-drain several times: every queued notification ends up in the development outbox exactly once and
/// the queue shows it processed. A kill between recording a send and marking its entry processed would send it
/// again after the restart (the trigger redelivers the entry's insert): the two commit together or not at all.
@Suite(.timeLimit(.minutes(5))) struct ExampleAppDrainCrashTests {
    /// Each kill lands between a send and its entry's update now and then: enough of them that one does.
    static let kills = 12
    /// Notifications processed in a round before its kill may come, so that it lands mid-drain.
    static let processedPerRound = 5
    /// What a round tops the queue up to when a restart has drained it below that: every kill finds a drain
    /// in progress however fast the machine sends.
    static let refill = 200
    /// Every emulator send takes this long, so a restart's catch-up lasts longer than the test takes to look.
    static let sendLatency = "5ms"

    @Test func everyQueuedNotificationIsSentExactlyOnceAcrossKillsMidDrain() async throws {
        let data = try TemporaryDirectory()
        let app = try Self.slowSendingApp(in: data)
        let port = closedLoopbackPort()
        let root = "http://127.0.0.1:\(port)"
        let base = "\(root)/api/client/v2.0/app/switchyard-app"
        let client = try HTTPClient()
        var queued = 0
        var killedMidDrain = 0

        for _ in 0..<Self.kills {
            let server = try ServerProcess(app, data: "\(data.path)/data", port: port)
            defer { server.kill() }
            try await server.awaitServing(client, base: base)
            let admin = try await AdminDataSession(http: client, root: root, dataDirectory: "\(data.path)/data")
            var left = try await Self.unprocessed(admin)
            if left < Self.refill {
                try await Self.queue(Self.refill, from: queued, through: admin)
                queued += Self.refill
                left = try await Self.unprocessed(admin)
            }
            // Killed once this round has sent some, at a random point of a send, however loaded the machine.
            let through = Date().addingTimeInterval(60)
            var now = left
            while now > left - Self.processedPerRound, Date() < through {
                try await Task.sleep(for: .milliseconds(5))
                now = try await Self.unprocessed(admin)
            }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...5_000)))
            server.kill()
            if now > 0 { killedMidDrain += 1 }
        }
        #expect(killedMidDrain >= Self.kills / 2, "the drain finished before the kills could land in it")

        // A last server catches up.
        let server = try ServerProcess(app, data: "\(data.path)/data", port: port)
        defer { server.kill() }
        try await server.awaitServing(client, base: base)
        let admin = try await AdminDataSession(http: client, root: root, dataDirectory: "\(data.path)/data")
        let deadline = Date().addingTimeInterval(120)
        while try await Self.unprocessed(admin) > 0, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        server.kill()

        let store = try await DocumentStore.open(.sqlite(directory: "\(data.path)/data"))
        let outbox = try await store.database("local").collection("outbox").find([:]).toArray()
        let entries = try await store.database("product").collection("pushNotification").find([:]).toArray()
        await store.close()
        var sends: [String: Int] = [:]
        for record in outbox where record["error"] == nil {
            if let token = record["target"]?.documentValue?["token"]?.stringValue { sends[token, default: 0] += 1 }
        }
        #expect(entries.count == queued)
        var problems: [String] = []
        for index in 0..<queued {
            let token = Self.device(index)
            if sends[token] != 1 { problems.append("notification \(index) sent \(sends[token] ?? 0) times") }
        }
        for entry in entries where entry["processed"] != true {
            problems.append(
                "\(entry["_id"]?.stringValue ?? "?") not processed (attempts: \(entry["attempts"].map { "\($0)" } ?? "none"), lastError: \(entry["lastError"]?.stringValue ?? "none"))"
            )
        }
        #expect(problems.isEmpty, "\(problems.count) problems, e.g. \(problems.prefix(5))")
    }

    /// A copy of the example app's configuration whose FCM emulator answers each send `sendLatency` late.
    static func slowSendingApp(in root: TemporaryDirectory) throws -> String {
        let app = "\(root.path)/app"
        try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
        for entry in ["triggers.yaml", "values.json", "environments", "data_sources"] {
            let source = repositoryRoot.appendingPathComponent(entry).path
            guard FileManager.default.fileExists(atPath: source) else { continue }
            try FileManager.default.copyItem(atPath: source, toPath: "\(app)/\(entry)")
        }
        let triggers = try String(contentsOfFile: "\(app)/triggers.yaml", encoding: .utf8)
        try #require(!triggers.contains("\nmessaging:"), "the example app configures messaging: merge the latency in")
        try (triggers + "\nmessaging:\n  emulator:\n    faults: {latency: \(sendLatency)}\n").write(
            toFile: "\(app)/triggers.yaml", atomically: true, encoding: .utf8)
        return app
    }

    /// A device token per notification, shaped like an FCM registration token.
    static func device(_ index: Int) -> String {
        "drainDevice\(index):APA91b" + String(repeating: "x", count: 140)
    }

    /// Queues `count` notifications numbered from `first` as `onBookUpdated` does, each to a device of its own,
    /// from four writers.
    static func queue(_ count: Int, from first: Int, through admin: AdminDataSession) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in stride(from: first + writer, to: first + count, by: 4) {
                        let entry =
                            #"{"_id":"drain-\#(index)","token":["\#(device(index))"],"date":{"$date":"2026-01-01T00:00:00Z"},"processed":false,"changes":{"volumeInfo.title":"Dune Messiah"},"userId":"reader-\#(index)","bookId":"42","title":"Dune Messiah","attempts":0}"#
                        let inserted = try await admin.insert("pushNotification", entry)
                        #expect(inserted.status == 201, "\(inserted.text)")
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// How many queued notifications are not processed yet.
    static func unprocessed(_ admin: AdminDataSession) async throws -> Int {
        let response = try await admin.http.get(
            url: "\(admin.base)/databases/product/collections/pushNotification/documents?limit=1&filter="
                + #"{"processed":false}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            headers: ["Authorization": "Bearer \(admin.token)"])
        let count = try #require(ExtendedJSON.parseDocument(response.text)["count"]?.int64Value, "\(response.text)")
        return Int(count)
    }
}
