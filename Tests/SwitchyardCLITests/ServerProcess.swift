import Foundation
import Messaging
import TestSupport

/// `switchyard serve` with the example app on a fixed port and data directory (and `--store`, when given); killed
/// with SIGKILL.
final class ServerProcess {
    let process = Process()

    /// `arguments`: more of serve's options; `environment`: variables added to this process's (whose `SWITCHYARD_`
    /// ones are left out).
    init(
        _ configuration: String, data: String, port: UInt16, store: String? = nil, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        guard let executable = switchyardExecutable else { throw MissingExecutable() }
        process.executableURL = executable
        process.arguments =
            ["serve", "--config", configuration, "--data-dir", data, "--port", "\(port)"]
            + (store.map { ["--store", $0] } ?? []) + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SWITCHYARD_") }
            .merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func awaitServing(_ client: HTTPClient, base: String) async throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let response = try? await client.get(url: "\(base)/location"), response.status == 200 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ServerDidNotStart()
    }

    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    struct ServerDidNotStart: Error {}
}
