import BSON
import DocumentStore
import Foundation
import Functions
import Messaging
import Switchyard
import Synchronization

@testable import SwitchyardServer

/// An `AppServer` on a free loopback port serving an in-memory app, with a libcurl client speaking to it as the
/// Realm SDKs do. Tests run in parallel; each gets its own app and port.
struct ServedApp: Sendable {
    static let appId = "test-app"

    let app: SwitchyardApp
    let server: AppServer
    let client: HTTPClient
    let clock: TestClock

    /// `…/api/client/v2.0`
    var base: String { server.http.baseURL + ClientAPI.basePath }
    /// `…/api/client/v2.0/app/test-app`
    var appBase: String { "\(base)/app/\(Self.appId)" }

    /// Runs `body` against a fresh app assembled from `registry` and `definition`; its triggers run. `queries`
    /// sets the time budget and threads of `mongodb-atlas` calls and the keep-alive and buffer of `watch` streams
    /// (only those four of its fields are used); `triggers` the trigger runtime's clock and retries. A definition
    /// without data access rules gets `everyUserReadsAndWritesEverything`, for tests of other concerns than rules.
    static func with<Result>(
        _ registry: FunctionRegistry, definition: AppDefinition = AppDefinition(), values: AppValues = AppValues(),
        endpointSecrets: [String: Secret] = [:], store: StoreConfiguration = .memory,
        retry: Messaging.RetryPolicy = Messaging.RetryPolicy(),
        authLimits: AuthLimits = AuthLimits(), queries: ClientAPI.Configuration = .init(),
        triggers: TriggerRuntimeConfiguration = TriggerRuntimeConfiguration(),
        _ body: (ServedApp) async throws -> Result
    ) async throws -> Result {
        var definition = definition
        if definition.rules.isEmpty { definition.rules = Self.everyUserReadsAndWritesEverything }
        let configuration = AppConfiguration(
            definition: definition, environment: .development, values: values, endpointSecrets: endpointSecrets)
        let app = try await SwitchyardApp.open(
            configuration: configuration, registry: registry, store: store,
            options: SwitchyardApp.Options(triggers: triggers))
        return try await serve(app, retry: retry, authLimits: authLimits, queries: queries, body)
    }

    /// Runs `body` against the repository's example app (its triggers.yaml, values.json and functions/).
    /// - Parameters:
    ///   - triggers: the trigger runtime's clock (a test moves schedules along with a clock of its own; by
    ///     default the scheduled trigger never fires, so a test spanning its five-minute mark sees no extra run).
    ///   - retry: how the FCM client functions send through retries against the emulator.
    static func withExampleApp<Result>(
        triggers: TriggerRuntimeConfiguration = TriggerRuntimeConfiguration(clock: UnschedulingClock()),
        retry: Messaging.RetryPolicy = Messaging.RetryPolicy(), _ body: (ServedApp) async throws -> Result
    ) async throws -> Result {
        let app = try await SwitchyardApp.open(
            directory: repositoryRoot, registry: functionRegistry,
            options: SwitchyardApp.Options(storage: .memory, variables: [:], triggers: triggers))
        return try await serve(app, retry: retry, body)
    }

    private static func serve<Result>(
        _ app: SwitchyardApp, retry: Messaging.RetryPolicy = Messaging.RetryPolicy(),
        authLimits: AuthLimits = AuthLimits(), queries: ClientAPI.Configuration = .init(),
        _ body: (ServedApp) async throws -> Result
    ) async throws -> Result {
        let clock = TestClock()
        do {
            try await app.start()
            let server = try await AppServer.start(
                app: app,
                configuration: AppServer.Configuration(
                    port: 0, appId: appId,
                    clientAPI: ClientAPI.Configuration(
                        passwordIterations: 1_000, now: { clock.now }, authLimits: authLimits,
                        queryTimeLimit: queries.queryTimeLimit, queryExecutor: queries.queryExecutor,
                        watchKeepAliveInterval: queries.watchKeepAliveInterval,
                        watchBufferLimit: queries.watchBufferLimit),
                    emulatorClientRetry: retry))
            let served = ServedApp(app: app, server: server, client: try HTTPClient(), clock: clock)
            do {
                let result = try await body(served)
                await server.stop()
                await app.stop()
                return result
            } catch {
                await server.stop()
                throw error
            }
        } catch {
            await app.stop()
            throw error
        }
    }

