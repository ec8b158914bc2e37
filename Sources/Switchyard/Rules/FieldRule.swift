/// A role's permissions on one field (`fields: {"<name>": {read, write, fields}}`) or on the fields it does not
/// name (`additional_fields: {read, write}`). Write implies read; an absent permission is false.
package struct FieldRule: Sendable, Equatable {
    var read: RuleExpression?
    var write: RuleExpression?
    /// The permissions of an embedded document's fields.
    var fields: [String: FieldRule] = [:]

    /// Nothing readable or writable: what `additional_fields` is when a role leaves it out.
    static let closed = FieldRule()
}
