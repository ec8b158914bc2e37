import DocumentStore
import Messaging
import Switchyard

/// `switchyard serve`: one app behind one HTTP server — the client API the Realm SDKs speak, the FCM
/// emulator endpoint, the admin API and the dashboard.
///
/// ```swift
/// let server = try await AppServer.start(app: app, configuration: .init(port: 0))
/// print(server.http.baseURL)
/// await server.stop()
/// ```
package final class AppServer: Sendable {
    package struct Configuration: Sendable {
        package var host: String
        package var port: UInt16
        /// The app id clients must use; requests for any other get 404 `AppNotFound`. Nil: the configuration's
        /// `appId`, else `switchyard-app`.
        package var appId: String?
        /// Password hashing cost and token lifetimes of the client API.
        package var clientAPI: ClientAPI.Configuration
        /// When the app sends through its development outbox (it was opened without a transport of its own),
        /// point `context.services.messaging` at an `FCMClient` speaking to this server's FCM emulator while it
        /// serves, so functions' pushes take the real client's path (HTTP, OAuth2, retries). False keeps the
        /// in-process outbox.
        package var routesMessagingThroughEmulator: Bool
        /// How that client retries (429, 5xx, lost connections).
        package var emulatorClientRetry: Messaging.RetryPolicy
        /// Where `admin.token` is written (mode 0600); nil writes it nowhere (an in-memory app).
        package var dataDirectory: String?
        /// Connections open at once, in total and from one address, and how long one may stay without a request
        /// (see `HTTPServer.Configuration`).
        package var maximumConnections: Int
        package var maximumConnectionsPerPeer: Int
        package var idleTimeout: Int

        package init(
            host: String = "127.0.0.1", port: UInt16 = 9090, appId: String? = nil,
            clientAPI: ClientAPI.Configuration = ClientAPI.Configuration(), dataDirectory: String? = nil,
            routesMessagingThroughEmulator: Bool = true,
            emulatorClientRetry: Messaging.RetryPolicy = Messaging.RetryPolicy(), maximumConnections: Int = 512,
            maximumConnectionsPerPeer: Int = 256, idleTimeout: Int = 60
        ) {
            self.host = host
            self.port = port
            self.appId = appId
            self.clientAPI = clientAPI
            self.routesMessagingThroughEmulator = routesMessagingThroughEmulator
            self.emulatorClientRetry = emulatorClientRetry
            self.dataDirectory = dataDirectory
            self.maximumConnections = maximumConnections
            self.maximumConnectionsPerPeer = maximumConnectionsPerPeer
            self.idleTimeout = idleTimeout
        }
    }

    package static let defaultAppId = "switchyard-app"

    package let app: SwitchyardApp
    package let appId: String
    package let http: HTTPServer
    /// The Realm SDKs' API; its `users` and `tokens` serve the admin API too.
    package let clientAPI: ClientAPI
    /// FCM HTTP v1, topic management and OAuth2 on this server, recording into the app's outbox.
    package let fcmEmulator: FCMEmulator
    /// The client `context.services.messaging` sends through while served (see
    /// `Configuration.routesMessagingThroughEmulator`); nil when the app keeps its own transport.
    package let emulatorClient: FCMClient?
    /// What the admin API asks for; made anew at every start.
    package let adminToken: AdminToken

    private init(
        app: SwitchyardApp, appId: String, http: HTTPServer, clientAPI: ClientAPI, fcmEmulator: FCMEmulator,
        emulatorClient: FCMClient?, adminToken: AdminToken
    ) {
        self.app = app
        self.appId = appId
        self.http = http
        self.clientAPI = clientAPI
        self.fcmEmulator = fcmEmulator
        self.emulatorClient = emulatorClient
        self.adminToken = adminToken
    }

    /// Starts serving `app` (whose triggers the caller starts and stops).
    package static func start(app: SwitchyardApp, configuration: Configuration = Configuration()) async throws
        -> AppServer
    {
        let appId = configuration.appId ?? app.configuration.definition.appId ?? defaultAppId
        var router = Router()
        let clientAPI = try await ClientAPI.prepare(app: app, appId: appId, configuration: configuration.clientAPI)
        router.add(clientAPI.routes)
        router.add(clientAPI.endpointRoutes)
        // `Bearer owner` is for development only: an app opened with a transport of its own (--push live)
        // delivers for real, and its server takes only access tokens from the OAuth2 exchange.
        let fcmEmulator = FCMEmulator(outbox: app.pushOutbox, acceptsOwnerToken: app.outboxMessaging != nil)
        router.add(fcmEmulator.routes)
        let adminToken = AdminToken.generate()
        router.add(
            AdminAPI(app: app, token: adminToken, users: clientAPI.users, dataDirectory: configuration.dataDirectory)
                .routes)
        router.add(Dashboard(token: adminToken).routes)
        let http = try HTTPServer(
            configuration: HTTPServer.Configuration(
                host: configuration.host, port: configuration.port, idleTimeout: configuration.idleTimeout,
                maximumConnections: configuration.maximumConnections,
                maximumConnectionsPerPeer: configuration.maximumConnectionsPerPeer),
            router: router)
        // Written once the port is ours: a server that cannot listen leaves no token or endpoint behind.
        if let directory = configuration.dataDirectory {
            do {
                try adminToken.write(toDirectory: directory)
                try AdminEndpoint.write(url: loopbackURL(http) + "/admin/v1", toDirectory: directory)
            } catch {
                await http.stop()
                throw error
            }
        }
        var emulatorClient: FCMClient?
        if configuration.routesMessagingThroughEmulator, let outbox = app.outboxMessaging,
            app.messaging.transport as? OutboxMessaging === outbox
        {
            do {
                let client = try makeEmulatorClient(
                    project: fcmEmulator.project, baseURL: loopbackURL(http), retry: configuration.emulatorClientRetry)
                app.routeMessaging(to: client)
                emulatorClient = client
            } catch {
                await http.stop()
                throw error
            }
        }
        return AppServer(
            app: app, appId: appId, http: http, clientAPI: clientAPI, fcmEmulator: fcmEmulator,
            emulatorClient: emulatorClient, adminToken: adminToken)
    }

    /// An FCM client for this server's emulator, authenticated by a development service account.
    private static func makeEmulatorClient(project: String, baseURL: String, retry: Messaging.RetryPolicy)
        throws(PushError)
        -> FCMClient
    {
        // A send names its function run, whose transaction then records it (`FCMEmulator.functionRunHeader`), and
        // the run's invocation, which the outbox entry then carries (`FCMEmulator.invocationHeader`).
        let configuration = FCMClient.Configuration(
            endpoints: .emulator(baseURL), retry: retry, httpVersion: .http1_1, requestTimeout: .seconds(30),
            sendHeaders: {
                var fields: [(String, String)] = []
                if let key = CarriedInserts.currentKey { fields.append((FCMEmulator.functionRunHeader, key)) }
                if let run = FunctionRunScope.invocationId { fields.append((FCMEmulator.invocationHeader, run.hex)) }
                return HTTPHeaders(fields)
            })
        let http: HTTPClient
        do {
            http = try HTTPClient(configuration: configuration.http)
        } catch {
            throw PushError(code: .transport, message: "cannot start the HTTP client: \(error)")
        }
        let tokens = DevelopmentServiceAccount(
            project: project, tokenURI: configuration.endpoints.tokenURI ?? baseURL + "/oauth2/token", http: http,
            retry: retry, httpVersion: .http1_1)
        return try FCMClient(projectId: project, accessTokens: tokens, configuration: configuration, http: http)
    }

    /// The server's URL as a client on this machine reaches it (a wildcard address through loopback).
    private static func loopbackURL(_ http: HTTPServer) -> String {
        switch http.configuration.host {
        case "0.0.0.0", "": "http://127.0.0.1:\(http.port)"
        case "::", "[::]": "http://[::1]:\(http.port)"
        default: http.baseURL
        }
    }

    /// Stops serving (open event streams end); the app itself keeps running until the caller stops it, sending
    /// through its own transport again.
    package func stop() async {
        if emulatorClient != nil { app.routeMessaging(to: nil) }
        await http.stop()
    }
}
