import Switchyard
import Testing

@Suite struct YAMLParserTests {
    @Test func keepsOrderPositionsAndQuotedScalars() throws {
        let node = try YAMLParser.parse(
            """
            triggers:
              - name: sendBooksTopic
                operations: [INSERT, "DELETE"]
                disabled: "true"
            """, file: "triggers.yaml")
        let trigger = try #require(
            node["triggers"].flatMap {
                if case .sequence(let items) = $0.value { return items.first }
                return nil
            })
        #expect(trigger["name"]?.scalar == "sendBooksTopic")
        #expect(trigger["name"]?.location == SourceLocation(line: 2, column: 11))
        #expect(trigger["disabled"]?.value == .scalar("true", isPlain: false))
        guard case .sequence(let operations) = trigger["operations"]?.value else {
            Issue.record("operations is not a sequence")
            return
        }
        #expect(operations.map(\.scalar) == ["INSERT", "DELETE"])
        #expect(operations[1].location == SourceLocation(line: 3, column: 26))
    }

    @Test func resolvesAliases() throws {
        let node = try YAMLParser.parse("base: &r {maxAttempts: 3}\nother: *r\n", file: "t.yaml")
        #expect(node["other"] == node["base"])
    }

    @Test func reportsSyntaxErrorsWithLineAndColumn() {
        #expect(throws: ConfigurationError.self) { try YAMLParser.parse("a: [1, 2\nb: 3\n", file: "t.yaml") }
        do {
            _ = try YAMLParser.parse("triggers:\n  - name: a\n   bad: indent\n", file: "triggers.yaml")
            Issue.record("bad indentation was accepted")
        } catch {
            #expect(error.file == "triggers.yaml")
            #expect(error.location?.line == 3)
            #expect(error.description.hasPrefix("triggers.yaml:3:"))
        }
    }

    @Test func rejectsDuplicateKeysAndUnknownAliases() {
        do {
            _ = try YAMLParser.parse("name: a\nname: b\n", file: "t.yaml")
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.description == "t.yaml:2:1: duplicate key 'name'")
        }
        #expect(throws: ConfigurationError.self) { try YAMLParser.parse("a: *nope\n", file: "t.yaml") }
    }

    @Test func emptyFileIsAnEmptyMappingAndDeepNestingIsAnError() throws {
        #expect(try YAMLParser.parse("", file: "t.yaml").value == .mapping([]))
        let deep = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        #expect(throws: ConfigurationError.self) { try YAMLParser.parse(deep, file: "t.yaml") }
    }
}
