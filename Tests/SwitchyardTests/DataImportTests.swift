import BSON
import DocumentStore
import Foundation
import Switchyard
import TestSupport
import Testing

/// Export and import through files, as `switchyard data export` / `data import` and `serve` use them.
@Suite struct DataImportTests {
    enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, sqlite
        var testDescription: String { rawValue }

        func open(in directory: TemporaryDirectory, _ name: String) async throws -> DocumentStore {
            switch self {
            case .memory: try await DocumentStore.open(.memory)
            case .sqlite: try await DocumentStore.open(.sqlite(directory: "\(directory.path)/\(name)"))
            }
        }
    }

    /// One field of every BSON type, with the distinctions a lossy format would blur.
    static let everyType: BSONDocument = [
        "_id": .objectId(ObjectId(hex: "650000000000000000000001")!),
        "double": .double(1.0), "negativeZero": .double(-0.0), "nan": .double(.nan), "infinity": .double(.infinity),
        "int32": .int32(1), "int64": .int64(1), "bigInt64": .int64(Int64.max),
        "decimal": .decimal128(Decimal128(negative: true, coefficient: 12345, exponent: -2)!),
        "decimalInfinity": .decimal128(.infinity),
        "string": "naïve \"quoted\"\n\u{0}tab\t✓",
        "binaryGeneric": .binary(BSONBinary(subtype: 0, data: [0, 1, 2, 255])),
        "binaryFunction": .binary(BSONBinary(subtype: 1, data: [7])),
        "binaryUUID": .binary(BSONBinary(subtype: 4, data: Array(0..<16))),
        "binaryMD5": .binary(BSONBinary(subtype: 5, data: Array(repeating: 9, count: 16))),
        "binaryUser": .binary(BSONBinary(subtype: 0x80, data: [])),
        "date": .datetime(BSONDate(millisecondsSinceEpoch: 1_700_000_000_123)),
        "dateBefore1970": .datetime(BSONDate(millisecondsSinceEpoch: -86_400_000)),
        "dateFarFuture": .datetime(BSONDate(millisecondsSinceEpoch: 253_402_300_800_000)),
        "regex": .regex(BSONRegularExpression(pattern: "^a.*b$", options: "imx")),
        "timestamp": .timestamp(BSONTimestamp(time: 1_700_000_000, increment: 42)),
        "minKey": .minKey, "maxKey": .maxKey, "null": .null, "undefined": .undefined, "true": true, "false": false,
        "code": .javascript("function () { return 1; }"),
        "codeWithScope": .javascriptWithScope(BSONCodeWithScope(code: "x + y", scope: ["x": 1, "y": .int64(2)])),
        "symbol": .symbol("sym"),
        "dbPointer": .dbPointer(
            BSONDBPointer(namespace: "product.book", id: ObjectId(hex: "650000000000000000000002")!)),
        "array": [1, .int64(1), 1.0, "1", [.int32(2), ["deep": [.null]]], [:]],
        "document": ["nested": ["deeper": ["deepest": .decimal128(.negativeInfinity)]], "empty": [:]],
        "$dollarKey": "kept", "dotted.key": "kept",
    ]

    @Test(arguments: Engine.allCases) func everyBSONTypeSurvivesExportAndImport(engine: Engine) async throws {
        let directory = try TemporaryDirectory()
        let source = try await engine.open(in: directory, "source")
        let books = source.database("product").collection("book")
        let others: [BSONDocument] = [
            ["_id": .int32(2), "isbn": "2", "int32": .int32(2)], ["_id": .int64(3), "isbn": "3", "int64": .int64(3)],
            ["_id": "four", "isbn": "4"], ["_id": ["compound": 1], "isbn": "5", "v": .double(5)],
        ]
        try await books.insertMany([Self.everyType] + others)
        try await books.createIndex(["isbn": 1], unique: true)
        try await books.createIndex(["meta.pages": -1, "title": 1], name: "pagesThenTitle")
        try await source.database("product").createCollection("empty")
        try await source.database("other").collection("with.dots/and%slash").insertOne(["_id": 1])
        let exported = try await DataExport.export(store: source, to: "\(directory.path)/export")
        #expect(
            exported.map(\.namespace.description) == ["other.with.dots/and%slash", "product.book", "product.empty"])
        let original = try await books.find([:], options: FindOptions(sort: ["_id": 1])).toArray()
        await source.close()

        let target = try await engine.open(in: directory, "target")
        let summary = try await DataImport.import(from: "\(directory.path)/export", into: target)
        #expect(summary.documents == 6)
        let imported = try await target.database("product").collection("book").find(
            [:], options: FindOptions(sort: ["_id": 1])
        ).toArray()
        #expect(imported == original)
        #expect(try imported.map { try $0.bsonBytes } == original.map { try $0.bsonBytes })
        #expect(imported.contains(Self.everyType))
        let indexes = try await target.database("product").collection("book").listIndexes()
        #expect(
            indexes.map { $0["name"] } == ["_id_", "isbn_1", "pagesThenTitle"]
                && indexes[1]["unique"] == true && indexes[2]["key"] == ["meta.pages": -1, "title": 1])
        #expect(try await target.database("product").listCollectionNames().sorted() == ["book", "empty"])
        #expect(try await target.database("other").collection("with.dots/and%slash").countDocuments() == 1)
        await target.close()
    }

    @Test(arguments: Engine.allCases) func aCorruptFileLeavesEveryCollectionUntouched(engine: Engine) async throws {
        let directory = try TemporaryDirectory()
        let store = try await engine.open(in: directory, "store")
        let books = store.database("product").collection("book")
        let users = store.database("product").collection("user")
        try await books.insertOne(["_id": 1, "title": "Dune"])
        try await users.insertOne(["_id": "u1"])
        try directory.write("seed/product.book.json", "{\"_id\": 2}\n")
        try directory.write("seed/product.user.json", "{\"_id\": \"u2\"}\n\n{\"_id\": \"u3\", \"tags\": [1, 2,]}\n")
        await #expect(
            throws: DataImportError(
                file: "\(directory.path)/seed/product.user.json", line: 3, column: 29,
                message: "unexpected ']': expected a value")
        ) {
            try await DataImport.import(from: "\(directory.path)/seed", into: store)
        }
        #expect(try await books.find().toArray() == [["_id": 1, "title": "Dune"]])
        #expect(try await users.find().toArray() == [["_id": "u1"]])
        await store.close()
    }

    @Test(arguments: Engine.allCases, [false, true])
    func aRefusedDocumentNamesItsLineAndChangesNoCollection(engine: Engine, fireTriggers: Bool) async throws {
        let directory = try TemporaryDirectory()
        let store = try await engine.open(in: directory, "store")
        let books = store.database("product").collection("book")
        let users = store.database("product").collection("user")
        try await books.insertOne(["_id": 0, "title": "kept"])
        try await users.insertOne(["_id": "u1"])
        let stream = try await store.watch()
        try directory.write("seed/product.book.json", "{\"_id\": 1}\n")
        try directory.write(
            "seed/product.user.json", "{\"_id\": \"u2\"}\n{\"_id\": \"u3\"}\n\n{\"_id\": \"u2\", \"again\": true}\n")
        do {
            try await DataImport.import(
                from: "\(directory.path)/seed", into: store, options: DataImport.Options(logChanges: fireTriggers))
            Issue.record("a duplicate _id was imported")
        } catch {
            #expect(error.file == "\(directory.path)/seed/product.user.json")
            #expect(error.line == 4)
            #expect(error.message.hasPrefix("E11000 duplicate key error"))
        }
        #expect(try await books.find().toArray() == [["_id": 0, "title": "kept"]])
        #expect(try await users.find().toArray() == [["_id": "u1"]])
        // Nothing of the failed import reached the change log: the next event is the write after it.
        try await books.insertOne(["_id": 9])
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.documentKey == ["_id": 9])
        await store.close()
    }

    @Test(arguments: Engine.allCases) func anImportIsNotAChangeUnlessAsked(engine: Engine) async throws {
        let directory = try TemporaryDirectory()
        let store = try await engine.open(in: directory, "store")
        let books = store.database("product").collection("book")
        try await books.insertOne(["_id": 1])
        try directory.write("seed/product.book.json", "{\"_id\": 2}\n{\"_id\": 3}\n")
        let stream = try await store.watch()
        try await DataImport.import(from: "\(directory.path)/seed", into: store)
        try await books.insertOne(["_id": "after"])
        var iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next()?.documentKey == ["_id": "after"])

        try await DataImport.import(
            from: "\(directory.path)/seed", into: store, options: DataImport.Options(logChanges: true))
        var events: [String] = []
        for _ in 0..<5 {
            let event = try #require(try await iterator.next())
            events.append(
                "\(event.operationType.rawValue) \(event.documentKey?["_id"]?.extendedJSON(mode: .relaxed) ?? "")")
        }
        #expect(events == ["delete 2", "delete 3", "delete \"after\"", "insert 2", "insert 3"])
        await store.close()
    }

    @Test func filesOfOtherCollectionsAndInternalDatabasesAreLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        let store = try await DocumentStore.open(.memory)
        try await store.database("product").collection("book").insertOne(["_id": 1])
        try await store.database("local").collection("triggerState").insertOne(["_id": "t"])
        try await DataExport.export(store: store, to: directory.path)
        #expect(directory.read("local.triggerState.json") == nil)
        try await DataExport.export(
            store: store, to: directory.path, options: DataExport.Options(includeInternalDatabases: true))
        #expect(directory.read("local.triggerState.json") == "{\"_id\":\"t\"}\n")
        try directory.write("README.md", "seed data\n")
        try directory.write("notes.json", "{}")

        let target = try await DocumentStore.open(.memory)
        let summary = try await DataImport.import(from: directory.path, into: target)
        #expect(summary.collections.map(\.namespace.description) == ["product.book"])
        #expect(
            summary.skipped == [
                "\(directory.path)/local.triggerState.json: local is an internal database (include it to import it)",
                "\(directory.path)/notes.json: not named <database>.<collection>.json",
            ])
        #expect(try await target.database("local").listCollectionNames().isEmpty)

        // A later export without the internal database removes the file the earlier one wrote for it.
        try await store.database("product").collection("book").drop()
        try await store.database("product").collection("shelf").insertOne(["_id": 1])
        try await DataExport.export(store: store, to: directory.path)
        #expect(directory.read("product.book.json") == nil && directory.read("local.triggerState.json") == nil)
        #expect(directory.read("product.shelf.json") != nil && directory.read("README.md") == "seed data\n")
        await store.close()
        await target.close()
    }

    @Test func handWrittenSeedsNeedNoManifestAndMayBeArrays() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "product.book.json", "[\n  {\"_id\": 1, \"price\": {\"$numberDecimal\": \"9.99\"}},\n  {\"_id\": 2}\n]\n")
        try directory.write("product.user.json", "{\"_id\": \"u1\", \"age\": 30}\r\n")
        let store = try await DocumentStore.open(.memory)
        try await store.database("product").collection("book").createIndex(["title": 1])
        try await DataImport.import(from: directory.path, into: store)
        let books = store.database("product").collection("book")
        #expect(try await books.find().toArray().map { $0["_id"] } == [1, 2])
        #expect(
            try await books.findOne(["_id": 1])?["price"]
                == .decimal128(Decimal128(negative: false, coefficient: 999, exponent: -2)!))
        #expect(try await books.listIndexes().count == 1)
        #expect(try await store.database("product").collection("user").findOne() == ["_id": "u1", "age": .int32(30)])
        await store.close()
    }

    @Test func aManifestThatDoesNotMatchTheFilesChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        let store = try await DocumentStore.open(.memory)
        try directory.write("product.book.json", "{\"_id\": 1}\n")
        try directory.write("collections.json", "{\n\"product.book\": {\"indexes\": []},\n\"product.gone\": {}\n}\n")
        await #expect(
            throws: DataImportError(
                file: "\(directory.path)/collections.json",
                message: "lists product.gone, but there is no product.gone.json beside it")
        ) { try await DataImport.import(from: directory.path, into: store) }
        try directory.write("collections.json", "{\"product.book\": {\"indexes\": [{\"key\": {\"a\": \"up\"}}]}}")
        do {
            try await DataImport.import(from: directory.path, into: store)
            Issue.record("an invalid index was accepted")
        } catch {
            #expect(error.message.hasPrefix("product.book: index {\"key\":{\"a\":\"up\"}}: bad index key pattern"))
        }
        try directory.write("collections.json", "{\"product.book\": {\"indexes\": [}")
        await #expect(throws: DataImportError.self) { try await DataImport.import(from: directory.path, into: store) }
        #expect(try await store.listDatabaseNames().isEmpty)
        await store.close()
    }

    @Test func aMissingDirectoryIsNamed() async throws {
        let store = try await DocumentStore.open(.memory)
        await #expect(throws: DataImportError(file: "/nonexistent/seed", message: "no such directory")) {
            try await DataImport.import(from: "/nonexistent/seed/", into: store)
        }
        await store.close()
    }
}
