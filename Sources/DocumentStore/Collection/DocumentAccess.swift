import BSON

/// Who may read and write what, consulted by the operations of a `Database` or `DocumentCollection` that carries
/// it (`store.database(name, access: policy)`): App Services' data access rules as a user's requests meet them.
/// The store without one reads and writes everything, as system code does.
///
/// Reads are restricted twice: `readFilter` is ANDed into the query, so the store reads only what the reader may
/// see and an `_id` lookup stays one; `redact` then removes what the filter cannot express (hidden fields, or
/// documents a rule decides one by one). Writes are restricted by `writeFilter` (what an update or delete can
/// match) and authorized document by document inside the write by `authorizeWrite`, whose refusal rolls the
/// whole write back.
package protocol DocumentAccess: Sendable {
    /// The filter every read of `namespace` is restricted to; nil reads every document. Throwing refuses the read.
    func readFilter(_ namespace: Namespace) throws(StoreError) -> BSONDocument?

    /// The filter every update and delete of `namespace` is restricted to; nil matches every document.
    func writeFilter(_ namespace: Namespace) throws(StoreError) -> BSONDocument?

    /// Whether `redact` can change or hide a document of `namespace` that `readFilter` lets through. When it
    /// can hide documents, limits and counts are applied after it.
    func redaction(_ namespace: Namespace) -> DocumentRedaction

    /// What of `document` the reader may see; nil hides it.
    func redact(_ document: BSONDocument, in namespace: Namespace) -> BSONDocument?

    /// Refuses (by throwing) a write of one document: `before` is nil for an insert, `after` nil for a delete.
    /// Runs inside the write's transaction, on the store's writer.
    func authorizeWrite(_ namespace: Namespace, before: BSONDocument?, after: BSONDocument?) throws(StoreError)
}

/// What `DocumentAccess.redact` does to the documents its read filter lets through.
package enum DocumentRedaction: Sendable, Equatable {
    /// Every document as it is stored: reads need no redaction.
    case none
    /// Fields may be removed; every document is kept.
    case fields
    /// Documents may be hidden too, so limits and counts apply after redaction.
    case documents
}

extension BSONDocument {
    /// This filter restricted to `restriction`: one document when their keys differ (the planner still sees an
    /// `_id` lookup as one), `$and` otherwise.
    func restricted(to restriction: BSONDocument?) -> BSONDocument {
        guard let restriction, !restriction.isEmpty else { return self }
        guard !isEmpty else { return restriction }
        let disjoint = restriction.keys.allSatisfy { !$0.hasPrefix("$") && self[$0] == nil }
        guard disjoint else { return ["$and": [.document(self), .document(restriction)]] }
        var combined = self
        for (key, value) in restriction { combined.append(key, value) }
        return combined
    }
}
