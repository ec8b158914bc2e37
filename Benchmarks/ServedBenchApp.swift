import Foundation
import Messaging
import Switchyard
import SwitchyardServer

/// An app with no functions and the data access rules `rules` (a `triggers.yaml` `rules:` section), served
/// in-process on a loopback port as app `bench`, with an anonymous user logged in: what the benchmarks of served
/// data calls start from.
struct ServedBenchApp {
    let app: SwitchyardApp
    let server: AppServer
    let client: HTTPClient
    /// `http://127.0.0.1:PORT/api/client/v2.0/app/bench`.
    let base: String
    let token: String
    let userId: String

    static func start(rules: String) async throws -> ServedBenchApp {
        let definition = try AppDefinition.parse(rules)
        let app = try await SwitchyardApp.open(
            configuration: AppConfiguration(definition: definition, environment: .development, values: AppValues()),
            registry: FunctionRegistry(), store: .memory)
        try await app.start()
        let server = try await AppServer.start(
            app: app, configuration: AppServer.Configuration(port: 0, appId: "bench"))
        let client = try HTTPClient()
        let base = server.http.baseURL + "/api/client/v2.0/app/bench"
        let login = try await client.post(
            url: "\(base)/auth/providers/anon-user/login", body: Array("{}".utf8),
            headers: ["Content-Type": "application/json"])
        guard let session = login.json?.documentValue, let token = session["access_token"]?.stringValue,
            let userId = session["user_id"]?.stringValue
        else { throw BenchmarkFailure("login answered \(login.status)") }
        return ServedBenchApp(app: app, server: server, client: client, base: base, token: token, userId: userId)
    }

    func stop() async {
        await server.stop()
        await app.stop()
    }
}
