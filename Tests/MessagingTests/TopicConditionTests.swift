import Messaging
import Testing

@Suite struct TopicConditionTests {
    @Test func parsesPrecedenceParenthesesAndNegation() throws {
        let condition = try TopicCondition(
            parsing: #"'a' in topics || 'b' in topics && !("c" in topics)"#)
        #expect(condition == .or(.topic("a"), .and(.topic("b"), .not(.topic("c")))))
        #expect(condition.topics == ["a", "b", "c"])
        #expect(condition.matches(subscriptions: ["a"]))
        #expect(condition.matches(subscriptions: ["b"]))
        #expect(!condition.matches(subscriptions: ["b", "c"]))
        #expect(!condition.matches(subscriptions: []))

        let grouped = try TopicCondition(parsing: "('a' in topics||'b' in topics)&&'c' in topics")
        #expect(grouped == .and(.or(.topic("a"), .topic("b")), .topic("c")))
    }

    @Test func fiveTopicsAreTheLimit() throws {
        let five = (1...5).map { "'t\($0)' in topics" }.joined(separator: " || ")
        #expect(try TopicCondition(parsing: five).topics.count == 5)
        #expect(
            throws: PushError(
                code: .invalidArgument,
                message: "Invalid condition at 'message.condition': it names 6 topics, at most 5 are allowed",
                field: "message.condition")
        ) {
            try TopicCondition(parsing: five + " || 't6' in topics")
        }
    }

    @Test(arguments: [
        ("", "character 1: expected a topic term, '(' or '!'"),
        ("'a' in topics &&", "character 17: expected a topic term, '(' or '!'"),
        ("'a' in topics & 'b' in topics", "character 15: expected '&&', '||' or the end of the condition"),
        ("('a' in topics", "character 15: expected ')'"),
        ("'a' in topic", "character 8: expected 'topics' after 'in'"),
        ("'a' topics", "character 5: expected 'in' after the topic name"),
        ("'a b' in topics", "character 1: invalid topic name 'a b' (allowed: letters, digits and - _ . ~ %)"),
        ("'abc in topics", "character 1: unterminated topic name"),
        ("a in topics", "character 1: expected a quoted topic name, '(' or '!'"),
        ("'a' intopics", "character 5: expected 'in' after the topic name"),
    ])
    func syntaxErrorsSayWhere(condition: String, expected: String) {
        #expect {
            try TopicCondition(parsing: condition)
        } throws: { error in
            (error as? PushError)?.message == "Invalid condition at 'message.condition', \(expected)"
        }
    }

    @Test func deepNestingIsRefusedNotRecursedInto() {
        let deep = String(repeating: "(", count: 10_000) + "'a' in topics" + String(repeating: ")", count: 10_000)
        #expect {
            try TopicCondition(parsing: deep)
        } throws: { error in
            (error as? PushError)?.message.contains("nested deeper than 16 levels") == true
        }
        let bangs = String(repeating: "!", count: 10_000) + "'a' in topics"
        #expect(throws: PushError.self) { try TopicCondition(parsing: bangs) }
    }
}
