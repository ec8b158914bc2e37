import Foundation
import Switchyard
import SwitchyardServer

/// `switchyard serve`: runs the app's triggers and serves it over HTTP until Ctrl-C.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "Serve the app: client API, FCM emulator, admin API and dashboard, with its triggers"
    static let usage = """
        USAGE: switchyard serve [options]

        Loads and validates the app, starts its triggers and serves it on one HTTP server: the client API
        the Realm SDKs speak (/api/client/v2.0), the FCM emulator endpoint (/v1/projects/...), the admin API
        (/admin/v1) and the dashboard (/). Runs until Ctrl-C (or SIGTERM), when requests in flight and
        running functions finish and the triggers' state is saved.

        The admin API and the dashboard answer only this machine. The admin API asks for
        'Authorization: Bearer TOKEN' with the token printed at start (new at every start) and written to
        DATA_DIR/admin.token, readable by you only; the dashboard page carries it.

        Configuration problems print as FILE:LINE:COLUMN: message, exit status 2; a failure to start (the
        port is taken, the data directory is in use) exits with status 1.

        OPTIONS:
          --host HOST           The address to listen on (default: 127.0.0.1)
          --port N              The port (default: 9090; 0 picks a free one)
          --app-id ID           The app id clients use (default: the configuration's appId, else
                                switchyard-app)
        \(AppOptions.dataUsage)
          -h, --help            Show this help
        """

    var app: AppOptions
    var host: String
    var port: UInt16
    var appId: String?

    init(arguments: [String]) throws(UsageError) {
        let parsed = try Arguments(
            arguments, options: AppOptions.dataNames + ["--host", "--port", "--app-id"], flags: [], usage: Self.usage)
        guard parsed.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(parsed.positionals[0])'", usage: Self.usage)
        }
        app = try AppOptions(parsed, usage: Self.usage)
        host = parsed.value("--host") ?? "127.0.0.1"
        let portText = parsed.value("--port") ?? "9090"
        guard let port = UInt16(portText) else {
            throw UsageError("--port takes a number from 0 to 65535, not '\(portText)'", usage: Self.usage)
        }
        self.port = port
        appId = parsed.value("--app-id")
    }

    func run() async -> Int32 {
        let stop = StopSignal()
        let opened: OpenApp
        do {
            opened = try await app.openApp()
        } catch {
            Output.error(error.message)
            return error.status
        }
        let server: AppServer
        do {
            try await opened.app.start()
            server = try await AppServer.start(
                app: opened.app,
                configuration: AppServer.Configuration(
                    host: host, port: port, appId: appId, dataDirectory: app.dataDirectory))
        } catch {
            await opened.stop()
            Output.error("switchyard serve: cannot start: \(error)")
            return 1
        }
        let base = server.http.baseURL
        Output.print(
            """
            serving app '\(server.appId)' (data in \(app.dataDirectory); Ctrl-C stops)
              dashboard      \(base)/
              client API     \(base)/api/client/v2.0/app/\(server.appId)
              FCM emulator   \(base)/v1/projects/\(server.appId)/messages:send
              admin API      \(base)/admin/v1
              admin token    \(server.adminToken.value) (also in \(app.dataDirectory)/\(AdminToken.fileName))
            """)
        let signal = await stop.wait()
        Output.print("stopping (\(signal == SIGINT ? "interrupt" : "terminate"))")
        server.stop()
        await opened.stop()
        Output.print("stopped")
        return 0
    }
}
