import DocumentStore
import Foundation
import Switchyard
import TestSupport
import Testing

/// `store:` in `triggers.yaml`: where the app's data lives, without a password in the file.
@Suite struct AppDefinitionStoreTests {
    func definition(_ store: String) throws -> AppDefinition {
        try AppDefinition.parse("appId: books\nstore: \(store)\n")
    }

    func errors(_ store: String) -> [String] {
        do {
            _ = try definition(store)
            return []
        } catch {
            return "\(error)".split(separator: "\n").map(String.init)
        }
    }

    @Test func aURLWithoutAPasswordOrASecretNamesAPostgreSQLDatabase() throws {
        #expect(
            try definition("postgresql://app@db.example:5432/books").store
                == .postgresql(url: "postgresql://app@db.example:5432/books"))
        #expect(try definition("{secret: storeURL}").store == .secret(name: "storeURL"))
        #expect(try definition("sqlite").store == nil)
        #expect(try AppDefinition.parse("appId: books\n").store == nil)
    }

    @Test func aPasswordInTheFileIsRefusedWithoutPrintingIt() {
        let inUser = errors("postgresql://app:hunter2@db.example/books")
        #expect(inUser.count == 1)
        #expect(
            inUser.first?.hasPrefix(
                "triggers.yaml:2:8: 'store' holds a password (postgresql://app:***@db.example/books)") == true,
            "\(inUser)")
        #expect(inUser.first?.contains("store: {secret: NAME}") == true)
        let inQuery = errors("postgresql://db.example/books?user=app&password=hunter2")
        #expect(inQuery.first?.contains("holds a password") == true, "\(inQuery)")
        #expect(!(inUser + inQuery).joined().contains("hunter2"))
    }

    @Test func anythingElseSaysWhatAStoreIs() {
        #expect(
            errors("mysql://app:hunter2@db/books") == [
                "triggers.yaml:2:8: 'store' is sqlite, a postgresql:// URL or {secret: NAME}, not 'mysql://app:***@db/books'"
            ])
        #expect(
            errors("{secrte: storeURL}").first == "triggers.yaml:2:9: unknown key 'secrte' (did you mean 'secret'?)")
        #expect(errors("{}").first?.contains("'store' as a mapping names the secret holding its URL") == true)
    }

    @Test func theSecretHoldsTheURLAndLoadingResolvesIt() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "appId: books\nstore: {secret: storeURL}\n")
        let url = "postgresql://app:hunter2@db.example:5432/books"
        let configuration = try AppConfiguration.load(
            directory: directory.path, variables: ["SWITCHYARD_SECRET_STOREURL": url])
        #expect(configuration.storeLocation == (try PostgreSQLLocation(url: url)))
        guard case .postgresql(let location) = configuration.store(dataDirectory: directory.path).engine else {
            Issue.record("not a PostgreSQL store")
            return
        }
        #expect("\(location)" == "postgresql://app:***@db.example:5432/books")
    }

    @Test func aMissingOrWrongSecretIsAConfigurationErrorWithoutItsValue() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "appId: books\nstore: {secret: storeURL}\n")
        let missing =
            "\(String(describing: Result { try AppConfiguration.load(directory: directory.path, variables: [:]) }))"
        #expect(missing.contains("'store': secret 'storeURL' is not set (set SWITCHYARD_SECRET_STOREURL"), "\(missing)")
        let wrong =
            "\(String(describing: Result { try AppConfiguration.load(directory: directory.path, variables: ["SWITCHYARD_SECRET_STOREURL": "mysql://app:hunter2@db/books"]) }))"
        #expect(wrong.contains("'store': secret 'storeURL' holds no PostgreSQL URL"), "\(wrong)")
        #expect(!wrong.contains("hunter2"))
    }

    @Test func withoutAStoreTheDataDirectoryHoldsSQLite() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "appId: books\n")
        let configuration = try AppConfiguration.load(directory: directory.path, variables: [:])
        guard case .sqlite(let path, _) = configuration.store(dataDirectory: directory.path + "/data").engine else {
            Issue.record("not SQLite")
            return
        }
        #expect(path == directory.path + "/data")
    }

    @Test func theWrittenConfigurationReadsBackTheStore() throws {
        for store in [StoreDeclaration.postgresql(url: "postgresql://app@db/books"), .secret(name: "storeURL")] {
            var written = AppDefinition(appId: "books")
            written.store = store
            #expect(try AppDefinition.parse(written.yamlText()).store == store)
        }
    }
}
