import BSON
import DocumentStore
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

/// A request's token check keeps verified tokens, sessions, users and custom user data in memory; whatever
/// changes them, however it is written, is seen by the very next request.
@Suite(.timeLimit(.minutes(1))) struct ClientAPICachedAuthTests {
    static func withApp<Result>(_ body: (ServedApp) async throws -> Result) async throws -> Result {
        try await ClientAPIAuthTests.withApp(body)
    }

    /// Calls `whoAmI` and answers the caller's custom data, or the error code.
    static func whoAmI(_ served: ServedApp, _ token: String) async throws -> Result<BSONDocument, TestFailure> {
        let response = try await served.call("whoAmI", token: token)
        guard response.status == 200 else { return .failure(TestFailure(response.errorCode ?? "\(response.status)")) }
        return .success(try ExtendedJSON.parseValue(response.text).documentValue?["custom"]?.documentValue ?? [:])
    }

    @Test func aSessionRevokedInTheStoreEndsItsTokensOnTheNextRequest() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            let session = try served.server.clientAPI.tokens.verify(login.accessToken, as: .access).sessionId
            try await served.app.store.database("local").collection("switchyard_sessions").updateOne(
                ["_id": .string(session)], ["$set": ["revokedAt": .datetime(BSONDate(Date()))]])
            #expect(try await Self.whoAmI(served, login.accessToken) == .failure(TestFailure("InvalidSession")))
        }
    }

    @Test func loggingOutEndsAnAccessTokenInUseAtOnce() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            #expect(try await served.delete("\(served.base)/auth/session", token: login.refreshToken).status == 204)
            #expect(try await Self.whoAmI(served, login.accessToken) == .failure(TestFailure("InvalidSession")))
        }
    }

    @Test func aUserRemovedFromTheStoreIsRefusedOnTheNextRequest() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            try await served.app.store.database("local").collection("switchyard_users").deleteOne([
                "_id": .string(login.userId)
            ])
            let refused = try await served.call("whoAmI", token: login.accessToken)
            #expect(refused.status == 401)
            #expect(refused.errorMessage == "invalid session: the token's user no longer exists")
        }
    }

    @Test func customDataChangedByAnyWriterIsSeenByTheNextCall() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let userData = served.app.store.database("app").collection("userData")
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            // Straight into the store (as a function or trigger would write it).
            let id = try await userData.insertOne(["userId": .string(login.userId), "plan": "free"]).insertedId
            #expect(
                try await Self.whoAmI(served, login.accessToken)
                    == .success(["_id": id, "userId": .string(login.userId), "plan": "free"]))
            // Through the client API's mongodb-atlas service.
            _ = try await served.atlas(
                "updateOne",
                #"{"database": "app", "collection": "userData", "query": {"userId": "\#(login.userId)"}, "update": {"$set": {"plan": "pro"}}}"#,
                token: login.accessToken)
            #expect(
                try await Self.whoAmI(served, login.accessToken)
                    == .success(["_id": id, "userId": .string(login.userId), "plan": "pro"]))
            let profile = try await served.get("\(served.base)/auth/profile", token: login.accessToken)
            #expect(profile.json?.documentValue?["custom_data"]?.documentValue?["plan"] == "pro")
            try await userData.deleteMany([:])
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            #expect(
                try await served.get("\(served.base)/auth/profile", token: login.accessToken).json?.documentValue?[
                    "custom_data"] == [:])
        }
    }

    @Test func aSessionPastItsLifetimeEndsAKeptAccessTokenThoughNothingWasWritten() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            // Ten minutes before the session's 60 days end, a refresh gives an access token outliving it.
            served.clock.advance(by: 60 * 24 * 3600 - 600)
            let refreshed = try await served.post("\(served.base)/auth/session", token: login.refreshToken)
            let access = try #require(refreshed.json?.documentValue?["access_token"]?.stringValue)
            #expect(try await Self.whoAmI(served, access) == .success([:]))
            #expect(try await Self.whoAmI(served, access) == .success([:]))
            served.clock.advance(by: 601)
            let refused = try await served.call("whoAmI", token: access)
            #expect(refused.status == 401)
            #expect(
                refused.errorMessage == "invalid session: the session has ended (logged out, expired or user deleted)")
        }
    }

    @Test func aKeptTokenVouchesForNoOtherTokenWithItsClaims() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            // The same header and payload under another signature, and under none.
            let signingInput = login.accessToken.split(separator: ".").prefix(2).joined(separator: ".")
            let signature = String(login.accessToken.split(separator: ".")[2])
            let altered = signingInput + "." + String(signature.reversed())
            #expect(try await Self.whoAmI(served, altered) == .failure(TestFailure("InvalidSession")))
            #expect(try await Self.whoAmI(served, signingInput + ".") == .failure(TestFailure("InvalidSession")))
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
        }
    }

    @Test func deletingTheUserThroughTheAPIEndsEveryKeptTokenOfTheirsAtOnce() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let other = try await served.loginAnonymously()
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            #expect(try await Self.whoAmI(served, other.accessToken) == .success([:]))
            #expect(try await served.delete("\(served.base)/auth/delete", token: login.accessToken).status == 204)
            #expect(try await Self.whoAmI(served, login.accessToken) == .failure(TestFailure("InvalidSession")))
            // Another user's kept token is read again, and still good.
            #expect(try await Self.whoAmI(served, other.accessToken) == .success([:]))
        }
    }

    @Test func aTokenVerifiedBeforeStillExpiresAndKeepsItsKind() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            #expect(try await Self.whoAmI(served, login.accessToken) == .success([:]))
            // The refresh token verified as one: it is still no access token.
            #expect(try await served.post("\(served.base)/auth/session", token: login.refreshToken).status == 201)
            let misused = try await served.call("whoAmI", token: login.refreshToken)
            #expect(misused.errorMessage == "invalid session: expected an access token, got refresh token")
            served.clock.advance(by: 31 * 60)
            let expired = try await served.call("whoAmI", token: login.accessToken)
            #expect(expired.status == 401)
            #expect(expired.errorMessage == "invalid session: the access token expired")
        }
    }
}

extension TestFailure: Equatable {
    static func == (lhs: TestFailure, rhs: TestFailure) -> Bool { lhs.description == rhs.description }
}
