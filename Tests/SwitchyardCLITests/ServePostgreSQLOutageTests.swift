import BSON
import DocumentStore
import Foundation
import Messaging
import TestSupport
import Testing

/// The example app's `switchyard serve` on PostgreSQL while its server restarts under a stream of new books: writes
/// during the outage are answered at once with 503 `StorageUnavailable` (not left hanging), writes succeed again once the
/// server is back, and every book acknowledged before, during or after reaches its trigger.
@Suite(.timeLimit(.minutes(3))) struct ServePostgreSQLOutageTests {
    /// What the writer saw, for the test to wait on.
    actor Writes {
        var acknowledged: Set<String> = []
        var refusals: [String] = []

        func add(_ book: String) { acknowledged.insert(book) }
        func refused(_ answer: String) { refusals.append(answer) }
    }

    @Test func everyAcknowledgedBookIsNotifiedAcrossARestartOfPostgreSQL() async throws {
        let postgres = try await offPool { try PostgreSQLServer.own() }
        defer { postgres.stop() }
        let url = try await offPool { try postgres.database("books") }
        let data = try TemporaryDirectory()
        let port = closedLoopbackPort()
        let root = "http://127.0.0.1:\(port)"
        let http = try HTTPClient()
        let server = try ServerProcess(repositoryRoot.path, data: data.path, port: port, store: url)
        defer { server.kill() }
        try await server.awaitServing(http, base: "\(root)/api/client/v2.0/app/switchyard-app")
        let admin = try await AdminDataSession(http: http, root: root, dataDirectory: data.path)

        let writes = Writes()
        let writer = Task {
            while !Task.isCancelled {
                let book = ObjectId().hex
                let answer = try? await admin.insert(
                    "book", #"{"_id":{"$oid":"\#(book)"},"_partition":"PUBLIC","volumeInfo":{"title":"Dune"}}"#)
                if answer?.status == 201 {
                    await writes.add(book)
                } else if !Task.isCancelled {
                    await writes.refused("\(answer?.status ?? 0) \(answer?.text ?? "no answer")")
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
        }
        try await Self.waitUntil { await writes.acknowledged.count >= 20 }
        try await offPool { try postgres.stopGracefully() }
        try await Self.waitUntil { await writes.refusals.count >= 3 }
        try await offPool { try postgres.start() }
        let before = await writes.acknowledged.count
        try await Self.waitUntil { await writes.acknowledged.count >= before + 20 }
        writer.cancel()
        _ = await writer.result

        for refusal in await writes.refusals {
            #expect(refusal.hasPrefix("503 "), "\(refusal)")
            #expect(refusal.contains(#""error_code":"StorageUnavailable""#), "\(refusal)")
        }
        // The trigger, suspended while the change log could not be read, goes on once it can: every acknowledged
        // book gets its topic notification.
        let books = await writes.acknowledged
        let store = try await DocumentStore.open(.postgresql(url: url))
        var missing: [String] = []
        try await Self.waitUntil {
            missing = (try? await ExampleAppCrashTests.unhandled(books: books, titles: [:], store: store)) ?? ["?"]
            return missing.isEmpty
        }
        #expect(missing.isEmpty, "\(missing.prefix(5))")
        await store.close()
    }

    /// Waits until `condition` holds, for up to a minute (a deadline, not a measure: a hang fails the test).
    private static func waitUntil(_ condition: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !(await condition()) {
            guard Date() < deadline else {
                Issue.record("gave up waiting after a minute")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
