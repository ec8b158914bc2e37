import BSON
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// What the admin API uses: listing, reading and deleting users.
@Suite(.timeLimit(.minutes(1))) struct UserDirectoryTests {
    @Test func listsUsersNewestFirstAndReadsOne() async throws {
        let (registry, definition) = ClientAPIAuthTests.recordingRegistry()
        try await ServedApp.with(registry, definition: definition) { served in
            let users = served.server.clientAPI.users
            let first = try await served.loginAnonymously()
            served.clock.advance(by: 1)
            let second = try await served.registerAndLogin("ada@example.com")
            #expect(try await users.list().map(\.id) == [second.userId, first.userId])
            #expect(try await users.list(limit: 1, skip: 1).map(\.id) == [first.userId])
            #expect(try await users.count() == 2)
            let ada = try #require(try await users.user(id: second.userId))
            #expect(ada.data["email"] == "ada@example.com")
            #expect(ada.providers == ["local-userpass"])
            #expect(UserRecord(document: ada.document) == ada)
            #expect(try await users.user(id: ObjectId().hex) == nil)
        }
    }

    @Test func deletingRevokesSessionsAndFiresTheDeleteTrigger() async throws {
        let (registry, definition) = ClientAPIAuthTests.recordingRegistry()
        try await ServedApp.with(registry, definition: definition) { served in
            let users = served.server.clientAPI.users
            let login = try await served.loginAnonymously()
            try await users.delete(id: login.userId)
            #expect(try await ClientAPIAuthTests.authEvents(served) == ["CREATE", "LOGIN", "DELETE"])
            #expect(try await served.get("\(served.base)/auth/profile", token: login.accessToken).status == 401)
            await #expect(throws: APIError.userNotFound(login.userId)) { try await users.delete(id: login.userId) }
        }
    }

    @Test func theSigningKeyIsMadeOnceAndKeptInTheStore() async throws {
        let (registry, definition) = ClientAPIAuthTests.recordingRegistry()
        try await ServedApp.with(registry, definition: definition) { served in
            let again = try await SigningKey.load(from: served.app.store)
            #expect(again.bytes == served.server.clientAPI.tokens.key.bytes)
            #expect("\(again)" == "SigningKey(64 bytes, redacted)")
            #expect(try await served.app.store.database("local").collection("switchyard_keys").countDocuments() == 1)
        }
    }

    @Test func sessionsPastTheirExpiryAreDroppedWhenTheServerStarts() async throws {
        let (registry, definition) = ClientAPIAuthTests.recordingRegistry()
        try await ServedApp.with(registry, definition: definition) { served in
            _ = try await served.loginAnonymously()
            _ = try await served.loginAnonymously()
            let sessions = served.app.store.database("local").collection("switchyard_sessions")
            #expect(try await sessions.countDocuments() == 2)
            let later = served.clock.now.addingTimeInterval(61 * 24 * 3600)
            _ = try await ClientAPI.prepare(
                app: served.app, appId: ServedApp.appId, configuration: .init(passwordIterations: 1_000, now: { later })
            )
            #expect(try await sessions.countDocuments() == 0)
        }
    }

    @Test func tokensAndPasswordsSurviveARestartOnTheSameDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (registry, definition) = ClientAPIAuthTests.recordingRegistry()
        let configuration = AppConfiguration(definition: definition, environment: .development, values: AppValues())
        func serve<Result>(_ body: (AppServer) async throws -> Result) async throws -> Result {
            let app = try await SwitchyardApp.open(
                configuration: configuration, registry: registry, store: .sqlite(directory: directory))
            let server = try await AppServer.start(
                app: app,
                configuration: .init(port: 0, appId: ServedApp.appId, clientAPI: .init(passwordIterations: 1_000)))
            do {
                let result = try await body(server)
                await server.stop()
                await app.stop()
                return result
            } catch {
                await server.stop()
                await app.stop()
                throw error
            }
        }
        let client = try HTTPClient()
        let base = { (server: AppServer) in "\(server.http.baseURL)\(ClientAPI.basePath)" }
        let token = try await serve { server in
            let app = "\(base(server))/app/\(ServedApp.appId)"
            let registered = try await client.post(
                url: "\(app)/auth/providers/local-userpass/register",
                body: Array(#"{"email": "ada@example.com", "password": "correct horse"}"#.utf8))
            #expect(registered.status == 201)
            return try ServedApp.login(
                from: try await client.post(
                    url: "\(app)/auth/providers/local-userpass/login",
                    body: Array(#"{"username": "ada@example.com", "password": "correct horse"}"#.utf8))
            ).accessToken
        }
        try await serve { server in
            let profile = try await client.get(
                url: "\(base(server))/auth/profile", headers: ["Authorization": "Bearer \(token)"])
            #expect(profile.status == 200)
            let login = try await client.post(
                url: "\(base(server))/app/\(ServedApp.appId)/auth/providers/local-userpass/login",
                body: Array(#"{"username": "ada@example.com", "password": "correct horse"}"#.utf8))
            #expect(login.status == 200)
        }
    }
}
