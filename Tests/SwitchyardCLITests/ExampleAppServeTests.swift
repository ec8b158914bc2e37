import BSON
import Foundation
import Messaging
import TestSupport
import Testing

/// Every flow of the tutorial through `switchyard serve`, observed from outside as a developer would: the client
/// API for the app's data, the admin API for the outbox.
@Suite(.timeLimit(.minutes(2))) struct ExampleAppServeTests {
    static let device =
        "fQvffGBN2kBol1ITGdBqGS:APA91bERtZt-O-jEg6jMMCjPCfYdo1wmP9RbeATAXIQKQ3rfOqj1HFmETvdqm2MJHOhx2ZXqGJydtMWjHkaAD20A8OtqYWU3oiSg17vX_gh-19b85lP9S8bvd2TRsV3DqHnJP8k-t2WV"
    static let cover =
        "http://books.google.com/books/content?id=aCVZAAAAMAAJ&printsec=frontcover&img=1&zoom=5&source=gbs_api"

    @Test func theTutorialsFlowsOnItsDataModel() async throws {
        let data = try TemporaryDirectory()
        let port = closedLoopbackPort()
        let root = "http://127.0.0.1:\(port)"
        let base = "\(root)/api/client/v2.0/app/switchyard-app"
        let http = try HTTPClient()
        let server = try ServerProcess(repositoryRoot.path, data: data.path, port: port)
        defer { server.kill() }
        try await server.awaitServing(http, base: base)

        func login(_ provider: String, _ body: String) async throws -> (userId: String, session: ClientAPISession) {
            let response = try await http.post(
                url: "\(base)/auth/providers/\(provider)/login", body: Array(body.utf8),
                headers: ["Content-Type": "application/json"])
            let document = try #require(response.json?.documentValue, "\(response.text)")
            let token = try #require(document["access_token"]?.stringValue)
            return (
                try #require(document["user_id"]?.stringValue), ClientAPISession(http: http, base: base, token: token)
            )
        }
        func findOne(_ session: ClientAPISession, _ collection: String, _ query: String) async throws -> BSONDocument? {
            let response = try await session.mongo("findOne", #""collection":"\#(collection)","query":\#(query)"#)
            return try ExtendedJSON.parseValue(response.text).documentValue
        }
        /// The outbox once it holds `count` messages (the triggers run after the writes are acknowledged).
        func outbox(count: Int) async throws -> [BSONDocument] {
            let token = try #require(data.read("admin.token")?.trimmingCharacters(in: .whitespacesAndNewlines))
            let deadline = Date().addingTimeInterval(60)
            var messages: [BSONDocument] = []
            while Date() < deadline {
                let response = try await http.get(
                    url: "\(root)/admin/v1/outbox", headers: ["Authorization": "Bearer \(token)"])
                messages =
                    try ExtendedJSON.parseDocument(response.text)["messages"]?.arrayValue?.compactMap(\.documentValue)
                    ?? []
                if messages.count >= count { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            return messages
        }

        // The client starts anonymous: an unregistered user.
        let guest = try await login("anon-user", "{}")
        // The user document comes from the authentication triggers, which run after the login is answered.
        var guestUser = try await findOne(guest.session, "user", #"{"_id":"\#(guest.userId)"}"#)
        for _ in 0..<600 where guestUser?["_id"] == nil {
            try await Task.sleep(for: .milliseconds(50))
            guestUser = try await findOne(guest.session, "user", #"{"_id":"\#(guest.userId)"}"#)
        }
        #expect(guestUser?["registered"] == false, "\(String(describing: guestUser))")
        #expect(guestUser?["userName"] == .null)

        // Registered with email and password: a registered user, named by the email, with a device.
        let registered = try await http.post(
            url: "\(base)/auth/providers/local-userpass/register",
            body: Array(#"{"email":"reader@example.com","password":"secret-password"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        #expect(registered.status == 201, "\(registered.text)")
        let reader = try await login(
            "local-userpass", #"{"username":"reader@example.com","password":"secret-password"}"#)
        let user = try await findOne(reader.session, "user", #"{"_id":"\#(reader.userId)"}"#)
        #expect(user?["registered"] == true)
        #expect(user?["userName"] == "reader@example.com")
        let stored = try await reader.session.call(
            #"{"name":"updateFCMUserToken","arguments":["\#(Self.device)","add"]}"#)
        #expect(stored.status == 200, "\(stored.text)")
        let userData = try await findOne(reader.session, "customUserData", #"{"userId":"\#(reader.userId)"}"#)
        #expect(userData?["FCMToken"] == [.string(Self.device)])

        // A book added (by the back office: only the system writes books), marked as a favourite by the reader,
        // changed and deleted.
        let book = ObjectId().hex
        let admin = try await AdminDataSession(http: http, root: root, dataDirectory: data.path)
        let added = try await admin.insert(
            "book",
            #"{"_id":{"$oid":"\#(book)"},"_partition":"PUBLIC","volumeInfo":{"title":"Pacific Linguistics","imageLinks":{"smallThumbnail":"\#(Self.cover)"}}}"#
        )
        #expect(added.status == 201, "\(added.text)")
        let favourite = try await reader.session.mongo(
            "updateOne",
            #""collection":"user","query":{"_id":"\#(reader.userId)"},"update":{"$addToSet":{"favoriteBooks":{"$oid":"\#(book)"}}}"#
        )
        #expect(favourite.status == 200, "\(favourite.text)")
        let changed = try await admin.update(
            "book", filter: #"{"_id":{"$oid":"\#(book)"}}"#,
            update: #"{"$set":{"volumeInfo.title":"Pacific on Linguistics"}}"#)
        #expect(changed.status == 200, "\(changed.text)")
        // The change is sent before the book goes, so the delete's notification comes last.
        _ = try await outbox(count: 2)
        let deleted = try await admin.delete("book", filter: #"{"_id":{"$oid":"\#(book)"}}"#)
        #expect(deleted.status == 200, "\(deleted.text)")

        let messages = try await outbox(count: 3)
        func notification(_ message: BSONDocument) -> BSON? { message.value(atPath: "request.message.notification") }
        let topic = messages.filter { $0.value(atPath: "target.topic") == "books" }
        #expect(
            topic.map(notification) == [
                ["title": "New book added", "body": "Pacific Linguistics has been added to the list"],
                ["title": "Book deleted", "body": "Pacific on Linguistics has been deleted from the list"],
            ])
        #expect(topic.first?.value(atPath: "request.message.apns.fcm_options.image") == .string(Self.cover))
        let toDevice = messages.filter { $0.value(atPath: "target.token") == .string(Self.device) }
        #expect(
            toDevice.map(notification) == [
                ["title": "Pacific on Linguistics changed", "body": "One of your favorites changed"]
            ])
        #expect(toDevice.first?.value(atPath: "request.message.apns.fcm_options.image") == .string(Self.cover))
        #expect(toDevice.first?.value(atPath: "request.message.apns.payload.aps.mutable-content")?.int64Value == 1)

        // Marked processed once sent.
        // The queue is the triggers' alone: no client may read it, the back office may.
        let queue = try await reader.session.mongo("findOne", #""collection":"pushNotification","query":{}"#)
        #expect(queue.status == 403)
        var entry = try await admin.findOne("pushNotification", filter: #"{"userId":"\#(reader.userId)"}"#)
        let deadline = Date().addingTimeInterval(60)
        while entry?["processed"] != true, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
            entry = try await admin.findOne("pushNotification", filter: #"{"userId":"\#(reader.userId)"}"#)
        }
        #expect(entry?["token"] == [.string(Self.device)])
        #expect(entry?["changes"] == ["volumeInfo.title": "Pacific on Linguistics"])
        #expect(entry?["processed"] == true)
        #expect(entry?["date"]?.typeName == "date")
    }
}
