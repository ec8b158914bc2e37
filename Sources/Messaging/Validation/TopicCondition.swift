/// A parsed FCM topic condition such as `"'books' in topics && ('en' in topics || !('muted' in topics))"`.
///
/// Grammar (whitespace between tokens is free; `&&` binds tighter than `||`, as in FCM):
/// ```
/// or      := and ("||" and)*
/// and     := unary ("&&" unary)*
/// unary   := "!" unary | "(" or ")" | 'topic' "in" "topics"
/// ```
/// Topic names are quoted with `'` or `"` and must be valid topic names; a condition names at most
/// `maximumTopics` topics.
package indirect enum TopicCondition: Sendable, Equatable {
    case topic(String)
    case not(TopicCondition)
    case and(TopicCondition, TopicCondition)
    case or(TopicCondition, TopicCondition)

    /// FCM's limit on topics in one condition.
    package static let maximumTopics = 5
    /// Parentheses and `!` nested deeper than this are refused, so parsing never recurses without bound.
    package static let maximumDepth = 16

    /// Parses a condition; errors are `invalidArgument` and say at which character (1-based) and why.
    package init(parsing text: String, path: String = "message.condition") throws(PushError) {
        var parser = Parser(characters: Array(text), path: path)
        let condition = try parser.parseOr(depth: 0)
        parser.skipSpaces()
        if parser.position < parser.characters.count {
            throw parser.error("expected '&&', '||' or the end of the condition")
        }
        guard parser.topicCount <= Self.maximumTopics else {
            throw PushError(
                code: .invalidArgument,
                message:
                    "Invalid condition at '\(path)': it names \(parser.topicCount) topics, at most \(Self.maximumTopics) are allowed",
                field: path)
        }
        self = condition
    }

    /// The topics named, in order of appearance.
    package var topics: [String] {
        switch self {
        case .topic(let name): [name]
        case .not(let inner): inner.topics
        case .and(let lhs, let rhs), .or(let lhs, let rhs): lhs.topics + rhs.topics
        }
    }

    /// Whether a device subscribed to `subscriptions` receives the message.
    package func matches(subscriptions: Set<String>) -> Bool {
        switch self {
        case .topic(let name): subscriptions.contains(name)
        case .not(let inner): !inner.matches(subscriptions: subscriptions)
        case .and(let lhs, let rhs):
            lhs.matches(subscriptions: subscriptions) && rhs.matches(subscriptions: subscriptions)
        case .or(let lhs, let rhs):
            lhs.matches(subscriptions: subscriptions) || rhs.matches(subscriptions: subscriptions)
        }
    }

    private struct Parser {
        let characters: [Character]
        let path: String
        var position = 0
        var topicCount = 0

        init(characters: [Character], path: String) {
            self.characters = characters
            self.path = path
        }

        mutating func parseOr(depth: Int) throws(PushError) -> TopicCondition {
            var result = try parseAnd(depth: depth)
            while consume("||") { result = .or(result, try parseAnd(depth: depth)) }
            return result
        }

        mutating func parseAnd(depth: Int) throws(PushError) -> TopicCondition {
            var result = try parseUnary(depth: depth)
            while consume("&&") { result = .and(result, try parseUnary(depth: depth)) }
            return result
        }

        mutating func parseUnary(depth: Int) throws(PushError) -> TopicCondition {
            guard depth < TopicCondition.maximumDepth else {
                throw error("nested deeper than \(TopicCondition.maximumDepth) levels")
            }
            skipSpaces()
            guard position < characters.count else { throw error("expected a topic term, '(' or '!'") }
            switch characters[position] {
            case "!":
                position += 1
                return .not(try parseUnary(depth: depth + 1))
            case "(":
                position += 1
                let inner = try parseOr(depth: depth + 1)
                guard consume(")") else { throw error("expected ')'") }
                return inner
            case "'", "\"":
                return try parseTerm()
            default:
                throw error("expected a quoted topic name, '(' or '!'")
            }
        }

        /// `'name' in topics`
        mutating func parseTerm() throws(PushError) -> TopicCondition {
            let quote = characters[position]
            let start = position
            position += 1
            var name = ""
            while position < characters.count, characters[position] != quote {
                name.append(characters[position])
                position += 1
            }
            guard position < characters.count else {
                position = start
                throw error("unterminated topic name")
            }
            guard TopicName.isValid(name) else {
                position = start
                throw error("invalid topic name '\(name)' (allowed: letters, digits and - _ . ~ %)")
            }
            position += 1
            guard consumeWord("in") else { throw error("expected 'in' after the topic name") }
            guard consumeWord("topics") else { throw error("expected 'topics' after 'in'") }
            topicCount += 1
            return .topic(name)
        }

        mutating func skipSpaces() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        mutating func consume(_ token: String) -> Bool {
            skipSpaces()
            let end = position + token.count
            guard end <= characters.count, String(characters[position..<end]) == token else { return false }
            position = end
            return true
        }

        /// A keyword that must not run on into a name (`intopics` is not `in topics`).
        mutating func consumeWord(_ word: String) -> Bool {
            skipSpaces()
            let saved = position
            guard consume(word) else { return false }
            if position < characters.count, characters[position].isLetter || characters[position].isNumber {
                position = saved
                return false
            }
            return true
        }

        func error(_ reason: String) -> PushError {
            PushError(
                code: .invalidArgument,
                message: "Invalid condition at '\(path)', character \(position + 1): \(reason)", field: path)
        }
    }
}
