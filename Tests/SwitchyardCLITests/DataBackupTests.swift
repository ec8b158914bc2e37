import Foundation
import Messaging
import TestSupport
import Testing

/// `switchyard data backup DIR` beside a running `serve`: the copy holds the commits still in the write-ahead
/// log, and a data directory restored from it as the README says starts with every document.
@Suite(.timeLimit(.minutes(3))) struct DataBackupTests {
    @Test func aBackupMadeWhileServingRestoresEveryAcknowledgedDocument() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let data = app.path + "/data"
        let server = try RunningSwitchyard(
            ["serve", "--port", "0", "--log-format", "json", "--data-dir", data], in: app.path)
        defer { server.kill() }
        let serving = try await server.awaitLine(containing: "serving app")
        let clientAPI = try #require(serving["clientAPI"] as? String)
        let http = try HTTPClient()
        let login = try await http.post(
            url: "\(clientAPI)/auth/providers/anon-user/login", body: Array("{}".utf8),
            headers: ["Content-Type": "application/json"])
        let token = try #require(login.json?.documentValue?["access_token"]?.stringValue, "\(login.text)")
        let session = ClientAPISession(http: http, base: clientAPI, token: token)
        let documents = (0..<300).map { #"{"n":\#($0)}"# }.joined(separator: ",")
        let inserted = try await session.mongo("insertMany", #""collection":"book","documents":[\#(documents)]"#)
        #expect(inserted.status == 200, "\(inserted.text)")

        let backup = try switchyard(["data", "backup", "backup", "--data-dir", data], in: app.path)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("backup/store.sqlite"), "\(backup.stdout)")
        let again = try switchyard(["data", "backup", "backup", "--data-dir", data], in: app.path)
        #expect(again.status == 2, "a backup never overwrites another: \(again.stdout)\(again.stderr)")
        server.kill()

        let restored = app.path + "/restored"
        try FileManager.default.createDirectory(atPath: restored, withIntermediateDirectories: true)
        for file in ["store.sqlite", "store.identity"] {
            try FileManager.default.copyItem(atPath: "\(app.path)/backup/\(file)", toPath: "\(restored)/\(file)")
        }
        let exported = try switchyard(["data", "export", "out", "--data-dir", restored], in: app.path)
        #expect(exported.status == 0, "\(exported.stderr)")
        let lines = app.read("out/product.book.json")?.split(separator: "\n") ?? []
        #expect(lines.count == 300)
    }
}
