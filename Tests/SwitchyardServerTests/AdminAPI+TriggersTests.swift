import BSON
import DocumentStore
import Foundation
import Switchyard
import Synchronization
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPITriggersTests {
    private static let dune = #"{"volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"]}}"#

    private func status(_ server: AdminTestServer, _ name: String) async throws -> BSONDocument {
        let response = try await server.get("/triggers/\(name)")
        #expect(response.status == 200)
        return try #require(response.document)
    }

    @Test func statusesCarryCountersAndLag() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.post("/databases/product/collections/book/documents", Self.dune).status == 201)
            try await server.settle()
            let list = try #require(try await server.get("/triggers").document?["triggers"]?.arrayValue)
            #expect(
                list.compactMap { $0.documentValue?["name"]?.stringValue } == [
                    "onBookPushNotification", "favouriteUserBookUpdated", "onSentPushNotification",
                    "retryUnprocessedNotifications", "userRegistered", "updateUser", "userDeleted",
                ])
            let books = try await status(server, "onBookPushNotification")
            #expect(books["type"] == "database")
            #expect(books["function"] == "sentTopicNotification")
            #expect(books["state"] == "running")
            #expect(books["processed"]?.int64Value == 1)
            #expect(books["failedAttempts"]?.int64Value == 0)
            #expect(books["deadLettered"]?.int64Value == 0)
            #expect(books["pendingLogEntries"]?.int64Value == 0)
            #expect(books["inFlight"]?.int64Value == 0)
            #expect(books["lastEventTime"].map { if case .datetime = $0 { true } else { false } } == true)
            // How it delivers, and how it is doing: caught up, so no lag and a heartbeat of now.
            #expect(books["ordering"] == "ordered")
            #expect(books["maxConcurrency"] == nil)
            #expect(books["lagSeconds"]?.doubleValue == 0)
            #expect(books["heartbeat"].map { if case .datetime = $0 { true } else { false } } == true)
            #expect(books["lastClusterTime"].map { if case .timestamp = $0 { true } else { false } } == true)
            let scheduled = try await status(server, "retryUnprocessedNotifications")
            #expect(scheduled["type"] == "scheduled")
            #expect(scheduled["pendingLogEntries"] == nil)
            #expect(scheduled["ordering"] == nil)
            #expect(scheduled["lagSeconds"] == nil)

            let missing = try await server.get("/triggers/nope")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "TriggerNotFound")
            #expect(missing.document?["error"]?.stringValue?.contains("nope") == true)
        }
    }

    @Test func aSuspendedTriggerResumesFromItsTokenAndGetsWhatItMissed() async throws {
        try await AdminTestServer.run { server in
            let suspended = try await server.post("/triggers/onBookPushNotification/suspend")
            #expect(suspended.status == 200)
            #expect(suspended.document?["state"] == "suspended")
            #expect(suspended.document?["suspension"]?.documentValue?["reason"] == "suspended by request")

            #expect(try await server.post("/databases/product/collections/book/documents", Self.dune).status == 201)
            try await server.settle()
            #expect(try await server.app.outbox().isEmpty)
            #expect(try await status(server, "onBookPushNotification")["pendingLogEntries"]?.int64Value == 1)

            let resumed = try await server.post("/triggers/onBookPushNotification/resume")
            #expect(resumed.status == 200)
            #expect(resumed.document?["state"] == "running")
            try await server.settle()
            #expect(try await server.app.outbox().count == 1)
        }
    }

    @Test func resumingWithoutTheTokenSkipsWhatHappenedMeanwhile() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.post("/triggers/onBookPushNotification/suspend").status == 200)
            #expect(try await server.post("/databases/product/collections/book/documents", Self.dune).status == 201)
            try await server.settle()
            let resumed = try await server.post("/triggers/onBookPushNotification/resume", #"{"fromToken": false}"#)
            #expect(resumed.status == 200)
            try await server.settle()
            #expect(try await server.app.outbox().isEmpty)
            #expect(try await server.post("/databases/product/collections/book/documents", Self.dune).status == 201)
            try await server.settle()
            #expect(try await server.app.outbox().count == 1)
        }
    }

    @Test func controlErrorsSayWhatIsWrong() async throws {
        try await AdminTestServer.run { server in
            let running = try await server.post("/triggers/onBookPushNotification/resume")
            #expect(running.status == 409)
            #expect(running.errorCode == "InvalidTriggerState")
            let unknown = try await server.post("/triggers/nope/suspend")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "TriggerNotFound")
            #expect(try await server.post("/triggers/onBookPushNotification/suspend").status == 200)
            let malformed = try await server.post("/triggers/onBookPushNotification/resume", #"{"fromToken": }"#)
            #expect(malformed.status == 400)
            #expect(malformed.document?["error"]?.stringValue?.contains("1:") == true)
            let mistyped = try await server.post("/triggers/onBookPushNotification/resume", #"{"fromToken": "yes"}"#)
            #expect(mistyped.status == 400)
            #expect(mistyped.document?["error"]?.stringValue?.contains("fromToken") == true)
            #expect(try await status(server, "onBookPushNotification")["state"] == "suspended")
            let wrongMethod = try await server.get("/triggers/onBookPushNotification/suspend")
            #expect(wrongMethod.status == 405)
        }
    }

    @Test func theLiveViewSendsStatusesAsTheyChange() async throws {
        try await AdminTestServer.run { server in
            let reader = try await LiveEventReader.open(
                port: server.server.http.port, path: "/admin/v1/triggers/events", token: server.token)
            defer { reader.stop() }
            #expect(reader.status == 200)
            let first = try #require(await reader.next("triggers"))
            let initial = try ExtendedJSON.parseDocument(first.data)["triggers"]?.arrayValue ?? []
            #expect(initial.count == 7)
            #expect(initial.allSatisfy { $0.documentValue?["state"] == "running" })

            #expect(try await server.post("/triggers/onBookPushNotification/suspend").status == 200)
            var suspended = false
            while !suspended, let event = await reader.next("triggers") {
                let statuses = try ExtendedJSON.parseDocument(event.data)["triggers"]?.arrayValue ?? []
                suspended = statuses.contains {
                    $0.documentValue?["name"] == "onBookPushNotification" && $0.documentValue?["state"] == "suspended"
                }
            }
            #expect(suspended)

            let refused = try await LiveEventReader.open(
                port: server.server.http.port, path: "/admin/v1/triggers/events", token: nil)
            #expect(refused.status == 401)
        }
    }

    @Test func deadLettersAreListedAndRedelivered() async throws {
        let failing = Failing()
        try await AdminTestServer.run(app: { try await Self.flakyApp(failing) }) { server in
            #expect(try await server.post("/databases/shop/collections/orders/documents", #"{"_id": 1}"#).status == 201)
            try await server.settle()
            let listed = try await server.get("/deadLetters")
            #expect(listed.status == 200)
            let letters = try #require(listed.document?["deadLetters"]?.arrayValue)
            #expect(letters.count == 1)
            let letter = try #require(letters.first?.documentValue)
            #expect(letter["trigger"] == "flaky")
            #expect(letter["kind"] == "database")
            #expect(letter["error"]?.stringValue?.contains("the shop is closed") == true)
            #expect(letter["attempts"]?.int64Value == 1)
            #expect(letter["event"]?.documentValue?["fullDocument"] == ["_id": 1])
            let id = try #require(letter["_id"]?.objectIdValue)
            #expect(try await server.get("/deadLetters?trigger=flaky").document?["deadLetters"]?.arrayValue?.count == 1)
            let flaky = try await status(server, "flaky")
            #expect(flaky["ordering"] == "unordered")
            #expect(flaky["maxConcurrency"]?.int64Value == 1)
            #expect(try await server.get("/deadLetters?trigger=nope").status == 404)

            let stillFailing = try await server.post("/deadLetters/\(id.hex)/redeliver")
            #expect(stillFailing.status == 500)
            #expect(stillFailing.errorCode == "RedeliveryFailed")
            failing.isOn.store(false, ordering: .relaxed)
            let redelivered = try await server.post("/deadLetters/\(id.hex)/redeliver")
            #expect(redelivered.status == 200)
            #expect(redelivered.document?["redelivered"] == .objectId(id))
            #expect(try await server.get("/deadLetters").document?["deadLetters"]?.arrayValue?.isEmpty == true)

            let gone = try await server.post("/deadLetters/\(id.hex)/redeliver")
            #expect(gone.status == 404)
            #expect(gone.errorCode == "DeadLetterNotFound")
            let malformed = try await server.post("/deadLetters/not-an-id/redeliver")
            #expect(malformed.status == 400)
        }
    }

    /// One unordered trigger on `shop.orders` that gives up after one attempt while `failing` holds.
    private static func flakyApp(_ failing: Failing) async throws -> SwitchyardApp {
        var registry = FunctionRegistry()
        registry.register("refuse") { (_: ChangeEvent, _: FunctionContext) in
            if failing.isOn.load(ordering: .relaxed) { throw ShopClosed() }
        }
        let trigger = TriggerDefinition(
            name: "flaky", function: "refuse",
            kind: .database(
                DatabaseTrigger(
                    scope: .collection(database: "shop", collection: "orders"), operations: [.insert],
                    fullDocument: true, delivery: .unordered(maxConcurrency: 1), retry: RetryPolicy(maxAttempts: 1))))
        let configuration = AppConfiguration(
            definition: AppDefinition(triggers: [trigger]), environment: .development, values: AppValues())
        return try await SwitchyardApp.open(configuration: configuration, registry: registry, store: .memory)
    }

    private final class Failing: Sendable {
        let isOn = Atomic(true)
    }

    private struct ShopClosed: Error, CustomStringConvertible {
        var description: String { "the shop is closed" }
    }
}
