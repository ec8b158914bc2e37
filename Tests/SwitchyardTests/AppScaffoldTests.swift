import BSON
import DocumentStore
import Testing

@testable import Switchyard

@Suite struct AppScaffoldTests {
    @Test func theAppIsNamedAfterItsDirectoryWithoutRepeatingSwitchyardsTargets() {
        let names = [
            "book-shop": "BookShop", "my_app": "MyApp", "/tmp/x/orders.v2": "OrdersV2", "2024 app": "App2024App",
            "---": "App", "switchyard": "SwitchyardApp", "functions": "FunctionsApp", "bson": "BsonApp",
            "document-store": "DocumentStoreApp", "naïve": "NaVe",
        ]
        for (directory, name) in names {
            #expect(AppScaffold(directory: directory, dependency: .path("/s")).name == name, "\(directory)")
        }
    }

    @Test func thePackageIsNamedAsSwiftPMIdentifiesIt() {
        #expect(AppScaffold.Dependency.path("/home/me/src/Switchyard").packageIdentity == "switchyard")
        #expect(AppScaffold.Dependency.path("/work/wt/data/").packageIdentity == "data")
        #expect(
            AppScaffold.Dependency.url("https://git.example/team/Switchyard.git", .from("1.0.0")).packageIdentity
                == "switchyard")
    }

    @Test func pathsAreQuotedAsSwiftStrings() {
        let scaffold = AppScaffold(directory: "app", dependency: .path("/odd \"dir\"\\here"))
        #expect(scaffold.packageManifest.contains(#".package(path: "/odd \"dir\"\\here")"#))
    }

    @Test func theScaffoldsDefaultRuleLetsUsersWriteOnlyWhatTheyOwn() async throws {
        let rules = try AppDefinition.parse(AppScaffold.triggers).rules
        let store = try await DocumentStore.open(.memory)
        let items = store.database("app", access: UserDataAccess(rules: rules, user: FunctionUser(id: "ann")))
            .collection("items")
        #expect(try await items.insertOne(["owner_id": "ann", "name": "lamp"]).insertedId != .null)
        await #expect(throws: StoreError.self) { try await items.insertOne(["owner_id": "ben", "name": "desk"]) }
        #expect(try await items.countDocuments() == 1)
        await store.close()
    }
}
