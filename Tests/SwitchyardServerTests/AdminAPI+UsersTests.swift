import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

@Suite struct AdminAPIUsersTests {
    @Test func usersAreListedNewestFirstWithTheirCustomData() async throws {
        try await AdminTestServer.run { server in
            let empty = try #require(try await server.get("/users").document)
            #expect(empty["users"] == [])
            #expect(empty["count"]?.int64Value == 0)
            let email = try await server.register("ann@example.com").id
            let anonymous = try await server.loginAnonymously().id
            try await server.settle()

            let listed = try #require(try await server.get("/users").document)
            #expect(listed["count"]?.int64Value == 2)
            let users = listed["users"]?.arrayValue?.compactMap(\.documentValue) ?? []
            #expect(users.map { $0["_id"]?.stringValue } == [anonymous, email])
            let ann = try #require(users.last)
            #expect(ann["type"] == "normal")
            #expect(ann["data"]?.documentValue?["email"] == "ann@example.com")
            #expect(ann["identities"]?.arrayValue?.first?.documentValue?["provider_type"] == "local-userpass")
            // The example app's authentication trigger made their custom user data.
            #expect(ann["customData"]?.documentValue?["userId"] == .string(email))
            #expect(try await server.get("/users?limit=1").document?["users"]?.arrayValue?.count == 1)
            #expect(
                try await server.get("/users?limit=1&skip=1").document?["users"]?.arrayValue?.first?.documentValue?[
                    "_id"]
                    == .string(email))
            #expect(try await server.get("/users?limit=-1").status == 400)

            let one = try await server.get("/users/\(email)")
            #expect(one.status == 200)
            #expect(one.document?["_id"] == .string(email))
            let missing = try await server.get("/users/nobody")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "UserNotFound")
        }
    }

    @Test func deletingAUserEndsTheirSessions() async throws {
        try await AdminTestServer.run { server in
            let id = try await server.register("bob@example.com").id
            let deleted = try await server.client.send(
                HTTPRequest(
                    method: "DELETE", url: server.baseURL + "/admin/v1/users/\(id)",
                    headers: ["Authorization": "Bearer \(server.token)"]))
            #expect(deleted.status == 200)
            #expect(deleted.document?["deleted"] == .string(id))
            #expect(try await server.get("/users").document?["count"]?.int64Value == 0)
            let again = try await server.client.send(
                HTTPRequest(
                    method: "DELETE", url: server.baseURL + "/admin/v1/users/\(id)",
                    headers: ["Authorization": "Bearer \(server.token)"]))
            #expect(again.status == 404)
            let login = try await server.client.post(
                url: server.clientURL("/auth/providers/local-userpass/login"),
                body: Array(#"{"username": "bob@example.com", "password": "correct horse"}"#.utf8))
            #expect(login.status == 401)
        }
    }
}
