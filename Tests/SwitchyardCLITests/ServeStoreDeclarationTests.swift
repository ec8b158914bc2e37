import BSON
import DocumentStore
import Foundation
import Messaging
import TestSupport
import Testing

/// The example app whose `triggers.yaml` says `store: {secret: storeURL}`: `serve` keeps its data in that
/// PostgreSQL database without `--store`, the URL given as a secret in the environment.
@Suite(.timeLimit(.minutes(2))) struct ServeStoreDeclarationTests {
    @Test func serveKeepsTheDataWhereTriggersYAMLSays() async throws {
        let postgres = try await offPool { try PostgreSQLServer.shared() }
        let database = "declared_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = try await offPool { try postgres.database(database) }
        defer { postgres.dropDatabase(database) }
        let app = try TemporaryDirectory()
        let files = FileManager.default
        for name in ["values.json", "data_sources"] {
            try files.copyItem(atPath: repositoryRoot.appendingPathComponent(name).path, toPath: "\(app.path)/\(name)")
        }
        let triggers = try String(contentsOf: repositoryRoot.appendingPathComponent("triggers.yaml"), encoding: .utf8)
        try (triggers + "\nstore: {secret: storeURL}\n").write(
            toFile: "\(app.path)/triggers.yaml", atomically: true, encoding: .utf8)

        let data = try TemporaryDirectory()
        let port = closedLoopbackPort()
        let root = "http://127.0.0.1:\(port)"
        let http = try HTTPClient()
        let server = try ServerProcess(
            app.path, data: data.path, port: port, environment: ["SWITCHYARD_SECRET_STOREURL": url])
        defer { server.kill() }
        try await server.awaitServing(http, base: "\(root)/api/client/v2.0/app/switchyard-app")
        let admin = try await AdminDataSession(http: http, root: root, dataDirectory: data.path)
        let book = ObjectId()
        let added = try await admin.insert(
            "book", #"{"_id":{"$oid":"\#(book.hex)"},"_partition":"PUBLIC","volumeInfo":{"title":"Dune"}}"#)
        #expect(added.status == 201, "\(added.text)")

        let store = try await DocumentStore.open(.postgresql(url: url))
        let stored = try await store.database("product").collection("book").findOne(["_id": .objectId(book)])
        await store.close()
        #expect(stored?["volumeInfo"]?.documentValue?["title"] == "Dune")
        #expect(!files.fileExists(atPath: "\(data.path)/store.sqlite"))
    }
}
