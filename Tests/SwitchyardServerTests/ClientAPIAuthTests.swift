import BSON
import DocumentStore
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// Location, login, registration, profile and sessions over real HTTP, as realm-core's `app.cpp` uses them.
@Suite(.timeLimit(.minutes(1))) struct ClientAPIAuthTests {
    /// Records every authentication event in `app.authEvents` so tests can see which triggers fired.
    static func recordingRegistry() -> (FunctionRegistry, AppDefinition) {
        var registry = FunctionRegistry()
        registry.register("recordAuthEvent") { (event: AuthEvent, context: FunctionContext) in
            try await context.services.mongodb().db("app").collection("authEvents").insertOne([
                "operation": .string(event.operationType.rawValue), "userId": .string(event.user.id),
                "providers": .array(event.providers.map(BSON.string)),
            ])
        }
        registry.register("whoAmI") { (_: [BSON], context: FunctionContext) in
            ["id": .string(context.user.id), "custom": .document(context.user.customData)]
        }
        let triggers = AuthenticationOperation.allCases.map { operation in
            TriggerDefinition(
                name: "on-\(operation.rawValue)", function: "recordAuthEvent",
                kind: .authentication(
                    AuthenticationTrigger(operation: operation, providers: [.anonymous, .emailPassword])))
        }
        let definition = AppDefinition(
            triggers: triggers,
            auth: AuthSettings(
                providers: [.anonymous, .emailPassword],
                customUserData: .init(database: "app", collection: "userData", userIdField: "userId")))
        return (registry, definition)
    }

    static func authEvents(_ served: ServedApp) async throws -> [String] {
        try await served.app.awaitIdle()
        return try await served.app.store.database("app").collection("authEvents").find().toArray().compactMap {
            $0["operation"]?.stringValue
        }
    }

    static func withApp<Result>(_ body: (ServedApp) async throws -> Result) async throws -> Result {
        let (registry, definition) = recordingRegistry()
        return try await ServedApp.with(registry, definition: definition, body)
    }

    // MARK: Location

    @Test func locationPointsTheSDKAtThisServer() async throws {
        try await Self.withApp { served in
            let response = try await served.get("\(served.appBase)/location")
            #expect(response.status == 200)
            let body = try #require(response.json?.documentValue)
            #expect(body["hostname"]?.stringValue == served.server.http.baseURL)
            #expect(body["ws_hostname"]?.stringValue == "ws://127.0.0.1:\(served.server.http.port)")
            #expect(body["deployment_model"] != nil)
            #expect(body["location"] != nil)
        }
    }

    /// The answer follows the address each request used, also when it changes between requests.
    @Test func locationFollowsTheHostEachRequestUsed() async throws {
        try await Self.withApp { served in
            for host in ["books.local:9090", "[::1]:9090", "books.local:9090"] {
                let response = try await served.client.get(
                    url: "\(served.appBase)/location", headers: ["Host": host])
                let body = try #require(response.json?.documentValue)
                #expect(body["hostname"]?.stringValue == "http://\(host)")
                #expect(body["ws_hostname"]?.stringValue == "ws://\(host)")
                #expect(response.headers["Access-Control-Allow-Origin"] == "*")
            }
        }
    }

    @Test func anotherAppIdIsAppNotFoundWithAStringLink() async throws {
        try await Self.withApp { served in
            let response = try await served.get("\(served.base)/app/other-app/location")
            #expect(response.status == 404)
            #expect(response.errorCode == "AppNotFound")
            #expect(response.errorMessage?.contains("other-app") == true)
            // realm-core reads `link` as a string; a null would hide the error code from the SDK.
            #expect(response.json?.documentValue?["link"]?.stringValue?.hasPrefix("http://") == true)
            #expect(response.headers["Content-Type"] == "application/json")
            let login = try await served.post("\(served.base)/app/other-app/auth/providers/anon-user/login", "{}")
            #expect(login.errorCode == "AppNotFound")
        }
    }

    // MARK: Anonymous

    @Test func anonymousLoginCreatesAUserAndFiresCreateAndLogin() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            #expect(ObjectId(hex: login.userId) != nil)
            #expect(login.accessToken.split(separator: ".").count == 3)
            #expect(login.refreshToken != login.accessToken)
            let stored = try #require(
                try await served.app.store.database("local").collection("switchyard_users").findOne([
                    "_id": .string(login.userId)
                ]))
            #expect(stored["type"] == "normal")
            #expect(stored["identities"]?.arrayValue?.first?.documentValue?["provider_type"] == "anon-user")
            #expect(stored["data"] == .document([:]))
            guard case .datetime = stored["createdAt"], case .datetime = stored["lastLoginAt"] else {
                Issue.record("createdAt and lastLoginAt are dates: \(stored)")
                return
            }
            #expect(try await Self.authEvents(served) == ["CREATE", "LOGIN"])

            let second = try await served.loginAnonymously()
            #expect(second.userId != login.userId)
        }
    }

    // MARK: Email and password

    @Test func registerThenLoginWithEmailAndPassword() async throws {
        try await Self.withApp { served in
            let registered = try await served.register("ada@example.com", "correct horse")
            #expect(registered.status == 201)
            #expect(try await Self.authEvents(served) == ["CREATE"])

            let login = try ServedApp.login(from: try await served.login("Ada@Example.com", "correct horse"))
            let user = try #require(try await served.server.clientAPI.users.user(id: login.userId))
            #expect(user.data == ["email": "ada@example.com"])
            #expect(user.identities.map(\.providerType) == ["local-userpass"])
            #expect(user.lastLoginAt != nil)
            #expect(try await Self.authEvents(served) == ["CREATE", "LOGIN"])
        }
    }

    @Test func passwordsAreStoredAsSaltedPBKDF2NeverInTheClear() async throws {
        try await Self.withApp { served in
            _ = try await served.registerAndLogin("ada@example.com", "correct horse")
            _ = try await served.registerAndLogin("bob@example.com", "correct horse")
            let credentials = try await served.app.store.database("local").collection("switchyard_credentials").find()
                .toArray()
            #expect(credentials.count == 2)
            for credential in credentials {
                #expect(credential["algorithm"] == "pbkdf2-hmac-sha256")
                #expect(credential["iterations"]?.int64Value == 1_000)
                #expect(!credential.extendedJSON().contains("correct horse"))
            }
            // Same password, different salts, different hashes.
            #expect(credentials[0]["salt"] != credentials[1]["salt"])
            #expect(credentials[0]["hash"] != credentials[1]["hash"])
        }
    }

    @Test func wrongPasswordAndUnknownEmailAreTheSameInvalidPassword() async throws {
        try await Self.withApp { served in
            _ = try await served.registerAndLogin("ada@example.com", "correct horse")
            let wrong = try await served.login("ada@example.com", "wrong horse")
            let unknown = try await served.login("nobody@example.com", "correct horse")
            for response in [wrong, unknown] {
                #expect(response.status == 401)
                #expect(response.errorCode == "InvalidPassword")
                #expect(response.errorMessage == "invalid username/password")
            }
        }
    }

    @Test func registeringATakenEmailIsAccountNameInUse() async throws {
        try await Self.withApp { served in
            #expect(try await served.register("ada@example.com", "correct horse").status == 201)
            let again = try await served.register("ADA@example.com", "another one")
            #expect(again.status == 409)
            #expect(again.errorCode == "AccountNameInUse")
            #expect(try await served.server.clientAPI.users.count() == 1)
        }
    }

    @Test func invalidRegistrationsAreBadRequests() async throws {
        try await Self.withApp { served in
            let short = try await served.register("ada@example.com", "12345")
            #expect(short.status == 400)
            #expect(short.errorMessage?.contains("between 6 and 128") == true)
            let notAnEmail = try await served.register("ada.example.com", "correct horse")
            #expect(notAnEmail.status == 400)
            let missing = try await served.post(
                "\(served.appBase)/auth/providers/local-userpass/register", #"{"email": "a@b.c"}"#)
            #expect(missing.status == 400)
            #expect(missing.errorCode == "MissingParameter")
            #expect(try await served.server.clientAPI.users.count() == 0)
        }
    }

    @Test func malformedJSONIs400WithLineAndColumn() async throws {
        try await Self.withApp { served in
            let response = try await served.post(
                "\(served.appBase)/auth/providers/local-userpass/register", "{\n  \"email\": \"a@b.c\",\n  password\n}")
            #expect(response.status == 400)
            #expect(response.errorCode == "BadRequest")
            #expect(response.errorMessage?.contains("at 3:3") == true)
        }
    }

    @Test func providersNotEnabledOrUnknownAreAuthProviderNotFound() async throws {
        var registry = FunctionRegistry()
        registry.register("noop") { (_: [BSON], _: FunctionContext) in .null }
        let definition = AppDefinition(auth: AuthSettings(providers: [.anonymous]))
        try await ServedApp.with(registry, definition: definition) { served in
            let disabled = try await served.register("ada@example.com", "correct horse")
            #expect(disabled.status == 404)
            #expect(disabled.errorCode == "AuthProviderNotFound")
            let unknown = try await served.post("\(served.appBase)/auth/providers/oauth2-google/login", "{}")
            #expect(unknown.errorCode == "AuthProviderNotFound")
            #expect(try await served.loginAnonymously().userId.count == 24)
        }
    }

    // MARK: Profile and sessions

    @Test func profileHasTheShapeRealmCoreParsesWithCustomData() async throws {
        try await Self.withApp { served in
            let login = try await served.registerAndLogin("ada@example.com")
            try await served.app.store.database("app").collection("userData").insertOne([
                "userId": .string(login.userId), "role": "editor",
            ])
            let response = try await served.get("\(served.base)/auth/profile", token: login.accessToken)
            #expect(response.status == 200)
            let profile = try #require(response.json?.documentValue)
            #expect(profile["user_id"]?.stringValue == login.userId)
            #expect(profile["domain_id"]?.stringValue?.count == 24)
            #expect(profile["type"] == "normal")
            #expect(profile["data"] == ["email": "ada@example.com"])
            let identity = try #require(profile["identities"]?.arrayValue?.first?.documentValue)
            #expect(identity["provider_type"] == "local-userpass")
            #expect(identity["id"]?.stringValue?.count == 24)
            #expect(profile["custom_data"]?.documentValue?["role"] == "editor")
            // The domain is the app's, the same in every user's profile.
            let other = try await served.loginAnonymously()
            let otherProfile = try await served.get("\(served.base)/auth/profile", token: other.accessToken)
            #expect(otherProfile.json?.documentValue?["domain_id"] == profile["domain_id"])
        }
    }

    @Test func refreshingGivesANewAccessTokenCarryingCurrentCustomData() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            try await served.app.store.database("app").collection("userData").insertOne([
                "userId": .string(login.userId), "plan": "pro",
            ])
            served.clock.advance(by: 5)
            let refreshed = try await served.post("\(served.base)/auth/session", token: login.refreshToken)
            #expect(refreshed.status == 201)
            let access = try #require(refreshed.json?.documentValue?["access_token"]?.stringValue)
            #expect(access != login.accessToken)
            let claims = try served.server.clientAPI.tokens.verify(access, as: .access)
            #expect(claims.customData["plan"] == "pro")
            #expect(claims.userId == login.userId)
            #expect(try await served.get("\(served.base)/auth/profile", token: access).status == 200)
        }
    }

    @Test func loggingOutRevokesTheRefreshTokenAndItsAccessTokens() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let other = try await served.loginAnonymously()
            let loggedOut = try await served.delete("\(served.base)/auth/session", token: login.refreshToken)
            #expect(loggedOut.status == 204)
            let refresh = try await served.post("\(served.base)/auth/session", token: login.refreshToken)
            #expect(refresh.status == 401)
            #expect(refresh.errorCode == "InvalidSession")
            #expect(
                try await served.get("\(served.base)/auth/profile", token: login.accessToken).errorCode
                    == "InvalidSession")
            let session = try #require(
                try await served.app.store.database("local").collection("switchyard_sessions").findOne([
                    "userId": .string(login.userId)
                ]))
            guard case .datetime = session["revokedAt"], case .datetime = session["expiresAt"] else {
                Issue.record("the session records when it was revoked and when it expires: \(session)")
                return
            }
            // Another user's session is untouched.
            #expect(try await served.get("\(served.base)/auth/profile", token: other.accessToken).status == 200)
        }
    }

    @Test func deletingTheUserRemovesItEndsItsTokensAndFiresDelete() async throws {
        try await Self.withApp { served in
            let login = try await served.registerAndLogin("ada@example.com")
            let deleted = try await served.delete("\(served.base)/auth/delete", token: login.accessToken)
            #expect(deleted.status == 204)
            #expect(try await served.server.clientAPI.users.user(id: login.userId) == nil)
            #expect(try await Self.authEvents(served) == ["CREATE", "LOGIN", "DELETE"])
            #expect(try await served.get("\(served.base)/auth/profile", token: login.accessToken).status == 401)
            #expect(try await served.post("\(served.base)/auth/session", token: login.refreshToken).status == 401)
            #expect(try await served.login("ada@example.com", "secret-password").errorCode == "InvalidPassword")
            // The email is free again.
            #expect(try await served.register("ada@example.com", "secret-password").status == 201)
        }
    }

    @Test func requestsWithoutATokenAreInvalidSession() async throws {
        try await Self.withApp { served in
            for response in [
                try await served.get("\(served.base)/auth/profile"),
                try await served.post("\(served.base)/auth/session"),
                try await served.delete("\(served.base)/auth/delete"),
                try await served.call("whoAmI", token: "not-a-token"),
            ] {
                #expect(response.status == 401)
                #expect(response.errorCode == "InvalidSession")
            }
        }
    }

    // MARK: CORS

    @Test func browsersGetPreflightAnswersAndAllowOriginHeaders() async throws {
        try await Self.withApp { served in
            let preflight = try await served.client.send(
                HTTPRequest(
                    method: .options, url: "\(served.appBase)/functions/call",
                    headers: [
                        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
                        "Access-Control-Request-Headers": "authorization,content-type",
                    ]))
            #expect(preflight.status == 204)
            #expect(preflight.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
            #expect(preflight.headers["Access-Control-Allow-Methods"]?.contains("POST") == true)
            #expect(preflight.headers["Access-Control-Allow-Headers"] == "authorization,content-type")
            let location = try await served.client.get(
                url: "\(served.appBase)/location", headers: ["Origin": "http://localhost:3000"])
            #expect(location.headers["Access-Control-Allow-Origin"] == "http://localhost:3000")
            // The answer depends on the origin, so caches must keep one per origin.
            #expect(location.headers["Vary"] == "Origin")
            let error = try await served.get("\(served.base)/auth/profile")
            #expect(error.headers["Access-Control-Allow-Origin"] == "*")
        }
    }

    /// A page from any other site open in the developer's browser gets no CORS allowance, and its requests are
    /// refused before they make a user or call a function.
    @Test func foreignOriginsAreRefusedWithoutACORSAllowance() async throws {
        try await Self.withApp { served in
            for origin in [
                "https://evil.example", "http://localhost.evil.example", "http://127.0.0.1:80@evil.example", "null",
            ] {
                let preflight = try await served.client.send(
                    HTTPRequest(
                        method: .options, url: "\(served.appBase)/auth/providers/anon-user/login",
                        headers: ["Origin": origin, "Access-Control-Request-Method": "POST"]))
                #expect(preflight.status == 403, "\(origin)")
                #expect(preflight.headers["Access-Control-Allow-Origin"] == nil, "\(origin)")
                // A form post needs no preflight: it is refused too, and no user is made.
                let login = try await served.client.post(
                    url: "\(served.appBase)/auth/providers/anon-user/login", body: Array("{}".utf8),
                    headers: ["Origin": origin, "Content-Type": "text/plain"])
                #expect(login.status == 403, "\(origin)")
                #expect(login.errorCode == "OriginNotAllowed", "\(origin)")
                #expect(login.headers["Access-Control-Allow-Origin"] == nil, "\(origin)")
            }
            #expect(try await served.server.clientAPI.users.count() == 0)
            for origin in ["http://localhost:3000", "https://127.0.0.1:8443", "http://[::1]:5173"] {
                let login = try await served.client.post(
                    url: "\(served.appBase)/auth/providers/anon-user/login", body: Array("{}".utf8),
                    headers: ["Origin": origin, "Content-Type": "application/json"])
                #expect(login.status == 200, "\(origin)")
                #expect(login.headers["Access-Control-Allow-Origin"] == origin, "\(origin)")
            }
        }
    }

    /// The app's `allowedRequestOrigins` are allowed besides this machine's.
    @Test func theAppsAllowedRequestOriginsAreAllowed() async throws {
        let definition = AppDefinition(allowedRequestOrigins: ["https://books.example/"])
        try await ServedApp.with(FunctionRegistry(), definition: definition) { served in
            let allowed = try await served.client.get(
                url: "\(served.appBase)/location", headers: ["Origin": "https://books.example"])
            #expect(allowed.status == 200)
            #expect(allowed.headers["Access-Control-Allow-Origin"] == "https://books.example")
            let other = try await served.client.get(
                url: "\(served.appBase)/location", headers: ["Origin": "https://other.example"])
            #expect(other.status == 403)
        }
    }
}
