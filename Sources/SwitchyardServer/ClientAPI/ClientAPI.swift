import BSON
import Foundation
import Switchyard
import Synchronization

/// The client API the Realm SDKs speak (realm-core's `app.cpp`), under `/api/client/v2.0`: the app's location,
/// anonymous and email/password login and registration, the profile, sessions (refresh, log out), deleting the
/// user, and `functions/call` for the app's functions and the `mongodb-atlas` service.
///
/// Data access through `mongodb-atlas` is not governed by rules or permissions: any logged-in user may read and
/// write any collection except the reserved `admin`, `local` and `config` databases.
public final class ClientAPI: Sendable {
    public struct Configuration: Sendable {
        /// PBKDF2 iterations for new passwords (tests lower it; existing passwords keep theirs).
        public var passwordIterations: Int
        public var accessTokenLifetime: Duration
        public var refreshTokenLifetime: Duration
        /// The clock tokens and sessions are timed by.
        public var now: @Sendable () -> Date
        /// How many logins, registrations and anonymous users the auth routes take before answering 429.
        public var authLimits: AuthLimits
        /// Origins whose web pages may use the client API (CORS) besides this machine's, which always may; nil:
        /// the app's `allowedRequestOrigins` (see `CrossOriginPolicy`).
        public var allowedRequestOrigins: [String]?
        /// The time budget of a `mongodb-atlas` read (find, count, aggregate) whose client sends no `maxTimeMS`.
        public var queryTimeLimit: Duration
        /// Where `mongodb-atlas` calls run, off the server's threads (see `QueryThreads`).
        public var queryExecutor: any TaskExecutor

        public init(
            passwordIterations: Int = PasswordHasher.defaultIterations,
            accessTokenLifetime: Duration = .seconds(30 * 60),
            refreshTokenLifetime: Duration = .seconds(60 * 24 * 3600), now: @escaping @Sendable () -> Date = { Date() },
            authLimits: AuthLimits = AuthLimits(), allowedRequestOrigins: [String]? = nil,
            queryTimeLimit: Duration = Self.defaultQueryTimeLimit, queryExecutor: any TaskExecutor = QueryThreads.shared
        ) {
            self.passwordIterations = passwordIterations
            self.accessTokenLifetime = accessTokenLifetime
            self.refreshTokenLifetime = refreshTokenLifetime
            self.now = now
            self.authLimits = authLimits
            self.allowedRequestOrigins = allowedRequestOrigins
            self.queryTimeLimit = queryTimeLimit
            self.queryExecutor = queryExecutor
        }

        public static let defaultQueryTimeLimit = Duration.seconds(30)
    }

    public static let basePath = "/api/client/v2.0"

    public let app: SwitchyardApp
    /// The app id clients must use; others get 404 `AppNotFound`.
    public let appId: String
    public let users: UserDirectory
    public let tokens: SessionTokens
    let throttle: LoginThrottle
    let crossOrigin: CrossOriginPolicy
    /// Time budget and threads of `mongodb-atlas` calls.
    let queryTimeLimit: Duration
    let queryExecutor: any TaskExecutor
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
    }

    /// Loads (or makes, on first start) the data directory's token signing key and prepares the user collections.
    public static func prepare(app: SwitchyardApp, appId: String, configuration: Configuration = Configuration())
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

    /// Adds the client API's routes, each with its `OPTIONS` preflight.
    public func addRoutes(to router: inout Router) {
        var routes = ClientRoutes(api: self)
        routes.add("GET", "/app/{app}/location", immediately: { api, request, _ in api.location(request) })
        routes.add("POST", "/app/{app}/auth/providers/{provider}/login") { api, request, parameters in
            try await api.login(request, provider: parameters["provider"] ?? "")
        }
        routes.add("POST", "/app/{app}/auth/providers/local-userpass/register") { api, request, _ in
            try await api.register(request)
        }
        routes.add("GET", "/auth/profile") { api, request, _ in try await api.profile(request) }
        routes.add("POST", "/auth/session") { api, request, _ in try await api.refreshSession(request) }
        routes.add("DELETE", "/auth/session") { api, request, _ in try await api.endSession(request) }
        routes.add("DELETE", "/auth/delete") { api, request, _ in try await api.deleteUser(request) }
        routes.add("POST", "/app/{app}/functions/call") { api, request, _ in try await api.callFunction(request) }
        routes.install(on: &router)
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

/// The client API's routes while they are being added: each handler is wrapped to check the app id, render
/// errors with a `link` (realm-core reads `link` as a string) and add CORS headers.
private struct ClientRoutes {
    typealias Handler =
        nonisolated(nonsending) @Sendable (ClientAPI, ServerRequest, RouteParameters) async throws
        -> ServerResponse
    /// A handler that never waits: answered without a task (see `Router.add(_:_:immediately:)`).
    typealias ImmediateHandler = @Sendable (ClientAPI, ServerRequest, RouteParameters) throws -> ServerResponse

    private enum Action {
        case immediate(ImmediateHandler)
        case deferred(Handler)
    }

    let api: ClientAPI
    private var routes: [(method: String, path: String, action: Action)] = []

    init(api: ClientAPI) { self.api = api }

    mutating func add(_ method: String, _ path: String, _ handler: @escaping Handler) {
        routes.append((method, ClientAPI.basePath + path, .deferred(handler)))
    }

    mutating func add(_ method: String, _ path: String, immediately handler: @escaping ImmediateHandler) {
        routes.append((method, ClientAPI.basePath + path, .immediate(handler)))
    }

    func install(on router: inout Router) {
        var preflighted: Set<String> = []
        for route in routes {
            let api = api
            switch route.action {
            case .immediate(let handler):
                router.add(
                    route.method, route.path,
                    immediately: { request, parameters in
                        let verdict = api.crossOrigin.verdict(for: request)
                        if case .refused(let error) = verdict { return error.response }
                        var response: ServerResponse
                        do {
                            try Self.checkApp(api, parameters)
                            response = try handler(api, request, parameters)
                        } catch {
                            response = Self.render(error, for: request)
                        }
                        CrossOriginPolicy.apply(verdict, to: &response)
                        return response
                    })
            case .deferred(let handler):
                router.add(route.method, route.path) { request, parameters in
                    let verdict = api.crossOrigin.verdict(for: request)
                    if case .refused(let error) = verdict { return error.response }
                    // The handler's answer is this closure's own, so the CORS headers join it without a copy.
                    var response: ServerResponse
                    do {
                        try Self.checkApp(api, parameters)
                        response = try await handler(api, request, parameters)
                    } catch {
                        response = Self.render(error, for: request)
                    }
                    CrossOriginPolicy.apply(verdict, to: &response)
                    return response
                }
            }
            if preflighted.insert(route.path).inserted {
                router.add("OPTIONS", route.path, immediately: { request, _ in api.crossOrigin.preflight(request) })
            }
        }
    }

    private static func checkApp(_ api: ClientAPI, _ parameters: RouteParameters) throws(APIError) {
        if let app = parameters["app"], app != api.appId { throw APIError.appNotFound(app) }
    }

    /// The error as App Services renders it.
    private static func render(_ error: any Error, for request: ServerRequest) -> ServerResponse {
        var failure = APIError.answering(error)
        if failure.link == nil { failure.link = "http://\(request.headers["host"] ?? "127.0.0.1")/" }
        return failure.response
    }
}

extension APIError {
    static func appNotFound(_ app: String) -> APIError {
        APIError(status: 404, code: "AppNotFound", message: "cannot find app using Client App ID '\(app)'")
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
