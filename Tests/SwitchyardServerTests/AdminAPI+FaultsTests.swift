import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPIFaultsTests {
    private func patch(_ server: AdminTestServer, _ body: String) async throws -> HTTPResponse {
        try await server.client.send(
            HTTPRequest(
                method: "PATCH", url: server.baseURL + "/admin/v1/faults",
                headers: ["Authorization": "Bearer \(server.token)"], body: Array(body.utf8)))
    }

    @Test func faultsAreReadChangedAndCleared() async throws {
        try await AdminTestServer.run { server in
            let initial = try #require(try await server.get("/faults").document)
            #expect(initial == FaultSettings().document.relaxedRoundTrip)

            let changed = try await patch(server, #"{"unavailable": 1, "unregisteredTokens": ["dead-token"]}"#)
            #expect(changed.status == 200)
            #expect(changed.document?["unavailable"]?.int64Value == 1)
            #expect(server.app.pushOutbox.faults.unregisteredTokens == ["dead-token"])
            // Only what the patch names changes.
            #expect(try await patch(server, #"{"latencyMilliseconds": 0}"#).document?["unavailable"]?.int64Value == 1)

            // The next send fails as injected (and uses the fault up), so the book's trigger sees FCM's 503.
            #expect(
                try await server.post(
                    "/databases/product/collections/book/documents", #"{"volumeInfo": {"title": "Dune"}}"#
                ).status == 201)
            try await server.settle()
            #expect(try await server.get("/faults").document?["unavailable"]?.int64Value == 0)
            let failed = try #require(try await server.app.outbox().first)
            #expect(failed.error?.code == .unavailable)

            let cleared = try await server.client.send(
                HTTPRequest(
                    method: "DELETE", url: server.baseURL + "/admin/v1/faults",
                    headers: ["Authorization": "Bearer \(server.token)"]))
            #expect(cleared.document?["unregisteredTokens"] == [])
            #expect(server.app.pushOutbox.faults.isEmpty)
        }
    }

    @Test func badFaultsAre400AndChangeNothing() async throws {
        try await AdminTestServer.run { server in
            for (body, message) in [
                (#"{"unavailable": -1}"#, "'unavailable' must be a whole number"),
                (#"{"sometimes": 1}"#, "unknown field 'sometimes'"),
                (#"{"unregisteredTokens": "x"}"#, "'unregisteredTokens' must be an array"),
                ("{", "malformed Extended JSON"),
            ] {
                let response = try await patch(server, body)
                #expect(response.status == 400, "\(body)")
                #expect(response.errorMessage?.contains(message) == true, "\(response.text)")
            }
            #expect(server.app.pushOutbox.faults.isEmpty)
        }
    }

    @Test func topicsListTheirSubscribers() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.get("/topics").document?["topics"] == [])
            try await server.app.pushOutbox.topics.subscribe(["phone-2", "phone-1"], to: "books")
            try await server.app.pushOutbox.topics.subscribe(["phone-1"], to: "authors")
            #expect(
                try await server.get("/topics").document?["topics"] == [
                    ["name": "authors", "tokens": ["phone-1"]], ["name": "books", "tokens": ["phone-1", "phone-2"]],
                ])
        }
    }
}

extension BSONDocument {
    /// The document as relaxed Extended JSON reads it back (64-bit integers that fit become 32-bit).
    var relaxedRoundTrip: BSONDocument {
        (try? ExtendedJSON.parseDocument(extendedJSON(mode: .relaxed))) ?? [:]
    }
}
