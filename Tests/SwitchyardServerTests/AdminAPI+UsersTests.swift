import BSON
import Foundation
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPIUsersTests {
    @Test func usersAreListedOldestFirstWithTheirCustomData() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.get("/users").document?["users"] == [])
            let users = server.app.store.database("local").collection("switchyard_users")
            _ = try await users.insertOne([
                "_id": "u2", "type": "normal", "identities": [["id": "i2", "provider_type": "anon-user"]], "data": [:],
                "createdAt": .datetime(BSONDate(millisecondsSinceEpoch: 2_000)),
            ])
            _ = try await users.insertOne([
                "_id": "u1", "type": "normal",
                "identities": [["id": "ann@example.com", "provider_type": "local-userpass"]],
                "data": ["email": "ann@example.com"], "createdAt": .datetime(BSONDate(millisecondsSinceEpoch: 1_000)),
                "lastLoginAt": .datetime(BSONDate(millisecondsSinceEpoch: 3_000)),
            ])
            _ = try await server.app.store.database("product").collection("customUserData").insertOne([
                "userId": "u1", "FCMToken": ["token-1"],
            ])
            let listed = try #require(try await server.get("/users").document?["users"]?.arrayValue)
            #expect(listed.map { $0.documentValue?["_id"] } == ["u1", "u2"])
            let ann = try #require(listed.first?.documentValue)
            #expect(ann["data"] == ["email": "ann@example.com"])
            #expect(ann["customData"]?.documentValue?["FCMToken"] == ["token-1"])
            #expect(listed.last?.documentValue?["customData"] == nil)
            #expect(try await server.get("/users?limit=1").document?["users"]?.arrayValue?.count == 1)
            #expect(try await server.get("/users?limit=-1").status == 400)
        }
    }
}
