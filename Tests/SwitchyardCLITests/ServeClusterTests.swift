import BSON
import Foundation
import Messaging
import TestSupport
import Testing

/// Two `switchyard serve` processes of the example app on one PostgreSQL database, each with its own data directory.
@Suite(.timeLimit(.minutes(2))) struct ServeClusterTests {
    /// A node of the cluster: its process, `http://HOST:PORT` and its admin session.
    struct Node {
        let server: ServerProcess
        let root: String
        let admin: AdminDataSession
        /// The client API's routes of the app (`…/app/APP`) and of the caller's session (`…/auth/…`) start here.
        var clientAPI: String { "\(root)/api/client/v2.0" }
    }

    @Test func aWriteThroughOneServeIsSeenThroughTheOther() async throws {
        try await Self.withCluster { nodes, _ in
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
                "book", filter: #"{"_id":{"$oid":"\#(book)"}}"#,
                update: #"{"$set":{"volumeInfo.title":"Dune Messiah"}}"#)
            #expect(changed.status == 200, "\(changed.text)")
            let back = try await Self.eventually {
                let found = try await nodes[0].admin.findOne("book", filter: #"{"volumeInfo.title":"Dune Messiah"}"#)
                return found
            }
            #expect(back?["_id"] == ObjectId(hex: book).map { .objectId($0) })
        }
    }

    @Test func aLogoutOnOneServeEndsTheSessionOnTheOther() async throws {
        try await Self.withCluster { nodes, http in
            let login = try await Self.loginAnonymously(nodes[0], http: http)
            // Both nodes take the tokens, and so keep the session and the user in memory.
            for node in nodes {
                #expect(try await Self.profile(node, login.access, http: http) == 200)
                #expect(try await Self.refresh(node, login.refresh, http: http) == 201)
            }
            let loggedOut = try await http.delete(
                url: "\(nodes[0].clientAPI)/auth/session", headers: ["Authorization": "Bearer \(login.refresh)"])
            #expect(loggedOut.status == 204, "\(loggedOut.text)")
            #expect(try await Self.refresh(nodes[0], login.refresh, http: http) == 401)
            let refused = try await Self.eventually {
                try await Self.refresh(nodes[1], login.refresh, http: http) == 401 ? true : nil
            }
            #expect(refused == true, "the other node still takes the refresh token of a session logged out")
            #expect(try await Self.profile(nodes[1], login.access, http: http) == 401)
        }
    }

    @Test func aUserDeletedThroughOneServesAdminAPIIsRefusedByTheOther() async throws {
        try await Self.withCluster { nodes, http in
            let login = try await Self.loginAnonymously(nodes[0], http: http)
            for node in nodes { #expect(try await Self.profile(node, login.access, http: http) == 200) }
            let deleted = try await http.delete(
                url: "\(nodes[0].root)/admin/v1/users/\(login.userId)",
                headers: ["Authorization": "Bearer \(nodes[0].admin.token)"])
            #expect(deleted.status == 200, "\(deleted.text)")
            let refused = try await Self.eventually {
                try await Self.profile(nodes[1], login.access, http: http) == 401 ? true : nil
            }
            #expect(refused == true, "the other node still takes the access token of a deleted user")
            #expect(try await Self.refresh(nodes[1], login.refresh, http: http) == 401)
        }
    }

    /// Starts two nodes on a new database, runs `body` with them, stops them and drops the database.
    private static func withCluster(_ body: ([Node], HTTPClient) async throws -> Void) async throws {
        let postgres = try await offPool { try PostgreSQLServer.shared() }
        let database = "cluster_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = try await offPool { try postgres.database(database) }
        defer { postgres.dropDatabase(database) }
        let http = try HTTPClient()
        var nodes: [Node] = []
        let directories = [try TemporaryDirectory(), try TemporaryDirectory()]
        defer { for node in nodes { node.server.kill() } }
        for directory in directories {
            let port = closedLoopbackPort()
            let root = "http://127.0.0.1:\(port)"
            let server = try ServerProcess(repositoryRoot.path, data: directory.path, port: port, store: url)
            nodes.append(
                Node(
                    server: server, root: root,
                    admin: try await admin(server, http: http, root: root, data: directory.path)))
        }
        try await body(nodes, http)
    }

    /// A new anonymous user logged in through `node`'s client API: their tokens and id.
    private static func loginAnonymously(_ node: Node, http: HTTPClient) async throws
        -> (access: String, refresh: String, userId: String)
    {
        let response = try await http.post(
            url: "\(node.clientAPI)/app/switchyard-app/auth/providers/anon-user/login", body: Array("{}".utf8),
            headers: ["Content-Type": "application/json"])
        let session = try #require(response.json?.documentValue, "\(response.status) \(response.text)")
        return (
            try #require(session["access_token"]?.stringValue), try #require(session["refresh_token"]?.stringValue),
            try #require(session["user_id"]?.stringValue)
        )
    }

    /// The status of `GET /auth/profile` with `access` on `node`.
    private static func profile(_ node: Node, _ access: String, http: HTTPClient) async throws -> Int {
        try await http.get(url: "\(node.clientAPI)/auth/profile", headers: ["Authorization": "Bearer \(access)"]).status
    }

    /// The status of a new access token's request (`POST /auth/session`) with `refresh` on `node`.
    private static func refresh(_ node: Node, _ refresh: String, http: HTTPClient) async throws -> Int {
        try await http.post(
            url: "\(node.clientAPI)/auth/session", body: [], headers: ["Authorization": "Bearer \(refresh)"]
        ).status
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
