import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPIOutboxTests {
    private static let book = #"{"volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"]}}"#

    @Test func messagesAreListedOldestFirst() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.get("/outbox").document?["messages"] == [])
            for _ in 0..<2 {
                #expect(try await server.post("/databases/product/collections/book/documents", Self.book).status == 201)
            }
            try await server.settle()
            let messages = try #require(try await server.get("/outbox").document?["messages"]?.arrayValue)
            #expect(messages.count == 2)
            let first = try #require(messages.first?.documentValue)
            #expect(first["target"] == ["topic": "books"])
            #expect(first["payload"]?.documentValue?["from"] == "/topics/books")
            #expect(first["request"]?.documentValue?["message"]?.documentValue?["topic"] == "books")
            let names = messages.compactMap { $0.documentValue?["name"]?.stringValue }
            #expect(try await server.app.outbox().map(\.name) == names)
            #expect(try await server.get("/outbox?limit=1").document?["messages"]?.arrayValue?.count == 1)
            #expect(try await server.get("/outbox?limit=x").status == 400)
        }
    }

    @Test func theLiveFeedSendsEachNewMessage() async throws {
        try await AdminTestServer.run { server in
            let reader = try await LiveEventReader.open(
                port: server.server.http.port, path: "/admin/v1/outbox/events", token: server.token)
            defer { reader.stop() }
            #expect(reader.status == 200)
            #expect(try await server.post("/databases/product/collections/book/documents", Self.book).status == 201)
            let event = try #require(await reader.next("message"))
            let entry = try OutboxEntry(document: try ExtendedJSON.parseDocument(event.data))
            #expect(entry.target == .topic("books"))
            #expect(entry.payload?["notification"]?.documentValue?["title"] == "New book added")
        }
    }

    @Test func devicesComeFromCustomUserDataTokensAndTokenTargets() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.get("/devices").document?["devices"] == [])
            let userData = server.app.store.database("product").collection("customUserData")
            _ = try await userData.insertOne(["userId": "u1", "FCMToken": ["phone-1", "tablet-1"]])
            _ = try await userData.insertOne([
                "userId": "u2", "FCMToken": ["phone-2", "phone-1"], "name": "not a token",
            ])
            try await server.app.pushOutbox.topics.subscribe(["phone-1", "watch-9"], to: "books")
            _ = try await server.app.messaging.send(
                PushMessage(target: .token("loose-token"), notification: .init(title: "hi")))
            let devices = try #require(try await server.get("/devices").document?["devices"]?.arrayValue)
            #expect(
                devices == [
                    ["token": "phone-1", "userId": "u1", "topics": ["books"]],
                    ["token": "tablet-1", "userId": "u1", "topics": []],
                    ["token": "phone-2", "userId": "u2", "topics": []], ["token": "watch-9", "topics": ["books"]],
                    ["token": "loose-token", "topics": []],
                ])
        }
    }

    @Test func aDeviceAMessageReachedByItsFirebaseInstallationIDIsListed() async throws {
        try await AdminTestServer.run { server in
            _ = try await server.app.messaging.send(PushMessage(target: .fid("fid-phone"), data: ["bookId": "42"]))
            let devices = try #require(try await server.get("/devices").document?["devices"]?.arrayValue)
            #expect(devices == [["token": "fid-phone", "topics": []]])
        }
    }
}
