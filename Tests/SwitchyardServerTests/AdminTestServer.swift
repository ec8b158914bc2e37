import BSON
import Foundation
import Functions
import Messaging
import Switchyard

@testable import SwitchyardServer

/// The repository's example app (its `triggers.yaml`, `values.json` and `functions/`) in memory, started, behind
/// an `AppServer` on a free loopback port whose `admin.token` goes to a temporary directory. One per test.
final class AdminTestServer: Sendable {
    /// The repository root, which holds the example app's configuration.
    static let appDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    let app: SwitchyardApp
    let server: AppServer
    let dataDirectory: String
    let client: HTTPClient

    private init(app: SwitchyardApp, server: AppServer, dataDirectory: String, client: HTTPClient) {
        self.app = app
        self.server = server
        self.dataDirectory = dataDirectory
        self.client = client
    }

    /// The example app, in memory, with its scheduled trigger held back (a test that spans one of its
    /// five-minute marks would otherwise see an extra run).
    static func exampleApp() async throws -> SwitchyardApp {
        try await SwitchyardApp.open(
            directory: appDirectory, registry: functionRegistry,
            options: .init(
                storage: .memory, variables: [:], triggers: TriggerRuntimeConfiguration(clock: UnschedulingClock())))
    }

    static func run<Result>(
        app open: () async throws -> SwitchyardApp = exampleApp, _ body: (AdminTestServer) async throws -> Result
    ) async throws -> Result {
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchyard-admin-\(UUID().uuidString)").path
        let app = try await open()
        let server: AppServer
        do {
            try await app.start()
            server = try await AppServer.start(
                app: app,
                configuration: .init(
                    port: 0, clientAPI: ClientAPI.Configuration(passwordIterations: 1_000),
                    dataDirectory: dataDirectory))
        } catch {
            await app.stop()
            throw error
        }
        let fixture = AdminTestServer(app: app, server: server, dataDirectory: dataDirectory, client: try HTTPClient())
        do {
            let result = try await body(fixture)
            await fixture.stop()
            return result
        } catch {
            await fixture.stop()
            throw error
        }
    }

    private func stop() async {
        await server.stop()
        await app.stop()
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    var baseURL: String { server.http.baseURL }
    var token: String { server.adminToken.value }

    /// An admin API call with the token (or `token` when given: nil sends none).
    func get(_ path: String, token: String?? = .none) async throws -> HTTPResponse {
        try await client.get(url: baseURL + AdminAPI.basePath + path, headers: headers(token))
    }

    func post(_ path: String, _ body: String = "", token: String?? = .none) async throws -> HTTPResponse {
        try await client.post(url: baseURL + AdminAPI.basePath + path, body: Array(body.utf8), headers: headers(token))
    }

    private func headers(_ token: String??) -> HTTPHeaders {
        let chosen: String? =
            switch token {
            case .none: self.token
            case .some(let given): given
            }
        guard let chosen else { return [:] }
        return ["Authorization": "Bearer \(chosen)"]
    }

    /// `…/api/client/v2.0/app/<app id><path>`: the client API the Realm SDKs speak.
    func clientURL(_ path: String) -> String {
        "\(baseURL)\(ClientAPI.basePath)/app/\(server.appId)\(path)"
    }

    /// Registers an email/password user and logs them in through the client API: their id and access token.
    @discardableResult
    func register(_ email: String, password: String = "correct horse") async throws -> (id: String, accessToken: String)
    {
        let body = Array(#"{"email": "\#(email)", "password": "\#(password)"}"#.utf8)
        let registered = try await client.post(url: clientURL("/auth/providers/local-userpass/register"), body: body)
        guard registered.status == 201 else { throw TestFailure("register answered \(registered.status)") }
        let login = Array(#"{"username": "\#(email)", "password": "\#(password)"}"#.utf8)
        return try Self.session(
            try await client.post(url: clientURL("/auth/providers/local-userpass/login"), body: login))
    }

    /// Logs a new anonymous user in: their id and access token.
    func loginAnonymously() async throws -> (id: String, accessToken: String) {
        try Self.session(
            try await client.post(url: clientURL("/auth/providers/anon-user/login"), body: Array("{}".utf8)))
    }

    private static func session(_ response: HTTPResponse) throws -> (id: String, accessToken: String) {
        guard response.status == 200, let body = response.document, let id = body["user_id"]?.stringValue,
            let token = body["access_token"]?.stringValue
        else { throw TestFailure("login answered \(response.status): \(response.text)") }
        return (id, token)
    }

    /// Waits until the triggers have caught up and no function is running.
    func settle() async throws {
        try await app.awaitIdle()
    }
}

extension HTTPResponse {
    /// The body read as relaxed or canonical Extended JSON.
    var document: BSONDocument? { try? ExtendedJSON.parseDocument(body) }
}

/// Percent-encodes a query argument (Extended JSON is full of characters URLs reserve).
func queryValue(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

/// The wall clock, except that no scheduled fire time ever comes.
struct UnschedulingClock: TriggerClock {
    func now() -> Date { Date() }

    func sleep(until deadline: Date) async throws {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
