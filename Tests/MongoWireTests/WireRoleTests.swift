import BSON
import Testing

@testable import MongoWire

/// Built-in roles as `switchyard users add --roles` reads them, and what each lets a command do.
@Suite struct WireRoleTests {
    @Test func rolesAreReadOnOneDatabaseOrOnEvery() {
        #expect(WireRole("readWrite@product") == WireRole(name: .readWrite, database: "product"))
        #expect(WireRole("readAnyDatabase") == WireRole(name: .readAnyDatabase, database: "admin"))
        #expect(WireRole("root@admin") == .root)
        #expect(WireRole("readWrite@product")?.description == "readWrite@product")
        #expect(WireRole("root")?.description == "root")
        for bad in ["readWrite", "readWrite@", "root@product", "owner@product", "", "@product"] {
            #expect(WireRole(bad) == nil, "\(bad)")
        }
    }

    /// Whether a user holding `roles` may run `command` on `database`.
    private func allowed(_ roles: [String], _ command: BSONDocument, on database: String = "product") -> Bool {
        let held = roles.compactMap(WireRole.init)
        let needs = WireAuthorization.needs(CommandArguments(command), database: database) ?? []
        return needs.allSatisfy { action, target in held.contains { $0.allows(action, on: target) } }
    }

    @Test func eachRoleAllowsWhatMongoDBsDoes() {
        let find: BSONDocument = ["find": "book"]
        let insert: BSONDocument = ["insert": "book"]
        let createIndexes: BSONDocument = ["createIndexes": "book"]
        let listCollections: BSONDocument = ["listCollections": 1]
        #expect(allowed(["read@product"], find))
        #expect(allowed(["read@product"], listCollections))
        #expect(!allowed(["read@product"], insert))
        #expect(!allowed(["read@product"], find, on: "other"))
        #expect(allowed(["readWrite@product"], insert))
        #expect(!allowed(["readWrite@product"], createIndexes))
        #expect(allowed(["dbAdmin@product"], createIndexes))
        #expect(!allowed(["dbAdmin@product"], find))
        #expect(allowed(["dbOwner@product"], find) && allowed(["dbOwner@product"], createIndexes))
        #expect(allowed(["readAnyDatabase"], find, on: "other") && !allowed(["readAnyDatabase"], insert))
        #expect(allowed(["readWriteAnyDatabase"], insert, on: "other"))
        #expect(!allowed(["readWriteAnyDatabase"], ["serverStatus": 1], on: "admin"))
        #expect(allowed(["root"], ["serverStatus": 1], on: "admin"))
        #expect(allowed([], ["hello": 1]) && allowed([], ["endSessions": []]) && allowed([], ["listDatabases": 1]))
    }

    @Test func commandsNeedWhatTheyTouch() {
        // An explained command needs what it would.
        #expect(!allowed(["read@product"], ["explain": ["insert": "book"]]))
        #expect(allowed(["read@product"], ["explain": ["find": "book"]]))
        // $out and $merge write where they write.
        let outElsewhere: BSONDocument = [
            "aggregate": "book", "pipeline": [["$out": ["db": "scratch", "coll": "copy"]]],
        ]
        #expect(allowed(["read@product", "readWrite@scratch"], outElsewhere))
        #expect(!allowed(["read@product"], outElsewhere))
        #expect(!allowed(["read@product"], ["aggregate": "book", "pipeline": [["$merge": ["into": "copy"]]]]))
        // A change stream over every database needs a role on every database.
        let cluster: BSONDocument = [
            "aggregate": 1, "pipeline": [["$changeStream": ["allChangesForCluster": true]]],
        ]
        #expect(!allowed(["read@admin"], cluster, on: "admin"))
        #expect(allowed(["readAnyDatabase"], cluster, on: "admin"))
        // A rename needs the catalog of both databases.
        let rename: BSONDocument = ["renameCollection": "product.book", "to": "archive.book"]
        #expect(!allowed(["dbAdmin@product"], rename, on: "admin"))
        #expect(allowed(["dbAdmin@product", "dbAdmin@archive"], rename, on: "admin"))
    }
}
