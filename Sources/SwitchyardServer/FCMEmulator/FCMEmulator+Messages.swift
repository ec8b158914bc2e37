import BSON
import DocumentStore
import Messaging

extension FCMEmulator {
    /// The header with which `switchyard serve`'s own FCM client names the function run that sends (its
    /// `CarriedInserts.currentKey`): the outbox's record of the send commits in that run's transaction, with the
    /// write that says it was sent, so a crash between the two keeps neither and the redelivered run sends once.
    package static let functionRunHeader = "x-switchyard-function-run"

    /// `POST /v1/projects/{project}/messages:send`.
    func send(_ request: ServerRequest, project: String) async -> ServerResponse {
        if outbox.takeConnectionReset() { return .connectionReset }
        if let refusal = refusal(request, project: project) { return refusal.response }
        let document: BSONDocument
        do {
            document = try PlainJSON.parseDocument(request.body)
        } catch {
            return GoogleAPIError.invalidJSON("\(error)").response
        }
        do {
            let sendRequest = try FCMSendRequest(document: document)
            let name = try await CarriedInserts.joining(request.headers[Self.functionRunHeader]) {
                () async throws(PushError) -> String in
                try await outbox.send(sendRequest.message, validateOnly: sendRequest.validateOnly)
            }
            return .json(["name": .string(name)])
        } catch {
            return GoogleAPIError(error, retryAfterSeconds: outbox.faults.retryAfterSeconds).response
        }
    }
}
