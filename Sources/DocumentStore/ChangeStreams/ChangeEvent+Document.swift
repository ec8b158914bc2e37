import BSON

extension ChangeEvent {
    /// An event read back from its document: one a consumer filtered or projected itself, or one kept in a
    /// dead-letter queue. `id` and `operationType` are given apart because a `$project` may drop them from
    /// the document; the typed fields are read from `document` as a change stream would.
    package init(document: BSONDocument, id: ResumeToken, operationType: OperationType) {
        self.init(raw: document, token: id, operationType: operationType)
    }
}
