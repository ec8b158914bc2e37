import BSON

/// How a change stream starts and what its events carry (MongoDB's `watch` options).
public struct ChangeStreamOptions: Sendable {
    /// `fullDocument` for update events.
    public enum FullDocument: String, Sendable {
        /// Only inserts and replaces carry `fullDocument`.
        case `default`
        /// Updates carry the document as it is when the event is read (null when since deleted).
        case updateLookup
        /// Updates carry their post-image when the collection records images, else null.
        case whenAvailable
        /// Updates carry their post-image; an update without one fails the stream.
        case required
    }

    /// `fullDocumentBeforeChange` for update, replace and delete events (needs
    /// `changeStreamPreAndPostImages` on the collection).
    public enum FullDocumentBeforeChange: String, Sendable {
        case off, whenAvailable, required
    }

    public var fullDocument: FullDocument
    public var fullDocumentBeforeChange: FullDocumentBeforeChange
    /// Resume with the events after this one.
    public var resumeAfter: ResumeToken?
    /// Like `resumeAfter`, but also accepts an `invalidate` event's token.
    public var startAfter: ResumeToken?
    /// Start with the first event whose `clusterTime` is at or after this one (MongoDB's
    /// `startAtOperationTime`); ignored when a token is given.
    public var startAtOperationTime: BSONTimestamp?
    /// How many log entries a stream reads from the store at a time.
    public var batchSize: Int
    /// Also emit the expanded DDL events (`create`, `createIndexes`, `dropIndexes`, `modify`) and the
    /// `operationDescription` of `rename`, as MongoDB 6+ does for `showExpandedEvents: true`.
    public var showExpandedEvents: Bool

    public init(
        fullDocument: FullDocument = .default, fullDocumentBeforeChange: FullDocumentBeforeChange = .off,
        resumeAfter: ResumeToken? = nil, startAfter: ResumeToken? = nil, startAtOperationTime: BSONTimestamp? = nil,
        batchSize: Int = 256, showExpandedEvents: Bool = false
    ) {
        self.startAtOperationTime = startAtOperationTime
        self.fullDocument = fullDocument
        self.fullDocumentBeforeChange = fullDocumentBeforeChange
        self.resumeAfter = resumeAfter
        self.startAfter = startAfter
        self.batchSize = batchSize
        self.showExpandedEvents = showExpandedEvents
    }
}

/// What a change stream watches.
package enum ChangeStreamScope: Sendable, Equatable {
    /// Every database.
    case store
    case database(String)
    case collection(Namespace)
}
