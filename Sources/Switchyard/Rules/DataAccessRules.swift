import BSON
import DocumentStore

/// An app's data access rules and schemas, as App Services enforces them on requests made as a user: from
/// `data_sources/<service>/<database>/<collection>/rules.json` and `schema.json`,
/// `data_sources/<service>/default_rule.json`, and the `rules:` section of `triggers.yaml`.
///
/// A collection with rules of its own uses them; any other uses the default rule; with neither, App Services
/// refuses every request as a user ("no rule exists for namespace").
package struct DataAccessRules: Sendable, Equatable {
    var collections: [Namespace: CollectionRules] = [:]
    var defaultRule: CollectionRules?
    var schemas: [Namespace: DocumentSchema] = [:]

    package init() {}

    /// True when the app declares no rule at all: every client request to `mongodb-atlas` is refused.
    package var isEmpty: Bool { collections.isEmpty && defaultRule == nil }

    /// Whether any rule reads `%%user.custom_data`, so that requests read it as the store holds it now.
    package var readsCustomUserData: Bool {
        let all = Array(collections.values) + (defaultRule.map { [$0] } ?? [])
        return all.contains { rules in
            rules.roles.contains { $0.expressions.contains(where: Self.namesCustomData) }
                || rules.filters.contains { Self.namesCustomData($0.applyWhen) || Self.namesCustomData($0.query) }
        }
    }

    private static func namesCustomData(_ document: BSONDocument) -> Bool {
        document.contains { key, value in key.hasPrefix("%%user.custom_data") || namesCustomData(value) }
    }

    private static func namesCustomData(_ value: BSON) -> Bool {
        switch value {
        case .string(let text): return text.hasPrefix("%%user.custom_data")
        case .document(let document): return namesCustomData(document)
        case .array(let items): return items.contains(where: namesCustomData)
        default: return false
        }
    }

    /// The rules that govern `namespace`; nil when none does.
    func rules(for namespace: Namespace) -> CollectionRules? {
        collections[namespace] ?? defaultRule
    }
}
