/// The rules of one collection (`rules.json`) or of every collection without its own (`default_rule.json`):
/// its roles, in the order App Services tries them.
package struct CollectionRules: Sendable, Equatable {
    var roles: [DataAccessRole]
    /// App Services' query `filters`, each ANDed into the request's reads and writes when it applies.
    var filters: [RuleFilter] = []
}