    /// A default rule with one role that permits every user everything.
    static let everyUserReadsAndWritesEverything = try! AppDefinition.parse(
        """
        rules:
          default:
            roles:
              - {name: everyone, apply_when: {}, read: true, write: true, insert: true, delete: true, search: true}
        """
    ).rules

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    // MARK: Requests

    func post(_ url: String, _ json: String = "", token: String? = nil) async throws -> HTTPResponse {
        try await client.post(url: url, body: Array(json.utf8), headers: headers(token))
    }

    func get(_ url: String, token: String? = nil) async throws -> HTTPResponse {
        try await client.get(url: url, headers: headers(token))
    }

    func delete(_ url: String, token: String? = nil) async throws -> HTTPResponse {
        try await client.delete(url: url, headers: headers(token))
    }

    private func headers(_ token: String?) -> HTTPHeaders {
        var headers: HTTPHeaders = ["Content-Type": "application/json;charset=utf-8", "Accept": "application/json"]
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        return headers
    }

    /// A logged-in user's tokens, as the login response gives them.
    struct Login: Sendable {
        var accessToken: String
        var refreshToken: String
        var userId: String
        var deviceId: String
    }

    func loginAnonymously() async throws -> Login {
        try Self.login(from: try await post("\(appBase)/auth/providers/anon-user/login", #"{"provider": "anon-user"}"#))
    }

    func register(_ email: String, _ password: String) async throws -> HTTPResponse {
        try await post(
            "\(appBase)/auth/providers/local-userpass/register", #"{"email": "\#(email)", "password": "\#(password)"}"#)
    }

    func login(_ email: String, _ password: String) async throws -> HTTPResponse {
        try await post(
            "\(appBase)/auth/providers/local-userpass/login",
            #"{"username": "\#(email)", "password": "\#(password)", "options": {"device": {"sdk": "swift"}}}"#)
    }

    func registerAndLogin(_ email: String, _ password: String = "secret-password") async throws -> Login {
        let registered = try await register(email, password)
        guard registered.status == 201 else {
            throw TestFailure("register answered \(registered.status): \(registered.text)")
        }
        return try Self.login(from: try await login(email, password))
    }

    static func login(from response: HTTPResponse) throws -> Login {
        guard response.status == 200, let body = response.json?.documentValue,
            let access = body["access_token"]?.stringValue, let refresh = body["refresh_token"]?.stringValue,
            let user = body["user_id"]?.stringValue, let device = body["device_id"]?.stringValue
        else { throw TestFailure("login answered \(response.status): \(response.text)") }
        return Login(accessToken: access, refreshToken: refresh, userId: user, deviceId: device)
    }

    /// `functions/call` with canonical Extended JSON arguments.
    func call(_ name: String, _ arguments: String = "[]", service: String? = nil, token: String) async throws
        -> HTTPResponse
    {
        let service = service.map { #", "service": "\#($0)""# } ?? ""
        return try await post(
            "\(appBase)/functions/call", #"{"name": "\#(name)", "arguments": \#(arguments)\#(service)}"#, token: token)
    }

    /// A `mongodb-atlas` service action with its one argument (Extended JSON), answered with 200: its result.
    func atlas(_ action: String, _ argument: String, token: String) async throws -> BSON {
        let response = try await call(action, "[\(argument)]", service: "mongodb-atlas", token: token)
        guard response.status == 200 else { throw TestFailure("\(action): \(response.status) \(response.text)") }
        return try ExtendedJSON.parseValue(response.text)
    }
}

/// A clock the test moves by hand (token expiry without waiting).
final class TestClock: Sendable {
    private let current = Mutex(Date())

    var now: Date { current.withLock { $0 } }

    func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension HTTPResponse {
    /// The `error_code` of an App Services error body.
    var errorCode: String? { json?.documentValue?["error_code"]?.stringValue }
    var errorMessage: String? { json?.documentValue?["error"]?.stringValue }
}
