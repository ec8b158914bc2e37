import BSON
import Foundation
import Switchyard
import SwitchyardServer

/// What `serve` prints on standard output: its addresses, its lifecycle and every function run, as text for
/// people or one JSON object per line for log collectors.
struct ServeLog {
    let format: ServeCommand.LogFormat

    /// `store`: where the store is when not in the data directory, as it prints (without a password).
    func serving(_ server: AppServer, dataDirectory: String, store: String? = nil, push: String) {
        let base = server.http.baseURL
        let tokenFile = "\(dataDirectory)/\(AdminToken.fileName)"
        let urls: KeyValuePairs<String, String> = [
            "dashboard": "\(base)/", "clientAPI": "\(base)/api/client/v2.0/app/\(server.appId)",
            "fcmEmulator": "\(base)/v1/projects/\(server.fcmEmulator.project)/messages:send",
            "adminAPI": "\(base)/admin/v1",
        ]
        switch format {
        case .text:
            Output.print(
                """
                serving app '\(server.appId)' (data in \(dataDirectory)\(store.map { ", store \($0)" } ?? ""); Ctrl-C stops)
                  dashboard      \(urls[0].value)
                  client API     \(urls[1].value)
                  FCM emulator   \(urls[2].value)
                  admin API      \(urls[3].value)
                  push           \(push)
                  admin token    \(server.adminToken.value) (also in \(tokenFile))
                """)
        case .json:
            var document = line(level: "info", message: "serving app '\(server.appId)'")
            document.append("appId", .string(server.appId))
            document.append("dataDirectory", .string(dataDirectory))
            if let store { document.append("store", .string(store)) }
            for (name, url) in urls { document.append(name, .string(url)) }
            document.append("push", .string(push))
            // The token itself stays out of machine-read logs, which travel further than a terminal.
            document.append("adminTokenFile", .string(tokenFile))
            Output.print(document.extendedJSON(mode: .relaxed))
        }
    }

    /// The MongoDB wire protocol's connection string, printed below the serving lines, and whether it asks for
    /// authentication (with `users` users).
    func mongoDB(_ connectionString: String, users: Int) {
        let authentication =
            users == 0
            ? "none (no users; add one with 'switchyard users add NAME')"
            : "SCRAM-SHA-256 or SCRAM-SHA-1, \(users) user\(users == 1 ? "" : "s"), authSource=admin"
        switch format {
        case .text:
            Output.print("  MongoDB        \(connectionString)")
            Output.print("                 authentication: \(authentication)")
        case .json:
            var document = line(level: "info", message: "serving the MongoDB wire protocol")
            document.append("mongoDB", .string(connectionString))
            document.append("authentication", .string(authentication))
            Output.print(document.extendedJSON(mode: .relaxed))
        }
    }

    /// Prints the records in one write, formatted straight into one buffer: a busy server prints thousands a
    /// second.
    func invocations(_ records: [InvocationRecord]) {
        var bytes: [UInt8] = []
        switch format {
        case .text:
            bytes.reserveCapacity(records.reduce(0) { $0 + $1.textCapacity + 1 })
            for record in records {
                record.appendText(to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
            }
        case .json:
            for record in records {
                bytes.append(contentsOf: record.jsonLine.utf8)
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        Output.write(bytes, to: .standardOutput)
    }

    func event(_ message: String) {
        switch format {
        case .text: Output.print(message)
        case .json: Output.print(line(level: "info", message: message).extendedJSON(mode: .relaxed))
        }
    }

    /// Something the operator must act on; on standard error in text form.
    func problem(_ message: String) {
        switch format {
        case .text: Output.error(message)
        case .json: Output.print(line(level: "error", message: message).extendedJSON(mode: .relaxed))
        }
    }

    private func line(level: String, message: String) -> BSONDocument {
        [
            "time": .string(UTCTimestamp.text(Date(), milliseconds: true)), "level": .string(level),
            "message": .string(message),
        ]
    }
}
