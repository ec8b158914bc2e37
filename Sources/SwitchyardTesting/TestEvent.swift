import BSON
import DocumentStore
import Foundation
import Switchyard

/// A synthetic event for `TestApp.fire(_:event:)`: a change to a document, a scheduled time, or a user
/// signing up, logging in or being deleted.
///
/// Change events are shaped as the change log shapes them (`operationType`, `ns`, `documentKey`,
/// `fullDocument`, `fullDocumentBeforeChange`, `updateDescription`, `wallTime`); `ns` is the trigger's
/// collection unless the event names one.
public struct TestEvent: Sendable {
    enum Payload: Sendable {
        case change(BSONDocument)
        case scheduled(Date)
        case authentication(AuthEvent.OperationType, FunctionUser, provider: String, time: Date)
    }

    let payload: Payload
    /// The change event's `_id`; nil gives each fire a token of its own.
    var resumeToken: ResumeToken?

    init(payload: Payload) {
        self.payload = payload
    }

    /// This change event with `token` as its `_id`: firing it twice is how a redelivery looks to a function.
    public func resumeToken(_ token: ResumeToken) -> TestEvent {
        var event = self
        event.resumeToken = token
        return event
    }

    /// `document` was inserted (its `_id` is the document key; one is added when it has none).
    public static func insert(_ document: BSONDocument) -> TestEvent {
        let document = withId(document)
        return change([
            "operationType": "insert", "documentKey": ["_id": document["_id"] ?? .null],
            "fullDocument": .document(document),
        ])
    }

    /// The document became `document` by setting `updatedFields` and removing `removedFields`; `before` is the
    /// pre-image, when the test wants one.
    public static func update(
        _ document: BSONDocument, updatedFields: BSONDocument, removedFields: [String] = [],
        before: BSONDocument? = nil
    ) -> TestEvent {
        var event: BSONDocument = [
            "operationType": "update", "documentKey": ["_id": document["_id"] ?? .null],
            "updateDescription": [
                "updatedFields": .document(updatedFields), "removedFields": .array(removedFields.map(BSON.string)),
                "truncatedArrays": [],
            ],
            "fullDocument": .document(document),
        ]
        if let before { event.append("fullDocumentBeforeChange", .document(before)) }
        return change(event)
    }

    /// The document was replaced by `document`.
    public static func replace(_ document: BSONDocument, before: BSONDocument? = nil) -> TestEvent {
        var event: BSONDocument = [
            "operationType": "replace", "documentKey": ["_id": document["_id"] ?? .null],
            "fullDocument": .document(document),
        ]
        if let before { event.append("fullDocumentBeforeChange", .document(before)) }
        return change(event)
    }

    /// `before` was deleted; it is the event's pre-image.
    public static func delete(_ before: BSONDocument) -> TestEvent {
        change([
            "operationType": "delete", "documentKey": ["_id": before["_id"] ?? .null],
            "fullDocumentBeforeChange": .document(before),
        ])
    }

    /// The document with `_id` `id` was deleted, without a pre-image.
    public static func delete(id: BSON) -> TestEvent {
        change(["operationType": "delete", "documentKey": ["_id": id]])
    }

    /// A change event given whole (`operationType` is required; `ns` and `wallTime` are filled in when missing;
    /// `_id` is replaced: see `resumeToken(_:)`).
    public static func change(_ event: BSONDocument) -> TestEvent {
        TestEvent(payload: .change(event))
    }

    /// The schedule fired for `time`.
    public static func scheduled(at time: Date = Date()) -> TestEvent {
        TestEvent(payload: .scheduled(time))
    }

    /// `user` was created, logged in or was deleted through `provider` (`local-userpass`, `anon-user`, …).
    public static func authentication(
        _ operation: AuthEvent.OperationType, user: FunctionUser, provider: String = "local-userpass",
        time: Date = Date()
    ) -> TestEvent {
        TestEvent(payload: .authentication(operation, user, provider: provider, time: time))
    }

    private static func withId(_ document: BSONDocument) -> BSONDocument {
        guard document["_id"] == nil else { return document }
        var copy: BSONDocument = ["_id": .objectId(ObjectId())]
        for (key, value) in document { copy.append(key, value) }
        return copy
    }
}
