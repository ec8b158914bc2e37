import Switchyard

/// `switchyard serve`: one app behind one HTTP server — the client API the Realm SDKs speak, the FCM
/// emulator endpoint, the admin API and the dashboard.
///
/// ```swift
/// let server = try await AppServer.start(app: app, configuration: .init(port: 0))
/// print(server.http.baseURL)
/// server.stop()
/// ```
public final class AppServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: UInt16
        /// The app id clients must use; requests for any other get 404 `AppNotFound`. Nil: the configuration's
        /// `appId`, else `switchyard-app`.
        public var appId: String?
        /// Password hashing cost and token lifetimes of the client API.
        public var clientAPI: ClientAPI.Configuration
        /// Where `admin.token` is written (mode 0600); nil writes it nowhere (an in-memory app).
        public var dataDirectory: String?

        public init(
            host: String = "127.0.0.1", port: UInt16 = 9090, appId: String? = nil,
            clientAPI: ClientAPI.Configuration = ClientAPI.Configuration(), dataDirectory: String? = nil
        ) {
            self.host = host
            self.port = port
            self.appId = appId
            self.clientAPI = clientAPI
            self.dataDirectory = dataDirectory
        }
    }

    public static let defaultAppId = "switchyard-app"

    public let app: SwitchyardApp
    public let appId: String
    public let http: HTTPServer
    /// The Realm SDKs' API; its `users` and `tokens` serve the admin API too.
    public let clientAPI: ClientAPI
    /// FCM HTTP v1, topic management and OAuth2 on this server, recording into the app's outbox.
    public let fcmEmulator: FCMEmulator
    /// What the admin API asks for; made anew at every start.
    public let adminToken: AdminToken

    private init(
        app: SwitchyardApp, appId: String, http: HTTPServer, clientAPI: ClientAPI, fcmEmulator: FCMEmulator,
        adminToken: AdminToken
    ) {
        self.app = app
        self.appId = appId
        self.http = http
        self.clientAPI = clientAPI
        self.fcmEmulator = fcmEmulator
        self.adminToken = adminToken
    }

    /// Starts serving `app` (whose triggers the caller starts and stops).
    public static func start(app: SwitchyardApp, configuration: Configuration = Configuration()) async throws
        -> AppServer
    {
        let appId = configuration.appId ?? app.configuration.definition.appId ?? defaultAppId
        var router = Router()
        let clientAPI = try await ClientAPI.prepare(app: app, appId: appId, configuration: configuration.clientAPI)
        clientAPI.addRoutes(to: &router)
        let fcmEmulator = FCMEmulator(outbox: app.pushOutbox)
        router.add(fcmEmulator.routes)
        let adminToken = try AdminToken.generate()
        if let directory = configuration.dataDirectory { try adminToken.write(toDirectory: directory) }
        router.add(AdminAPI(app: app, token: adminToken, users: clientAPI.users).router)
        router.add(Dashboard(token: adminToken).router)
        let http = try HTTPServer(
            configuration: HTTPServer.Configuration(host: configuration.host, port: configuration.port),
            router: router)
        return AppServer(
            app: app, appId: appId, http: http, clientAPI: clientAPI, fcmEmulator: fcmEmulator, adminToken: adminToken)
    }

    /// Stops serving (open event streams end); the app itself keeps running until the caller stops it.
    public func stop() {
        http.stop()
    }
}
