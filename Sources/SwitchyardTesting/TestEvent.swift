import BSON
import DocumentStore
import Foundation
import Switchyard

/// A synthetic event for `TestApp.fire(_:event:)`: a change to a document, a scheduled time, or a user
/// signing up, logging in or being deleted.
///
/// Changes are made the way `SyntheticEvent` makes them, by performing the write on a scratch store, so the
/// event has exactly the fields and update description a real write would give the trigger (with
/// `fullDocument` and the pre-image as the trigger asks for them). `ns` is the trigger's collection.
public struct TestEvent: Sendable {
    enum Payload: Sendable {
        case change(SyntheticEvent.Change, preImage: Bool)
        case raw(BSONDocument)
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

    /// `document` was inserted (an ObjectId `_id` is added when it has none).
    public static func insert(_ document: BSONDocument) -> TestEvent {
        TestEvent(payload: .change(.insert(document), preImage: true))
    }

    /// `document` was updated with the update operators `update` (`["$set": ["title": "New"]]`).
    public static func update(_ document: BSONDocument, with update: BSONDocument) -> TestEvent {
        TestEvent(payload: .change(.update(before: document, update: update), preImage: true))
    }

    /// `document` was replaced by `replacement` (which keeps the `_id`).
    public static func replace(_ document: BSONDocument, with replacement: BSONDocument) -> TestEvent {
        TestEvent(payload: .change(.replace(before: document, replacement: replacement), preImage: true))
    }

    /// `document` was deleted; it is the pre-image when the trigger asks for one.
    public static func delete(_ document: BSONDocument) -> TestEvent {
        TestEvent(payload: .change(.delete(document), preImage: true))
    }

    /// The document with `_id` `id` was deleted from a collection that records no pre-images.
    public static func delete(id: BSON) -> TestEvent {
        TestEvent(payload: .change(.delete(["_id": id]), preImage: false))
    }

    /// A change event given whole, checked as `ChangeEvent(raw:)` checks one (`operationType`, and `ns` and
    /// `documentKey` for document changes); `ns` and `wallTime` are filled in when missing, `_id` is replaced
    /// (see `resumeToken(_:)`).
    public static func change(_ event: BSONDocument) -> TestEvent {
        TestEvent(payload: .raw(event))
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
}
