import BSON
import DocumentStore
import Foundation
import Messaging
import TestSupport
import Testing

/// The example app in a `switchyard serve` child process, fed through the client API the Realm SDKs speak, on the
/// tutorial's data model, killed with SIGKILL mid-stream several times: every write the server acknowledged must
/// reach every trigger that matches it at least once — each new book a topic notification
/// (`onBookPushNotification`), each change to a favourite book of the registered reader a queued entry
/// (`favouriteUserBookUpdated`) and a message sent to the reader's device (`onSentPushNotification`).
@Suite(.timeLimit(.minutes(5))) struct ExampleAppCrashTests {
    static let rounds = 3
    static let writers = 4
    /// Books acknowledged in a round before its kill may come.
    static let booksPerRound = 10
    /// The reader's one device, shaped like an FCM registration token.
    static let device =
        "cK3x9Q2mTgGq1ITGdBqGS:APA91bERtZt-O-jEg6jMMCjPCfYdo1wmP9RbeATAXIQKQ3rfOqj1HFmETvdqm2MJHOhx2ZXqGJydtMWjHkaAD20A8OtqYWU3oiSg17vX_gh-19b85lP9S8bvd2TRsV3DqHnJP8k-t2WV"

    /// What the server acknowledged, across rounds.
    actor Acknowledged {
        var books: Set<String> = []
        /// The titles each acknowledged edit gave a book, by book.
        var titles: [String: Set<String>] = [:]

        func book(_ id: String) { books.insert(id) }
        func retitled(_ id: String, _ title: String) { titles[id, default: []].insert(title) }
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
                // A registered reader (email and password) with one device.
                let credentials = Array(#"{"email":"reader@example.com","password":"secret-password"}"#.utf8)
                let registered = try await client.post(
                    url: "\(base)/auth/providers/local-userpass/register", body: credentials,
                    headers: ["Content-Type": "application/json"])
                #expect(registered.status == 201, "\(registered.text)")
                let login = try await client.post(
                    url: "\(base)/auth/providers/local-userpass/login",
                    body: Array(#"{"username":"reader@example.com","password":"secret-password"}"#.utf8),
                    headers: ["Content-Type": "application/json"])
                let session = try #require(login.json?.documentValue, "\(login.text)")
                token = try #require(session["access_token"]?.stringValue)
                userId = try #require(session["user_id"]?.stringValue)
                let stored = try await ClientAPISession(http: client, base: base, token: token).call(
                    #"{"name":"updateFCMUserToken","arguments":["\#(Self.device)","add"]}"#)
                #expect(stored.status == 200, "\(stored.text)")
            }
            // Writers stream books (inserted and retitled by the back office, favoured by the reader) until the
            // server is killed under them.
            let admin = try await AdminDataSession(
                http: client, root: "http://127.0.0.1:\(port)", dataDirectory: data.path)
            let streaming = (0..<Self.writers).map { writer in
                Task { [token, userId] in
                    let session = ClientAPISession(http: client, base: base, token: token)
                    while !Task.isCancelled {
                        let id = ObjectId().hex
                        let inserted = try? await admin.insert(
                            "book",
                            #"{"_id":{"$oid":"\#(id)"},"_partition":"PUBLIC","volumeInfo":{"title":"Book \#(id)"}}"#)
                        guard inserted?.status == 201 else { continue }
                        await acknowledged.book(id)
                        let favourite = try? await session.mongo(
                            "updateOne",
                            #""collection":"user","query":{"_id":"\#(userId)"},"update":{"$addToSet":{"favoriteBooks":{"$oid":"\#(id)"}}}"#
                        )
                        guard favourite?.status == 200 else { continue }
                        for edition in 1...2 {
                            let title = "Book \(id), edition \(edition)"
                            let updated = try? await admin.update(
                                "book", filter: #"{"_id":{"$oid":"\#(id)"}}"#,
                                update: #"{"$set":{"volumeInfo.title":"\#(title)"}}"#)
                            if updated?.status == 200 { await acknowledged.retitled(id, title) }
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
        let titles = await acknowledged.titles
        #expect(books.count >= Self.rounds * Self.booksPerRound, "the writers got too little through to prove anything")
        #expect(!titles.isEmpty, "no favourite book was changed")
        let deadline = Date().addingTimeInterval(120)
        var missing: [String] = ["not checked yet"]
        while Date() < deadline {
            missing = try await Self.unhandled(books: books, titles: titles, data: data.path)
            if missing.isEmpty { break }
            try await Task.sleep(for: .milliseconds(250))
        }
        #expect(missing.isEmpty, "\(missing.count) acknowledged writes not handled, e.g. \(missing.prefix(5))")
    }

    /// What has not (yet) reached its triggers, read from the data directory the way `switchyard logs` does.
    static func unhandled(books: Set<String>, titles: [String: Set<String>], data: String) async throws -> [String] {
        let store = try await DocumentStore.open(.sqlite(directory: data))
        do {
            let missing = try await unhandled(books: books, titles: titles, store: store)
            await store.close()
            return missing
        } catch {
            await store.close()
            throw error
        }
    }

    static func unhandled(books: Set<String>, titles: [String: Set<String>], store: DocumentStore) async throws
        -> [String]
    {
        var notified: Set<String> = []
        var sent: Set<String> = []
        for entry in try await store.database("local").collection("outbox").find([:]).toArray() {
            let request = entry["request"]?.documentValue
            let message = request?["message"]?.documentValue ?? request
            let target = entry["target"]?.documentValue
            if let bookId = message?["data"]?.documentValue?["bookId"]?.stringValue, target?["topic"] != nil {
                notified.insert(bookId)
            }
            if target?["token"]?.stringValue == device, entry["error"] == nil,
                let title = message?["notification"]?.documentValue?["title"]?.stringValue
            {
                sent.insert(title)
            }
        }
        var queued: Set<String> = []
        for entry in try await store.database("product").collection("pushNotification").find([:]).toArray()
        where entry["token"] == [.string(device)] {
            if let title = entry["changes"]?.documentValue?["volumeInfo.title"]?.stringValue {
                queued.insert(title)
            }
        }
        var missing = books.subtracting(notified).sorted().map { "new book \($0) not notified" }
        for (book, edits) in titles.sorted(by: { $0.key < $1.key }) {
            for title in edits.sorted() {
                if !queued.contains(title) { missing.append("'\(title)' of \(book) not queued") }
                if !sent.contains("\(title) changed") { missing.append("'\(title)' of \(book) not sent") }
            }
        }
        return missing
    }
}
