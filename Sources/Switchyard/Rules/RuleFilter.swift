import BSON

/// One of a rule's `filters`: when `applyWhen` holds for the request, `query` restricts every read and write the
/// request makes of the collection.
package struct RuleFilter: Sendable, Equatable {
    var name: String
    var applyWhen: BSONDocument
    var query: BSONDocument
}
