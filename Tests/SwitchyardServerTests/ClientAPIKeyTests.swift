import BSON
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// The API key provider over real HTTP: user keys managed with the refresh token as realm-core's
/// `UserAPIKeyProviderClient` does, logins with a key, server keys through the admin API, and keys on HTTPS
/// endpoints.
@Suite(.timeLimit(.minutes(1))) struct ClientAPIKeyTests {
    static let definition = try! AppDefinition.parse(
        """
        auth:
          providers: [anon-user, local-userpass, api-key]
        triggers:
          - name: onLogin
            type: authentication
            operation: LOGIN
            providers: [api-key]
            function: recordLogin
        endpoints:
          - {route: /mine, http_method: GET, function_name: whoAmI, respond_result: true}
        """)

    static func registry() -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("recordLogin") { (event: AuthEvent, context: FunctionContext) in
            try await context.services.mongodb().db("app").collection("logins").insertOne([
                "userId": .string(event.user.id), "providers": .array(event.providers.map(BSON.string)),
            ])
        }
        registry.register("whoAmI") { (_: [BSON], context: FunctionContext) in
            ["id": .string(context.user.id), "type": .string(context.user.kind.rawValue)]
        }
        return registry
    }

    static func withApp(
        _ definition: AppDefinition = definition, _ body: (ServedApp) async throws -> Void
    ) async throws {
        try await ServedApp.with(registry(), definition: definition, body)
    }

    static func loginWithKey(_ served: ServedApp, _ key: String) async throws -> HTTPResponse {
        try await served.post("\(served.appBase)/auth/providers/api-key/login", #"{"key": "\#(key)"}"#)
    }

    static func put(_ served: ServedApp, _ url: String, token: String) async throws -> HTTPResponse {
        try await served.client.put(url: url, body: [], headers: ["Authorization": "Bearer \(token)"])
    }

    @Test func aUsersKeyLogsInAsThatUserUntilDisabledOrDeleted() async throws {
        try await Self.withApp { served in
            let ada = try await served.registerAndLogin("ada@example.com")
            let keys = "\(served.base)/auth/api_keys"
            let created = try await served.post(keys, #"{"name": "laptop"}"#, token: ada.refreshToken)
            #expect(created.status == 201)
            let made = try #require(created.json?.documentValue)
            let key = try #require(made["key"]?.stringValue)
            let id = try #require(made["_id"]?.stringValue)
            #expect(key.count == 64 && ObjectId(hex: id) != nil)
            #expect(made["name"] == "laptop" && made["disabled"] == false)

            // The key is shown once: listings and the stored document hold no trace of it.
            let listed = try await served.get(keys, token: ada.refreshToken)
            #expect(listed.json == [["_id": .string(id), "name": "laptop", "disabled": false]])
            #expect(try await served.get("\(keys)/\(id)", token: ada.refreshToken).json?.documentValue?["key"] == nil)
            let stored = try await served.app.store.database("local").collection("switchyard_api_keys").find()
                .toArray()
            #expect(stored.count == 1 && !stored[0].extendedJSON().contains(key))

            let login = try ServedApp.login(from: try await Self.loginWithKey(served, key))
            #expect(login.userId == ada.userId)
            let whoAmI = try await served.get(
                "\(served.server.http.baseURL)/app/\(ServedApp.appId)/endpoint/mine", token: login.accessToken)
            #expect(whoAmI.json?.documentValue?["id"]?.stringValue == ada.userId)
            try await served.app.awaitIdle()
            let logins = try await served.app.store.database("app").collection("logins").find().toArray()
            #expect(logins.map { $0["providers"] } == [["api-key"]])

            #expect(try await Self.put(served, "\(keys)/\(id)/disable", token: ada.refreshToken).status == 204)
            let disabled = try await Self.loginWithKey(served, key)
            #expect(disabled.status == 401 && disabled.errorCode == "InvalidSession")
            #expect(
                try await served.get("\(keys)/\(id)", token: ada.refreshToken).json?.documentValue?["disabled"] == true)
            #expect(try await Self.put(served, "\(keys)/\(id)/enable", token: ada.refreshToken).status == 204)
            #expect(try await Self.loginWithKey(served, key).status == 200)

            #expect(try await served.delete("\(keys)/\(id)", token: ada.refreshToken).status == 204)
            let deleted = try await Self.loginWithKey(served, key)
            #expect(deleted.status == 401 && deleted.errorCode == "InvalidSession")
            #expect(try await served.get(keys, token: ada.refreshToken).json == [])
        }
    }

    @Test func keysAreManagedWithTheRefreshTokenAndOnlyByTheirOwner() async throws {
        try await Self.withApp { served in
            let ada = try await served.registerAndLogin("ada@example.com")
            let bob = try await served.registerAndLogin("bob@example.com")
            let keys = "\(served.base)/auth/api_keys"
            let id = try #require(
                try await served.post(keys, #"{"name": "ci"}"#, token: ada.refreshToken).json?.documentValue?["_id"]?
                    .stringValue)

            let again = try await served.post(keys, #"{"name": "ci"}"#, token: ada.refreshToken)
            #expect(again.status == 409 && again.errorCode == "APIKeyAlreadyExists")
            // Another user may use the same name for a key of their own.
            #expect(try await served.post(keys, #"{"name": "ci"}"#, token: bob.refreshToken).status == 201)

            let withAccessToken = try await served.post(keys, #"{"name": "other"}"#, token: ada.accessToken)
            #expect(withAccessToken.status == 401)
            #expect(try await served.post(keys, #"{}"#, token: ada.refreshToken).errorCode == "MissingParameter")
            #expect(try await served.post(keys, #"{"name": ""}"#, token: ada.refreshToken).status == 400)

            for response in [
                try await served.get("\(keys)/\(id)", token: bob.refreshToken),
                try await served.delete("\(keys)/\(id)", token: bob.refreshToken),
                try await Self.put(served, "\(keys)/\(id)/disable", token: bob.refreshToken),
                try await served.get("\(keys)/\(ObjectId().hex)", token: ada.refreshToken),
            ] {
                #expect(response.status == 404 && response.errorCode == "APIKeyNotFound")
            }
            #expect(try await served.get(keys, token: ada.refreshToken).json?.arrayValue?.count == 1)

            // A deleted user's keys go with them.
            #expect(try await served.delete("\(served.base)/auth/delete", token: ada.accessToken).status == 204)
            let left = try await served.app.store.database("local").collection("switchyard_api_keys").find()
                .toArray()
            #expect(left.map { $0["userId"] } == [.string(bob.userId)])
        }
    }

    @Test func aUserHasAtMostTwentyKeys() async throws {
        try await Self.withApp { served in
            let ada = try await served.registerAndLogin("ada@example.com")
            let keys = "\(served.base)/auth/api_keys"
            for index in 0..<20 {
                #expect(
                    try await served.post(keys, #"{"name": "key\#(index)"}"#, token: ada.refreshToken).status == 201)
            }
            let refused = try await served.post(keys, #"{"name": "one more"}"#, token: ada.refreshToken)
            #expect(refused.status == 400 && refused.errorMessage?.contains("at most 20") == true)
        }
    }

    @Test func anAppThatDoesNotEnableTheProviderRefusesKeys() async throws {
        try await Self.withApp(AppDefinition()) { served in
            let ada = try await served.registerAndLogin("ada@example.com")
            let created = try await served.post(
                "\(served.base)/auth/api_keys", #"{"name": "x"}"#, token: ada.refreshToken)
            #expect(created.status == 404 && created.errorCode == "AuthProviderNotFound")
            let login = try await Self.loginWithKey(served, String(repeating: "a", count: 64))
            #expect(login.status == 404 && login.errorCode == "AuthProviderNotFound")
            let admin = try await served.client.post(
                url: "\(served.server.http.baseURL)/admin/v1/apiKeys", body: Array(#"{"name": "x"}"#.utf8),
                headers: ["Authorization": "Bearer \(served.server.adminToken.value)"])
            #expect(admin.status == 400 && admin.errorCode == "AuthProviderNotFound")
        }
    }

    @Test func aServerKeyLogsInAsItsServerUserAndCallsEndpointsWithTheApiKeyHeader() async throws {
        try await Self.withApp { served in
            let admin = "\(served.server.http.baseURL)/admin/v1/apiKeys"
            let headers: HTTPHeaders = ["Authorization": "Bearer \(served.server.adminToken.value)"]
            let created = try await served.client.post(
                url: admin, body: Array(#"{"name": "backend"}"#.utf8), headers: headers)
            #expect(created.status == 201)
            let made = try #require(created.json?.documentValue)
            let key = try #require(made["key"]?.stringValue)
            let serverUser = try #require(made["userId"]?.stringValue)
            let duplicate = try await served.client.post(
                url: admin, body: Array(#"{"name": "backend"}"#.utf8), headers: headers)
            #expect(duplicate.status == 409 && duplicate.errorCode == "APIKeyAlreadyExists")

            let login = try ServedApp.login(from: try await Self.loginWithKey(served, key))
            #expect(login.userId == serverUser)
            let profile = try await served.get("\(served.base)/auth/profile", token: login.accessToken)
            #expect(profile.json?.documentValue?["type"] == "server")
            #expect(
                profile.json?.documentValue?["identities"]?.arrayValue?.first?.documentValue?["provider_type"]
                    == "api-key")

            let endpoint = "\(served.server.http.baseURL)/app/\(ServedApp.appId)/endpoint/mine"
            let byHeader = try await served.client.get(url: endpoint, headers: ["apiKey": key])
            #expect(byHeader.status == 200)
            #expect(byHeader.json?.documentValue == ["id": .string(serverUser), "type": "server"])
            let wrong = try await served.client.get(
                url: endpoint, headers: ["apiKey": String(repeating: "0", count: 64)])
            #expect(wrong.status == 401 && wrong.errorCode == "InvalidSession")

            let listed = try await served.client.get(url: admin, headers: headers)
            let keys = listed.json?.documentValue?["apiKeys"]?.arrayValue?.compactMap(\.documentValue) ?? []
            #expect(keys.map { $0["name"] } == ["backend"] && keys.allSatisfy { $0["key"] == nil })

            let id = try #require(made["_id"]?.stringValue)
            #expect(try await served.client.delete(url: "\(admin)/\(id)", headers: headers).status == 200)
            #expect(try await served.server.clientAPI.users.user(id: serverUser) == nil)
            #expect(try await served.get("\(served.base)/auth/profile", token: login.accessToken).status == 401)
            #expect(try await Self.loginWithKey(served, key).status == 401)
        }
    }
}
