import BSON
import Testing

@testable import Switchyard

/// A caller chooses its arguments, never the rule's operators: an expanded value is compared as a value.
@Suite struct CanEvaluateRuleTests {
    static func call(user: String, arguments: [BSON]) -> BSONDocument {
        CanEvaluateRule.callDocument(
            user: FunctionUser(id: user), request: [:], arguments: arguments, values: AppValues([]),
            environment: "")
    }

    static let injections: [BSON] = [
        ["$exists": true], ["$ne": "nobody"], ["$gt": ""], ["$regex": "."], ["$in": ["user-1", "user-2"]],
        .regex(BSONRegularExpression(pattern: ".*", options: "")),
    ]

    @Test(arguments: injections)
    func anArgumentComparedWithAFieldIsNeverAnOperator(_ injected: BSON) throws {
        let rule = CanEvaluateRule(rule: ["%%user.id": "%%args.0"])
        #expect(try rule.allows(Self.call(user: "user-1", arguments: ["user-1"])))
        #expect(try !rule.allows(Self.call(user: "user-1", arguments: [injected])))
    }

    @Test func anArgumentEqualToTheDocumentItNamesStillMatches() throws {
        let rule = CanEvaluateRule(rule: ["%%user.custom_data": "%%args.0"])
        var call = Self.call(user: "user-1", arguments: [["$exists": true]])
        call["%%user"] = ["id": "user-1", "custom_data": ["$exists": true]]
        #expect(try rule.allows(call))
    }

    @Test func aRegexArgumentInASetOperatorDeniesTheCall() throws {
        let rule = CanEvaluateRule(rule: ["%%user.id": ["$in": "%%args.0"]])
        let pattern = BSON.regex(BSONRegularExpression(pattern: ".*", options: ""))
        #expect(try rule.allows(Self.call(user: "user-1", arguments: [["user-1", "user-2"]])))
        #expect(try !rule.allows(Self.call(user: "user-1", arguments: [[pattern]])))
        #expect(try !rule.allows(Self.call(user: "user-1", arguments: [[.string("x"), pattern]])))
        let written = CanEvaluateRule(rule: ["%%user.id": ["$in": [pattern, "%%args.0"]]])
        #expect(try written.allows(Self.call(user: "user-1", arguments: ["other"])))
    }

    @Test func expansionsInsideLogicalOperatorsAreValuesToo() throws {
        let rule = CanEvaluateRule(rule: ["$or": [["%%user.id": "%%args.0"], ["%%user.id": "%%args.1"]]])
        #expect(try rule.allows(Self.call(user: "user-1", arguments: ["x", "user-1"])))
        #expect(try !rule.allows(Self.call(user: "user-1", arguments: [["$exists": true], ["$ne": 0]])))
    }
}
