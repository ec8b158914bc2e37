import BSON
import Foundation
import Messaging
import TestSupport
import Testing

/// Three `switchyard serve` processes of the example app on one PostgreSQL database: the ordered database trigger
/// `onBookPushNotification` runs on the node holding its lease, and sends one topic message per added book, which the
/// outbox (`local.outbox`, in the shared store) records in delivery order. The holder fails mid-stream; another node
/// takes the trigger over from its saved token: every acknowledged book is delivered, in write order, and an event
/// is delivered twice only when the failover redelivered it.
///
/// `SWITCHYARD_SOAK_ROUNDS` sets how many times the holder is killed (3 by default; `make soak` runs 20).
@Suite(.timeLimit(.minutes(10))) struct ServeTriggerFailoverTests {
    static let trigger = "onBookPushNotification"
    static let rounds = ProcessInfo.processInfo.environment["SWITCHYARD_SOAK_ROUNDS"].flatMap(Int.init) ?? 3

    @Test func killingTheHolderMovesTheTriggerToAnotherNodeWithoutLosingAnEvent() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        var written: [String] = []
        for _ in 0..<Self.rounds {
            let holder = try await cluster.holder()
            for index in 0..<10 { written.append(try await cluster.addBook(through: index % 3)) }
            // The others go on writing while the holder dies with deliveries in flight.
            let survivors = (0..<3).filter { $0 != holder }
            let writer = Task { [written] in
                var added = written
                for index in 0..<20 { added.append(try await cluster.addBook(through: survivors[index % 2])) }
                return added
            }
            cluster.kill(holder)
            written = try await writer.value
            let next = try await cluster.holder()
            #expect(next != holder)
            try await cluster.restart(holder)
            try await Self.expectDelivered(written, failovers: Self.rounds, in: cluster)
        }
    }

    @Test func terminatingTheHoldersLeaseConnectionHandsTheTriggerOnWithoutLosingAnEvent() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        _ = try await cluster.holder()
        var written: [String] = []
        for index in 0..<10 { written.append(try await cluster.addBook(through: index % 3)) }
        let key = Self.leaseKey("trigger:\(Self.trigger)")
        let terminated = try await offPool {
            try cluster.postgres.rows(
                """
                SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND a.datname = '\(cluster.database)'
                AND a.application_name = 'switchyard-leases'
                AND l.classid = \(UInt32(truncatingIfNeeded: UInt64(bitPattern: key) >> 32))
                AND l.objid = \(UInt32(truncatingIfNeeded: UInt64(bitPattern: key)))
                """)
        }
        #expect(terminated == [["t"]])
        for index in 0..<10 { written.append(try await cluster.addBook(through: index % 3)) }
        // Some node holds the lease again (another one, or the same after connecting again).
        _ = try await cluster.holder()
        try await Self.expectDelivered(written, failovers: 1, in: cluster)
    }

    /// A node that does not hold the trigger refuses to suspend it and names the holder, which goes on running it:
    /// a suspension saved by a standby node would be overwritten by the holder's next save.
    @Test func aNodeThatDoesNotHoldTheTriggerRefusesToSuspendItAndNamesTheHolder() async throws {
        let cluster = try await Cluster.start()
        defer { cluster.stop() }
        let holder = try await cluster.holder()
        let other = (holder + 1) % 3
        let refused = try await cluster.post(
            "/triggers/\(Self.trigger)/suspend", through: other)
        #expect(refused.status == 409, "\(refused.text)")
        let error = try ExtendedJSON.parseDocument(refused.text)
        #expect(error["error_code"] == "TriggerHeldByAnotherNode")
        #expect(
            error["error"]?.stringValue == "trigger '\(Self.trigger)' runs on node n\(holder): suspend it there",
            "\(refused.text)")
        #expect(try await cluster.post("/triggers/\(Self.trigger)/resume", through: other).status == 409)
        // The holder still runs it, and delivers.
        #expect(try await cluster.holder() == holder)
        let book = try await cluster.addBook(through: other)
        try await Self.expectDelivered([book], failovers: 0, in: cluster)
    }

    /// Waits until every book in `written` was delivered, then checks the deliveries' order: each is the next book
    /// written, or a step back to redeliver what was in flight when the trigger changed hands (at most once per
    /// failover), never a step past an undelivered book.
    private static func expectDelivered(_ written: [String], failovers: Int, in cluster: Cluster) async throws {
        let deadline = Date().addingTimeInterval(60)
        var delivered: [String] = []
        while Date() < deadline {
            delivered = try await cluster.deliveredBooks()
            if Set(written).isSubset(of: delivered) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let missing = Set(written).subtracting(delivered)
        #expect(missing.isEmpty, "\(missing.count) of \(written.count) acknowledged books never delivered")
        let position = Dictionary(uniqueKeysWithValues: written.enumerated().map { ($1, $0) })
        var previous = -1
        var steppedBack = 0
        for book in delivered {
            guard let current = position[book] else {
                Issue.record("a delivery of a book never written: \(book)")
                continue
            }
            if current <= previous {
                steppedBack += 1
            } else {
                #expect(current == previous + 1, "delivered book \(current) after \(previous): \(delivered.count)")
            }
            previous = current
        }
        #expect(steppedBack <= failovers, "\(steppedBack) redelivery runs for \(failovers) failovers")
    }

    /// The advisory lock key of a lease name, as the store derives it (FNV-1a over its UTF-8 bytes).
    private static func leaseKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}

