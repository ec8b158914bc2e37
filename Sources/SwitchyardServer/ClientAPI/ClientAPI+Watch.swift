import BSON
import DocumentStore
import Foundation
import Switchyard

extension ClientAPI {
    /// `GET /app/{app}/functions/call?baas_request=…&baas_at=<access token>` (`Accept: text/event-stream`): a
    /// Realm SDK's `collection.watch()` (see `WatchRequest`), answered as server-sent events, each a change
    /// event as canonical Extended JSON in one `data:` line, with `%`, CR and LF percent-encoded as realm-core's
    /// `WatchStream` decodes them. Update events carry the document as it is when the event is sent. The user's data
    /// access rules decide which events the stream carries and what of their documents (as a read of the changed
    /// document would), and a collection without rules is refused with `NoMatchingRuleFound`.
    ///
    /// A refused request is answered as any other client call (status and `{error, error_code}`). Once open, the
    /// stream sends a comment while idle (`EventStream`'s keep-alive), and ends with an `error` event
    /// `{error, error_code}`, which the SDK raises, when the session ends (`InvalidSession`), when the client reads
    /// too slowly for `watchBufferLimit` (`LimitExceeded`) or when the store fails (`MongoDBError`); it ends
    /// without one when the collection is dropped or renamed (after the `invalidate` event) and when the server
    /// stops.
    func watch(_ request: ServerRequest) async throws -> ServerResponse {
        let caller = try await tokens.authenticate(accessToken: request.query["baas_at"] ?? request.bearerToken)
        let watch = try WatchRequest(baasRequest: request.query["baas_request"])
        let access = try await dataAccess(for: caller.functionUser)
        // The stream reads the change log itself; `access` decides per event what the user sees of it.
        let collection = try MongoServiceCall.collection(named: watch.namespace, in: app.store, access: access)
        let changes = try await collection.watch(
            watch.pipeline, options: ChangeStreamOptions(fullDocument: .updateLookup))

        let events = EventStream(keepAliveInterval: watchKeepAliveInterval.timeInterval)
        let endings = users.sessionEndings
        let session = caller.session.id
        let listening = endings.listen(session: session, user: caller.user.id) {
            Self.end(events, with: .sessionEnded)
        }
        // A session that ended between the token's check and the listening would go unheard: checked once more.
        guard try await users.liveSession(id: session, userId: caller.user.id) != nil else {
            endings.cancel(listening, session: session)
            throw APIError.sessionEnded
        }
        let limit = watchBufferLimit
        let feed = Task(executorPreference: queryExecutor) {
            do {
                for try await change in changes {
                    guard let visible = access.permittedChange(change.raw) else { continue }
                    guard events.send(data: Self.eventData(visible), pendingLimit: limit) else {
                        Self.end(
                            events,
                            with: APIError(
                                status: 429, code: "LimitExceeded",
                                message:
                                    "watch: the client read too slowly; \(limit) bytes of change events were waiting for it"
                            ))
                        return
                    }
                }
            } catch let error as StoreError {
                Self.end(events, with: APIError(status: 400, code: "MongoDBError", message: "watch: \(error.message)"))
            } catch {
                Self.end(events, with: APIError.answering(error))
            }
            events.finish()
        }
        events.onTermination {
            feed.cancel()
            endings.cancel(listening, session: session)
        }
        return .events(events)
    }

    /// A change event as one `data:` line: canonical Extended JSON with `%`, LF and CR percent-encoded (the
    /// encoding realm-core's `WatchStream` undoes, so a `%` in a document survives the trip).
    static func eventData(_ event: BSONDocument) -> String {
        var data = String(decoding: event.extendedJSONBytes(mode: .canonical), as: UTF8.self)
        guard data.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == 10 || $0 == 13 }) else { return data }
        data = data.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\n", with: "%0A")
            .replacingOccurrences(of: "\r", with: "%0D")
        return data
    }

    /// Ends the stream with the SDK's error event.
    private static func end(_ events: EventStream, with error: APIError) {
        let body: BSONDocument = ["error": .string(error.message), "error_code": .string(error.code)]
        events.send(event: "error", data: String(decoding: body.extendedJSONBytes(mode: .relaxed), as: UTF8.self))
        events.finish()
    }
}
