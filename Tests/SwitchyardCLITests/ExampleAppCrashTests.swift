import BSON
import DocumentStore
import Foundation
import Messaging
import TestSupport
import Testing

/// The example app in a `switchyard serve` child process, fed through the client API the Realm SDKs speak,
/// killed with SIGKILL mid-stream several times: every write the server acknowledged must reach every trigger
/// that matches it at least once — each new book a topic notification (`sendBooksTopic`), each change to a
/// favourite book a queued notification (`queueFavoriteBookUpdate`) that `sendQueuedNotification` then takes up.
@Suite(.timeLimit(.minutes(5))) struct ExampleAppCrashTests {
    static let rounds = 3
    static let writers = 4
    /// Books acknowledged in a round before its kill may come.
    static let booksPerRound = 10

    /// What the server acknowledged, across rounds.
    actor Acknowledged {
        var books: Set<String> = []
        var editions: [String: Set<Int>] = [:]

        func book(_ id: String) { books.insert(id) }
        func edition(_ id: String, _ edition: Int) { editions[id, default: []].insert(edition) }
    }

    @Test func everyAcknowledgedWriteReachesEveryMatchingTriggerAcrossKills() async throws {
        let data = try TemporaryDirectory()
        let port = closedLoopbackPort()
        let base = "http://127.0.0.1:\(port)/api/client/v2.0/app/switchyard-app"
        let client = try HTTPClient()
        let acknowledged = Acknowledged()
        var token = ""
        var userId = ""

        for round in 0..<Self.rounds {
            let server = try ServerProcess(repositoryRoot.path, data: data.path, port: port)
            defer { server.kill() }
            try await server.awaitServing(client, base: base)
            if round == 0 {
                // One device: its token on the user's data, so favourite books notify it.
                let login = try await client.post(url: "\(base)/auth/providers/anon-user/login", body: Array("{}".utf8))
                let session = try #require(login.json?.documentValue)
                token = try #require(session["access_token"]?.stringValue)
                userId = try #require(session["user_id"]?.stringValue)
                let registered = try await call(
                    client, base, token, #"{"name":"updateFCMUserToken","arguments":["device-1","add"]}"#)
                #expect(registered.status == 200, "\(registered.text)")
            }
            // Writers stream books (insert, favourite, two edits) until the server is killed under them.
            let streaming = (0..<Self.writers).map { writer in
                Task { [token, userId] in
                    var n = 0
                    while !Task.isCancelled {
                        let id = "b\(round)-\(writer)-\(n)"
                        n += 1
                        let inserted = try? await mongo(
                            client, base, token, "insertOne",
                            #""collection":"book","document":{"_id":"\#(id)","title":"Book \#(id)"}"#)
                        guard inserted?.status == 200 else { continue }
                        await acknowledged.book(id)
                        _ = try? await mongo(
                            client, base, token, "updateOne",
                            #""collection":"customUserData","query":{"userId":"\#(userId)"},"update":{"$addToSet":{"favoriteBooks":"\#(id)"}}"#
                        )
                        for edition in 1...2 {
                            let updated = try? await mongo(
                                client, base, token, "updateOne",
                                #""collection":"book","query":{"_id":"\#(id)"},"update":{"$set":{"edition":\#(edition)}}"#
                            )
                            if updated?.status == 200 { await acknowledged.edition(id, edition) }
                        }
                    }
                }
            }
            // Killed at a random point once this round has some writes through, however loaded the machine.
            let before = await acknowledged.books.count
            let through = Date().addingTimeInterval(60)
            while await acknowledged.books.count < before + Self.booksPerRound, Date() < through {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 100...800)))
            server.kill()
            for writer in streaming { writer.cancel() }
            for writer in streaming { await writer.value }
        }

        // A last server catches up; then everything acknowledged has been handled.
        let server = try ServerProcess(repositoryRoot.path, data: data.path, port: port)
        defer { server.kill() }
        try await server.awaitServing(client, base: base)
        let books = await acknowledged.books
        let editions = await acknowledged.editions
        #expect(books.count >= Self.rounds * Self.booksPerRound, "the writers got too little through to prove anything")
        let deadline = Date().addingTimeInterval(120)
        var missing: [String] = ["not checked yet"]
        while Date() < deadline {
            missing = try await Self.unhandled(books: books, editions: editions, data: data.path)
            if missing.isEmpty { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(missing.isEmpty, "\(missing.count) acknowledged writes not handled, e.g. \(missing.prefix(5))")
    }

    /// What has not (yet) reached its triggers, read from the data directory the way `switchyard logs` does.
    static func unhandled(books: Set<String>, editions: [String: Set<Int>], data: String) async throws -> [String] {
        let store = try await DocumentStore.open(.sqlite(directory: data))
        do {
            let missing = try await unhandled(books: books, editions: editions, store: store)
            await store.close()
            return missing
        } catch {
            await store.close()
            throw error
        }
    }

    static func unhandled(books: Set<String>, editions: [String: Set<Int>], store: DocumentStore) async throws
        -> [String]
    {
        var notified: Set<String> = []
        for entry in try await store.database("local").collection("outbox").find([:]).toArray() {
            let request = entry["request"]?.documentValue
            let message = request?["message"]?.documentValue ?? request
            if let bookId = message?["data"]?.documentValue?["bookId"]?.stringValue,
                entry["target"]?.documentValue?["topic"] != nil
            {
                notified.insert(bookId)
            }
        }
        var queued: Set<String> = []
        // sendQueuedNotification ran on an entry when it sent it, or when it took the entry's sending lease (a
        // run killed after taking it leaves the entry to the scheduled retry once the lease lapses).
        for entry in try await store.database("product").collection("pushNotification").find([:]).toArray()
        where entry["processed"] == true || entry["sendingUntil"] != nil {
            if let book = entry["bookId"]?.stringValue, let edition = entry["changes"]?.documentValue?["edition"] {
                queued.insert("\(book)@\(edition.int64Value ?? -1)")
            }
        }
        var missing = books.subtracting(notified).sorted().map { "new book \($0) not notified" }
        for (book, numbers) in editions.sorted(by: { $0.key < $1.key }) {
            for edition in numbers.sorted() where !queued.contains("\(book)@\(edition)") {
                missing.append("edition \(edition) of \(book) not queued and handed to sendQueuedNotification")
            }
        }
        return missing
    }
}

private func call(_ client: HTTPClient, _ base: String, _ token: String, _ body: String) async throws -> HTTPResponse {
    try await client.post(
        url: "\(base)/functions/call", body: Array(body.utf8),
        headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"])
}

/// A `mongodb-atlas` service call on the `product` database, as the Realm SDKs' MongoCollection sends it.
private func mongo(_ client: HTTPClient, _ base: String, _ token: String, _ action: String, _ fields: String)
    async throws -> HTTPResponse
{
    try await call(
        client, base, token,
        #"{"name":"\#(action)","service":"mongodb-atlas","arguments":[{"database":"product",\#(fields)}]}"#)
}

/// `switchyard serve` with the example app on a fixed port and data directory; killed with SIGKILL.
private final class ServerProcess {
    let process = Process()

    init(_ configuration: String, data: String, port: UInt16) throws {
        guard let executable = switchyardExecutable else { throw MissingExecutable() }
        process.executableURL = executable
        process.arguments = ["serve", "--config", configuration, "--data-dir", data, "--port", "\(port)"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SWITCHYARD_") }
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
        process.waitUntilExit()
    }

    struct ServerDidNotStart: Error {}
}
