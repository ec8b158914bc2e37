import DocumentStore
import Foundation
import Testing

/// pymongo against a wire server on a free port: Debian's 3.11 (which shakes hands with OP_QUERY) and PyPI's 4.x
/// (OP_MSG, zlib compression), each through the same scenarios.
@Suite(.timeLimit(.minutes(5))) struct PyMongoTests {
    static let scenarios = ["crud", "errors", "cursors", "change_stream", "transactions", "collmod", "pipeline_writes"]

    @Test(arguments: scenarios) func debianPyMongo(scenario: String) async throws {
        try await WireTestServer.with { server in
            try await PyMongo.run(PyMongo.debian, server.uri, scenario)
        }
    }

    @Test(arguments: scenarios) func pypiPyMongo(scenario: String) async throws {
        let python = try await PyMongo.pypi()
        try await WireTestServer.with { server in
            try await PyMongo.run(python, server.uri, scenario)
        }
    }

    /// A retryable write whose connection dropped before its answer, sent again with its lsid and txnNumber, is
    /// applied once.
    @Test func retriedWriteIsAppliedOnce() async throws {
        try await WireTestServer.with { server in
            try await PyMongo.run(PyMongo.debian, server.uri, "retry", String(server.port))
            let documents = try await server.store.database("wiretests").collection("retried").find().toArray()
            #expect(documents.map { $0["_id"] } == [.int32(1), .int32(2)])
        }
    }

    /// Bad frames are answered with errors or close their connection; the server goes on serving.
    @Test func malformedMessages() async throws {
        try await WireTestServer.with { server in
            try await PyMongo.run(PyMongo.debian, server.uri, "malformed", String(server.port))
            #expect(server.server.connectionCount <= 1)
        }
    }

    /// The transaction commands as a driver sends them, with MongoDB's errors for commits and aborts out of turn.
    @Test func transactionCommandsOnTheWire() async throws {
        try await WireTestServer.with { server in
            try await PyMongo.run(PyMongo.debian, server.uri, "transaction_commands", String(server.port))
            #expect(try await server.store.database("wiretests").collection("wired").countDocuments() == 3)
        }
    }

    /// A transaction never committed is aborted at the server's lifetime limit, freeing the writer for the write
    /// that waited behind it.
    @Test func transactionOutlivingItsLimitIsAborted() async throws {
        try await WireTestServer.with(transactionLifetime: .seconds(5)) { server in
            try await PyMongo.run(try await PyMongo.pypi(), server.uri, "transaction_expiry")
        }
    }

    /// `show_expanded_events` came with pymongo 4.2: PyPI's driver only.
    @Test func expandedEventsShowCollectionAndIndexCreation() async throws {
        try await WireTestServer.with { server in
            try await PyMongo.run(try await PyMongo.pypi(), server.uri, "expanded_events")
        }
    }

    @Test func resumingBeforeTheKeptHistoryFailsWithHistoryLost() async throws {
        try await WireTestServer.with(retention: ChangeLogRetention(maximumEvents: 5)) { server in
            try await PyMongo.run(try await PyMongo.pypi(), server.uri, "history_lost")
        }
    }
}
