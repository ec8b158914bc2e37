import BSON
import Foundation
import Messaging
import TestSupport
import Testing

/// Two `switchyard serve` processes of the example app on one PostgreSQL database, each with its own data directory.
@Suite(.timeLimit(.minutes(2))) struct ServeClusterTests {
    @Test func aWriteThroughOneServeIsSeenThroughTheOther() async throws {
        let postgres = try await offPool { try PostgreSQLServer.shared() }
        let database = "cluster_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = try await offPool { try postgres.database(database) }
        defer { postgres.dropDatabase(database) }
        let http = try HTTPClient()
        var nodes: [(server: ServerProcess, admin: AdminDataSession)] = []
        let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
        defer { for node in nodes { node.server.kill() } }
        for directory in directories {
            let port = closedLoopbackPort()
            let root = "http://127.0.0.1:\(port)"
            let server = try ServerProcess(repositoryRoot.path, data: directory.path, port: port, store: url)
            nodes.append((server, try await Self.admin(server, http: http, root: root, data: directory.path)))
        }
        let book = ObjectId().hex
        let added = try await nodes[0].admin.insert(
            "book", #"{"_id":{"$oid":"\#(book)"},"_partition":"PUBLIC","volumeInfo":{"title":"Dune"}}"#)
        #expect(added.status == 201, "\(added.text)")
        // The other node learns of the collection and its document from the first's commit.
        let seen = try await Self.eventually {
            try await nodes[1].admin.findOne("book", filter: #"{"_id":{"$oid":"\#(book)"}}"#)
        }
        #expect(seen?["volumeInfo"]?.documentValue?["title"] == "Dune")
        let changed = try await nodes[1].admin.update(
            "book", filter: #"{"_id":{"$oid":"\#(book)"}}"#, update: #"{"$set":{"volumeInfo.title":"Dune Messiah"}}"#)
        #expect(changed.status == 200, "\(changed.text)")
        let back = try await Self.eventually {
            let found = try await nodes[0].admin.findOne("book", filter: #"{"volumeInfo.title":"Dune Messiah"}"#)
            return found
        }
        #expect(back?["_id"] == ObjectId(hex: book).map { .objectId($0) })
    }

    /// The node's admin session, once it serves (its admin token is written by then).
    private static func admin(_ server: ServerProcess, http: HTTPClient, root: String, data: String) async throws
        -> AdminDataSession
    {
        try await server.awaitServing(http, base: "\(root)/api/client/v2.0/app/switchyard-app")
        return try await AdminDataSession(http: http, root: root, dataDirectory: data)
    }

    /// `read`'s first non-nil answer, asked again every 20 ms for up to a minute (a deadline, not a measure).
    private static func eventually<T>(_ read: () async throws -> T?) async throws -> T? {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let value = try await read() { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
