import BSON
import Foundation
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
}
