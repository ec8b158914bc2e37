import BSON
import Foundation
import Switchyard
import Synchronization

/// The client API the Realm SDKs speak (realm-core's `app.cpp`), under `/api/client/v2.0`: the app's location,
/// anonymous and email/password login and registration, the profile, sessions (refresh, log out), deleting the
/// user, `functions/call` for the app's functions and the `mongodb-atlas` service, and its streaming form for the
/// SDKs' `watch`.
///
/// Data access through `mongodb-atlas` is not governed by rules or permissions: any logged-in user may read and
/// write any collection except the reserved `admin`, `local` and `config` databases.
package final class ClientAPI: Sendable {
    package struct Configuration: Sendable {
        /// PBKDF2 iterations for new passwords (tests lower it; existing passwords keep theirs).
        package var passwordIterations: Int
        package var accessTokenLifetime: Duration
        package var refreshTokenLifetime: Duration
        /// The clock tokens and sessions are timed by.
        package var now: @Sendable () -> Date
        /// How many logins, registrations and anonymous users the auth routes take before answering 429.
        package var authLimits: AuthLimits
        /// Origins whose web pages may use the client API (CORS) besides this machine's, which always may; nil:
        /// the app's `allowedRequestOrigins` (see `CrossOriginPolicy`).
        package var allowedRequestOrigins: [String]?
        /// The time budget of a `mongodb-atlas` read (find, count, aggregate) whose client sends no `maxTimeMS`.
        package var queryTimeLimit: Duration
        /// Where `mongodb-atlas` calls run, off the server's threads (see `QueryThreads`).
        package var queryExecutor: any TaskExecutor
        /// How long an open `watch` stream stays silent before it sends a keep-alive comment.
        package var watchKeepAliveInterval: Duration
        /// How many bytes of change events may wait for a `watch` client that reads slowly; past it, its stream
        /// ends with an error event.
        package var watchBufferLimit: Int

        package init(
            passwordIterations: Int = PasswordHasher.defaultIterations,
            accessTokenLifetime: Duration = .seconds(30 * 60),
            refreshTokenLifetime: Duration = .seconds(60 * 24 * 3600), now: @escaping @Sendable () -> Date = { Date() },
            authLimits: AuthLimits = AuthLimits(), allowedRequestOrigins: [String]? = nil,
            queryTimeLimit: Duration = Self.defaultQueryTimeLimit,
            queryExecutor: any TaskExecutor = QueryThreads.shared,
            watchKeepAliveInterval: Duration = .seconds(15), watchBufferLimit: Int = 1 << 20
        ) {
            self.passwordIterations = passwordIterations
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.now = now
            self.authLimits = authLimits
            self.allowedRequestOrigins = allowedRequestOrigins
            self.queryTimeLimit = queryTimeLimit
            self.queryExecutor = queryExecutor
            self.watchKeepAliveInterval = watchKeepAliveInterval
            self.watchBufferLimit = watchBufferLimit
        }

        package static let defaultQueryTimeLimit = Duration.seconds(30)
    }

    package static let basePath = "/api/client/v2.0"

    package let app: SwitchyardApp
    /// The app id clients must use; others get 404 `AppNotFound`.
    package let appId: String
    package let users: UserDirectory
    package let tokens: SessionTokens
    let throttle: LoginThrottle
    let crossOrigin: CrossOriginPolicy
    /// Time budget and threads of `mongodb-atlas` calls.
    let queryTimeLimit: Duration
    let queryExecutor: any TaskExecutor
    /// Keep-alive and buffer of `watch` streams.
    let watchKeepAliveInterval: Duration
    let watchBufferLimit: Int
    /// The last `location` answer and the host it was for.
    private let lastLocation = Mutex<(host: String, body: [UInt8])?>(nil)
    /// App Services' `domain_id` in profiles: stable per app id. Hashed when a profile is made (not at start, which
    /// would set OpenSSL up in a server that may never be asked for one).
    var domainId: String {
        Cryptography.sha256(Array(appId.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    private init(
        app: SwitchyardApp, appId: String, users: UserDirectory, tokens: SessionTokens, throttle: LoginThrottle,
        crossOrigin: CrossOriginPolicy, configuration: Configuration
    ) {
        self.app = app
        self.appId = appId
        self.users = users
        self.tokens = tokens
        self.throttle = throttle
        self.crossOrigin = crossOrigin
        queryTimeLimit = configuration.queryTimeLimit
        queryExecutor = configuration.queryExecutor
        watchKeepAliveInterval = configuration.watchKeepAliveInterval
        watchBufferLimit = configuration.watchBufferLimit
    }

    /// Loads (or makes, on first start) the data directory's token signing key and prepares the user collections.
    package static func prepare(app: SwitchyardApp, appId: String, configuration: Configuration = Configuration())
        async throws -> ClientAPI
    {
        let limits = configuration.authLimits
        let derivations = KeyDerivationQueue(
            concurrency: limits.concurrentKeyDerivations, waitingLimit: limits.waitingKeyDerivations)
        let users = UserDirectory(
            app: app,
            passwordHasher: PasswordHasher(iterations: configuration.passwordIterations, derivations: derivations),
            sessionLifetime: configuration.refreshTokenLifetime.timeInterval, now: configuration.now)
        try await users.prepare()
        let key = try await SigningKey.load(from: app.store)
        let tokens = SessionTokens(
            key: key, appId: appId, accessLifetime: configuration.accessTokenLifetime.timeInterval, users: users)
        return ClientAPI(
            app: app, appId: appId, users: users, tokens: tokens, throttle: LoginThrottle(limits: limits),
            crossOrigin: CrossOriginPolicy(
                allowedOrigins: configuration.allowedRequestOrigins
                    ?? app.configuration.definition.allowedRequestOrigins),
            configuration: configuration)
    }

    /// The client API's routes under `basePath`, each with its `OPTIONS` preflight: CORS outermost, then App
    /// Services' error bodies, then the app id check.
    package var routes: RouterGroup {
        var api = RouterGroup(middleware: [crossOrigin, ClientErrorRendering(), AppIdCheck(appId: appId)])
        api.add("GET", "/app/{app}/location") { [self] request, _ in location(request) }
        api.add("POST", "/app/{app}/auth/providers/{provider}/login") { [self] request, parameters in
            try await login(request, provider: parameters["provider"] ?? "")
        }
        api.add("POST", "/app/{app}/auth/providers/local-userpass/register") { [self] request, _ in
            try await register(request)
        }
        api.add("GET", "/auth/profile") { [self] request, _ in try await profile(request) }
        api.add("POST", "/auth/session") { [self] request, _ in try await refreshSession(request) }
        api.add("DELETE", "/auth/session") { [self] request, _ in try await endSession(request) }
        api.add("DELETE", "/auth/delete") { [self] request, _ in try await deleteUser(request) }
        addAPIKeyRoutes(to: &api)
        api.add("POST", "/app/{app}/functions/call") { [self] request, _ in try await callFunction(request) }
        api.add("GET", "/app/{app}/functions/call") { [self] request, _ in try await watch(request) }
        var routes = RouterGroup(Self.basePath)
        routes.add(api)
        // A browser asks before it sends: preflights are answered before any check but the origin's.
        let crossOrigin = crossOrigin
        for pattern in api.patterns {
            routes.add("OPTIONS", pattern) { request, _ in crossOrigin.preflight(request) }
        }
        return routes
    }

    /// Where clients should send their requests: this server, at the address they reached it by.
    func location(_ request: ServerRequest) -> ServerResponse {
        let host = request.headers["host"].flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        // Clients keep reaching the server by the same address: the last answer is kept, not rendered anew.
        if let body = lastLocation.withLock({ $0?.host == host ? $0?.body : nil }) { return .json(body) }
        let document: BSONDocument = [
            "deployment_model": "LOCAL", "location": "local", "hostname": .string("http://\(host)"),
            "ws_hostname": .string("ws://\(host)"),
        ]
        let body = document.extendedJSONBytes(mode: .relaxed)
        lastLocation.withLock { $0 = (host, body) }
        return .json(body)
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
