import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `switchyard serve` on a data directory whose store lost committed data after a crash (its write-ahead log
/// truncated, deleted or garbled; `store.sqlite` deleted or emptied): it refuses to start, exit status 1, saying
/// which file is missing or damaged and how to recover; `--accept-data-loss` starts it with what is left, and the
/// next start needs the flag no more.
@Suite(.timeLimit(.minutes(5))) struct DamagedStoreTests {
    static let documents = 1_500

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case walTruncated, walDeleted, walGarbled, databaseDeleted, databaseEmptied

        var testDescription: String { rawValue }

        /// The file the refusal names.
        var file: String {
            switch self {
            case .walTruncated, .walDeleted, .walGarbled: "store.sqlite-wal"
            case .databaseDeleted, .databaseEmptied: "store.sqlite"
            }
        }

        func apply(to data: String) throws {
            let wal = data + "/store.sqlite-wal"
            switch self {
            case .walTruncated:
                let handle = try #require(FileHandle(forWritingAtPath: wal))
                try handle.truncate(atOffset: try handle.seekToEnd() / 2)
                try handle.close()
            case .walDeleted:
                try FileManager.default.removeItem(atPath: wal)
            case .walGarbled:
                let handle = try #require(FileHandle(forWritingAtPath: wal))
                try handle.write(contentsOf: Data(repeating: 0x5a, count: 4_096))
                try handle.close()
            case .databaseDeleted:
                try FileManager.default.removeItem(atPath: data + "/store.sqlite")
            case .databaseEmptied:
                let handle = try #require(FileHandle(forWritingAtPath: data + "/store.sqlite"))
                try handle.truncate(atOffset: 0)
                try handle.close()
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func aStoreMissingCommittedDataRefusesToStartUntilTheLossIsAccepted(_ damage: Damage) async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let data = app.path + "/data"
        let arguments = ["serve", "--port", "0", "--log-format", "json", "--data-dir", data]
        let first = try RunningSwitchyard(arguments, in: app.path)
        defer { first.kill() }
        let serving = try await first.awaitLine(containing: "serving app")
        let clientAPI = try #require(serving["clientAPI"] as? String)
        let token = try await anonymousAccessToken(at: clientAPI)
        for batch in 0..<3 {
            let documents = (0..<(Self.documents / 3)).map { #"{"batch":\#(batch),"n":\#($0)}"# }
            let status = try await post(
                "\(clientAPI)/functions/call",
                #"{"name":"insertMany","service":"mongodb-atlas","arguments":[{"database":"shop","collection":"items","documents":[\#(documents.joined(separator: ","))]}]}"#,
                token: token)
            #expect(status == 200)
        }
        // The position recorded beside the store catches up with the last commit; then the server crashes.
        for _ in 0..<1_000 where committedThrough(data) < Self.documents {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(committedThrough(data) >= Self.documents)
        first.kill()
        try damage.apply(to: data)

        let refused = try switchyard(arguments, in: app.path)
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains(damage.file), "\(refused.stderr)")
        #expect(refused.stderr.contains("--accept-data-loss"), "\(refused.stderr)")
        #expect(refused.stderr.contains("switchyard data backup"), "\(refused.stderr)")

        let accepted = try RunningSwitchyard(arguments + ["--accept-data-loss"], in: app.path)
        defer { accepted.kill() }
        _ = try await accepted.awaitLine(containing: "serving app")
        #expect(accepted.interrupt() == 0)
        let next = try RunningSwitchyard(arguments, in: app.path)
        defer { next.kill() }
        _ = try await next.awaitLine(containing: "serving app")
        #expect(next.interrupt() == 0)
    }

    private func committedThrough(_ data: String) -> Int {
        guard let contents = FileManager.default.contents(atPath: data + "/store.identity"),
            let object = try? JSONSerialization.jsonObject(with: contents) as? [String: Any]
        else { return 0 }
        return (object["committedThrough"] as? Int) ?? 0
    }

    private func post(_ url: String, _ body: String, token: String) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

}