/// Three named nodes (`n0`, `n1`, `n2`) of the example app on a database of their own.
final class Cluster: @unchecked Sendable {
    // Unchecked: the nodes change only between the test's steps, never while a writer task reads them.
    struct Node {
        var server: ServerProcess
        var admin: AdminDataSession
        let directory: TemporaryDirectory
    }

    let postgres: PostgreSQLServer
    let database: String
    let url: String
    let http: HTTPClient
    private var nodes: [Node] = []

    private init(postgres: PostgreSQLServer, database: String, url: String) throws {
        self.postgres = postgres
        self.database = database
        self.url = url
        http = try HTTPClient()
    }

    static func start() async throws -> Cluster {
        let postgres = try await offPool { try PostgreSQLServer.shared() }
        let database = "failover_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = try await offPool { try postgres.database(database) }
        let cluster = try Cluster(postgres: postgres, database: database, url: url)
        for index in 0..<3 {
            let directory = try TemporaryDirectory()
            let (server, admin) = try await cluster.launch(index, directory: directory)
            cluster.nodes.append(Node(server: server, admin: admin, directory: directory))
        }
        return cluster
    }

    private func launch(_ index: Int, directory: TemporaryDirectory) async throws -> (ServerProcess, AdminDataSession) {
        let port = closedLoopbackPort()
        let root = "http://127.0.0.1:\(port)"
        let server = try ServerProcess(
            repositoryRoot.path, data: directory.path, port: port, store: url,
            arguments: ["--node-name", "n\(index)", "--mongodb-port", "0"])
        try await server.awaitServing(http, base: "\(root)/api/client/v2.0/app/switchyard-app")
        return (server, try await AdminDataSession(http: http, root: root, dataDirectory: directory.path))
    }

    func kill(_ index: Int) { nodes[index].server.kill() }

    func restart(_ index: Int) async throws {
        let (server, admin) = try await launch(index, directory: nodes[index].directory)
        nodes[index].server = server
        nodes[index].admin = admin
    }

    func stop() {
        for node in nodes { node.server.kill() }
        postgres.dropDatabase(database)
    }

    /// Adds a book through node `index`'s admin API; its id once acknowledged.
    func addBook(through index: Int) async throws -> String {
        let book = ObjectId().hex
        let added = try await nodes[index].admin.insert(
            "book", #"{"_id":{"$oid":"\#(book)"},"_partition":"PUBLIC","volumeInfo":{"title":"\#(book)"}}"#)
        guard added.status == 201 else { throw NotAcknowledged(response: added.text) }
        return book
    }

    /// An admin API POST with an empty body to node `index`.
    func post(_ path: String, through index: Int) async throws -> HTTPResponse {
        let node = nodes[index]
        return try await http.post(
            url: node.admin.base + path, body: Array("{}".utf8),
            headers: ["Authorization": "Bearer \(node.admin.token)"])
    }

    struct NotAcknowledged: Error {
        let response: String
    }

    /// The node that runs the trigger: the one whose own status says so (the others show it as standby), asked
    /// every 50 ms for up to a minute (a deadline, not a measure).
    func holder() async throws -> Int {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            for (index, node) in nodes.enumerated() where node.server.process.isRunning {
                let response = try? await http.get(
                    url: "\(node.admin.base)/triggers/\(ServeTriggerFailoverTests.trigger)",
                    headers: ["Authorization": "Bearer \(node.admin.token)"])
                guard let response, response.status == 200,
                    let status = try? ExtendedJSON.parseDocument(response.text)
                else { continue }
                if status["state"]?.stringValue == "running", status["node"]?.stringValue == "n\(index)" {
                    return index
                }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw NoHolder()
    }

    struct NoHolder: Error {}

    /// The ids of the books the trigger's deliveries sent a message for, in the order the outbox recorded them.
    func deliveredBooks() async throws -> [String] {
        guard let node = nodes.first(where: { $0.server.process.isRunning }) else { return [] }
        let response = try await http.get(
            url: "\(node.admin.base)/outbox?limit=1000", headers: ["Authorization": "Bearer \(node.admin.token)"])
        let messages = try ExtendedJSON.parseDocument(response.text)["messages"]?.arrayValue ?? []
        return messages.compactMap { message in
            message.documentValue?["request"]?.documentValue?["message"]?.documentValue?["data"]?.documentValue?[
                "bookId"]?.stringValue
        }
    }
}
