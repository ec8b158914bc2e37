import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// Every way of presenting a token that is not a live one of the right kind is refused with 401
/// `InvalidSession`, and no client reaches private functions or another user's data.
@Suite(.timeLimit(.minutes(1))) struct ClientAPIAttackTests {
    static func app() -> (FunctionRegistry, AppDefinition) {
        var registry = FunctionRegistry()
        registry.register("addNote") { (arguments: [BSON], context: FunctionContext) in
            try await context.services.mongodb().db("app").collection("notes").insertOne([
                "owner": .string(context.user.id), "text": arguments.first ?? .null,
            ])
            return .null
        }
        // Reads the caller's notes: whose they are comes from the token, never from the request.
        registry.register("myNotes") { (_: [BSON], context: FunctionContext) in
            let notes = try await context.services.mongodb().db("app").collection("notes")
                .find(["owner": .string(context.user.id)]).toArray()
            return .array(notes.compactMap { $0["text"] })
        }
        // Reads anyone's notes, guarded by a rule that the argument is the caller.
        registry.register("notesOf") { (arguments: [BSON], context: FunctionContext) in
            let notes = try await context.services.mongodb().db("app").collection("notes")
                .find(["owner": arguments.first ?? .null]).toArray()
            return .array(notes.compactMap { $0["text"] })
        }
        registry.register("internalReport") { (_: [BSON], _: FunctionContext) in "every user's notes" }
        let definition = AppDefinition(functions: [
            "notesOf": FunctionSettings(runAsSystem: false, canEvaluate: ["%%args.0": "%%user.id"]),
            "internalReport": FunctionSettings(isPrivate: true),
        ])
        return (registry, definition)
    }

    static func withApp<Result>(_ body: (ServedApp) async throws -> Result) async throws -> Result {
        let (registry, definition) = app()
        return try await ServedApp.with(registry, definition: definition, body)
    }

    static func expectInvalidSession(_ response: HTTPResponse, _ comment: Comment? = nil) {
        #expect(response.status == 401, comment)
        #expect(response.errorCode == "InvalidSession", comment)
    }

    static func claims(of token: String) throws -> BSONDocument {
        let payload = try #require(Base64URL.decode(token.split(separator: ".")[1]))
        return try ExtendedJSON.parseDocument(payload)
    }

    static func encode(_ document: BSONDocument) -> String {
        Base64URL.encode(document.extendedJSONBytes(mode: .relaxed))
    }

    @Test func expiredAccessTokensAreRefusedAndTheRefreshTokenRenewsThem() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            served.clock.advance(by: 31 * 60)
            let expired = try await served.call("myNotes", token: login.accessToken)
            Self.expectInvalidSession(expired)
            #expect(expired.errorMessage?.contains("expired") == true)
            let refreshed = try await served.post("\(served.base)/auth/session", token: login.refreshToken)
            let access = try #require(refreshed.json?.documentValue?["access_token"]?.stringValue)
            #expect(try await served.call("myNotes", token: access).status == 200)

            served.clock.advance(by: 61 * 24 * 3600)
            Self.expectInvalidSession(try await served.post("\(served.base)/auth/session", token: login.refreshToken))
        }
    }

    @Test func forgedPayloadsWithAnotherTokensSignatureAreRefused() async throws {
        try await Self.withApp { served in
            let alice = try await served.loginAnonymously()
            let mallory = try await served.loginAnonymously()
            // Mallory's own token is used first, so the server keeps it: the forgery shares its signature.
            #expect(try await served.call("myNotes", token: mallory.accessToken).status == 200)
            var claims = try Self.claims(of: mallory.accessToken)
            claims["sub"] = .string(alice.userId)
            let parts = mallory.accessToken.split(separator: ".")
            let forged = "\(parts[0]).\(Self.encode(claims)).\(parts[2])"
            Self.expectInvalidSession(try await served.call("myNotes", token: forged))
            Self.expectInvalidSession(try await served.get("\(served.base)/auth/profile", token: forged))
        }
    }

    @Test func tokensSignedWithAnotherKeyAreRefused() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let claims = try Self.claims(of: login.accessToken)
            let otherKey = SigningKey(bytes: Cryptography.randomBytes(64))
            Self.expectInvalidSession(try await served.call("myNotes", token: JSONWebToken.sign(claims, key: otherKey)))

            // A token from another data directory (another key) is refused too.
            let (registry, definition) = Self.app()
            let elsewhere = try await ServedApp.with(registry, definition: definition) { other in
                try await other.loginAnonymously().accessToken
            }
            Self.expectInvalidSession(try await served.call("myNotes", token: elsewhere))
        }
    }

    @Test func algorithmNoneAndOtherAlgorithmsAreRefused() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let parts = login.accessToken.split(separator: ".")
            let payload = String(parts[1])
            for header: BSONDocument in [
                ["alg": "none", "typ": "JWT"], ["alg": "None"], ["alg": "HS512"], ["typ": "JWT"],
            ] {
                for signature in ["", String(parts[2])] {
                    let token = "\(Self.encode(header)).\(payload).\(signature)"
                    Self.expectInvalidSession(
                        try await served.call("myNotes", token: token), "\(header) \(signature.isEmpty)")
                }
            }
            for garbage in ["", "a.b", "a.b.c.d", "....", String(repeating: "x", count: 5_000)] {
                Self.expectInvalidSession(try await served.call("myNotes", token: garbage))
            }
        }
    }

    @Test func refreshTokensAreNotAccessTokensAndViceVersa() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            Self.expectInvalidSession(try await served.call("myNotes", token: login.refreshToken))
            Self.expectInvalidSession(try await served.get("\(served.base)/auth/profile", token: login.refreshToken))
            Self.expectInvalidSession(try await served.delete("\(served.base)/auth/delete", token: login.refreshToken))
            Self.expectInvalidSession(try await served.post("\(served.base)/auth/session", token: login.accessToken))
            Self.expectInvalidSession(try await served.delete("\(served.base)/auth/session", token: login.accessToken))
            #expect(try await served.server.clientAPI.users.user(id: login.userId) != nil)
        }
    }

    @Test func tokensForAnotherAppAreRefused() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            var claims = try Self.claims(of: login.accessToken)
            claims["aud"] = "other-app"
            let token = JSONWebToken.sign(claims, key: served.server.clientAPI.tokens.key)
            let response = try await served.call("myNotes", token: token)
            Self.expectInvalidSession(response)
            #expect(response.errorMessage?.contains("another app") == true)
        }
    }

    @Test func privateFunctionsAreRefused() async throws {
        try await Self.withApp { served in
            let response = try await served.call(
                "internalReport", token: try await served.loginAnonymously().accessToken)
            #expect(response.status == 403)
            #expect(!response.text.contains("every user's notes"))
        }
    }

    @Test func noUserReachesAnotherUsersDataThroughFunctionsThatRunAsTheCaller() async throws {
        try await Self.withApp { served in
            let alice = try await served.loginAnonymously()
            let mallory = try await served.loginAnonymously()
            #expect(try await served.call("addNote", #"["alice's diary"]"#, token: alice.accessToken).status == 200)
            #expect(try await served.call("addNote", #"["mallory's plan"]"#, token: mallory.accessToken).status == 200)

            #expect(try await served.call("myNotes", token: alice.accessToken).text == #"["alice's diary"]"#)
            #expect(try await served.call("myNotes", token: mallory.accessToken).text == #"["mallory's plan"]"#)

            let refused = try await served.call("notesOf", #"["\#(alice.userId)"]"#, token: mallory.accessToken)
            #expect(refused.status == 403)
            #expect(refused.errorCode == "PermissionDenied")
            #expect(!refused.text.contains("diary"))
            #expect(
                try await served.call("notesOf", #"["\#(alice.userId)"]"#, token: alice.accessToken).text
                    == #"["alice's diary"]"#)
        }
    }
}
