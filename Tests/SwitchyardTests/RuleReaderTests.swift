import BSON
import DocumentStore
import Foundation
import TestSupport
import Testing

@testable import Switchyard

/// Data access rules read from App Services' `data_sources/` files and from `triggers.yaml`'s `rules:` section,
/// with every problem reported where it is written.
@Suite struct RuleReaderTests {
    let triggers = "appId: books\n"

    func errorLines(_ body: () throws -> Void) -> [String] {
        do {
            try body()
            return []
        } catch {
            return "\(error)".split(separator: "\n").map(String.init)
        }
    }

    @Test func readsRulesSchemasAndTheDefaultRuleInAppServicesLayout() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        try directory.write(
            "data_sources/mongodb-atlas/product/book/rules.json",
            """
            {
              "collection": "book",
              "database": "product",
              "roles": [
                {
                  "name": "owner",
                  "apply_when": {"%%user.custom_data.isAdmin": {"%exists": true}},
                  "document_filters": {"read": {"owner": "%%user.id"}, "write": {"owner": "%%user.id"}},
                  "read": true,
                  "write": {"%or": [{"locked": false}, {"%%user.data.email": "boss@example.com"}]},
                  "insert": true,
                  "delete": false,
                  "search": true,
                  "fields": {"price": {"read": true, "write": false, "fields": {}}},
                  "additional_fields": {"read": true, "write": false}
                }
              ],
              "filters": []
            }
            """)
        try directory.write(
            "data_sources/mongodb-atlas/product/book/schema.json",
            #"{"title": "book", "bsonType": "object", "required": ["title"], "properties": {"title": {"bsonType": "string"}}}"#
        )
        try directory.write(
            "data_sources/mongodb-atlas/default_rule.json",
            #"{"roles": [{"name": "readAll", "apply_when": {}, "read": true}]}"#)
        let rules = try AppConfiguration.load(directory: directory.path, variables: [:]).definition.rules
        let book = Namespace(database: "product", collection: "book")
        let role = try #require(rules.collections[book]?.roles.first)
        #expect(role.name == "owner")
        #expect(role.applyWhen == ["%%user.custom_data.isAdmin": ["$exists": true]])
        #expect(role.readFilter == ["owner": "%%user.id"])
        #expect(role.write == .condition(["$or": [["locked": false], ["%%user.data.email": "boss@example.com"]]]))
        #expect(role.insert == .always(true) && role.delete == .always(false) && role.search == .always(true))
        #expect(role.fields["price"] == FieldRule(read: .always(true), write: .always(false)))
        #expect(role.additionalFields == FieldRule(read: .always(true), write: .always(false)))
        #expect(rules.schemas[book]?.required == ["title"])
        #expect(rules.defaultRule?.roles.map(\.name) == ["readAll"])
        #expect(rules.rules(for: Namespace(database: "product", collection: "other"))?.roles.first?.name == "readAll")
        #expect(rules.readsCustomUserData)
    }

    @Test func readsTheSameRulesFromTriggersYAML() throws {
        let definition = try AppDefinition.parse(
            """
            rules:
              default:
                roles:
                  - name: nobody
                    apply_when: {"%%true": false}
              collections:
                - database: product
                  collection: user
                  roles:
                    - name: self
                      apply_when: {}
                      document_filters:
                        read: {_id: "%%user.id"}
                        write: {_id: "%%user.id"}
                      read: true
                      write: true
                  schema:
                    bsonType: object
                    properties:
                      age: {bsonType: int, minimum: 0}
            """)
        let user = Namespace(database: "product", collection: "user")
        #expect(definition.rules.collections[user]?.roles.first?.writeFilter == ["_id": "%%user.id"])
        #expect(
            definition.rules.schemas[user]?.properties["age"]?.minimum
                == DocumentSchema.Bound(value: 0, exclusive: false))
        #expect(definition.rules.defaultRule?.roles.first?.name == "nobody")
        #expect(!definition.rules.readsCustomUserData)
    }

    @Test func reportsProblemsInRulesJSONWhereTheyAreWritten() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        try directory.write(
            "data_sources/mongodb-atlas/product/book/rules.json",
            """
            {
              "database": "product",
              "collection": "book",
              "roles": [
                {
                  "name": "r",
                  "apply_whn": {},
                  "read": "yes",
                  "write": {"%orr": []},
                  "insert": {"owner": "%%usr.id"},
                  "delete": {"%function": {"name": "isOwner"}}
                }
              ]
            }
            """)
        try directory.write("data_sources/mongodb-atlas/product/book/schema.json", #"{"bsonType": "strng"}"#)
        let lines = errorLines { _ = try AppConfiguration.load(directory: directory.path, variables: [:]) }
        let rules = "\(directory.path)/data_sources/mongodb-atlas/product/book/rules.json"
        let schema = "\(directory.path)/data_sources/mongodb-atlas/product/book/schema.json"
        #expect(lines.contains("\(rules):7:7: unknown key 'apply_whn' (did you mean 'apply_when'?)"))
        #expect(lines.contains("\(rules):8:15: 'read' (true, false or an expression) must be true or false"))
        #expect(lines.contains("\(rules):9:17: unknown operator '%orr' (did you mean '%or'?)"))
        #expect(lines.contains("\(rules):10:27: unknown expansion '%%usr' (did you mean '%%user'?)"))
        #expect(lines.contains { $0.hasPrefix("\(rules):11:18: '%function' is not supported") })
        #expect(lines.contains("\(schema):1:14: unknown bsonType 'strng' (did you mean 'string'?)"))
    }

    @Test func reportsProblemsInTheYAMLRulesWithTheirLines() {
        let lines = errorLines {
            _ = try AppDefinition.parse(
                """
                rules:
                  collections:
                    - database: product
                      collection: book
                      role: []
                    - database: product
                      roles:
                        - name: a
                          read: true
                        - name: a
                          delete: maybe
                  defaults: {}
                """)
        }
        #expect(lines.contains("triggers.yaml:5:7: unknown key 'role' (did you mean 'roles'?)"))
        #expect(lines.contains("triggers.yaml:6:7: missing required key 'collection' in a rule"))
        #expect(lines.contains("triggers.yaml:10:11: duplicate role name 'a'"))
        #expect(lines.contains("triggers.yaml:11:19: 'delete' (true, false or an expression) must be true or false"))
        #expect(lines.contains("triggers.yaml:12:3: unknown key 'defaults' (did you mean 'default'?)"))
    }

    @Test func aRuleWhoseDirectoryNamesAnotherCollectionIsRefused() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", triggers)
        try directory.write(
            "data_sources/mongodb-atlas/product/book/rules.json",
            #"{"database": "product", "collection": "user", "roles": []}"#)
        let lines = errorLines { _ = try AppConfiguration.load(directory: directory.path, variables: [:]) }
        #expect(lines.contains { $0.contains("this rule names product.user but its directory is product/book") })
    }

    @Test func rulesGivenBothInDataSourcesAndTriggersYAMLAreRefused() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "triggers.yaml",
            """
            rules:
              collections:
                - {database: product, collection: book, roles: [{name: all, read: true}]}
            """)
        try directory.write(
            "data_sources/mongodb-atlas/product/book/rules.json",
            #"{"database": "product", "collection": "book", "roles": []}"#)
        let lines = errorLines { _ = try AppConfiguration.load(directory: directory.path, variables: [:]) }
        #expect(lines.contains { $0.contains("rules for product.book are given both here and in data_sources/") })
    }
}
