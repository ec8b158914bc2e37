import BSON
import DocumentStore
import Messaging
import Switchyard

extension FCMEmulator {
    /// The header with which `switchyard serve`'s own FCM client names the function run that sends (its
    /// `CarriedInserts.currentKey`): the outbox's record of the send commits in that run's transaction, with the
    /// write that says it was sent, so a crash between the two keeps neither and the redelivered run sends once.
    package static let functionRunHeader = "x-switchyard-function-run"
    /// The header with which it names the run's invocation record (`FunctionRunScope`): the outbox entry carries
    /// it, so a recording of the trigger knows which messages the run sent.
    package static let invocationHeader = "x-switchyard-invocation"

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
            let run = request.headers[Self.invocationHeader].flatMap(ObjectId.init(hex:))
            let name = try await CarriedInserts.joining(request.headers[Self.functionRunHeader]) {
                () async throws(PushError) -> String in
                try await FunctionRunScope.$invocationId.withValue(run) { () async -> Result<String, PushError> in
                    do throws(PushError) {
                        return .success(
                            try await outbox.send(sendRequest.message, validateOnly: sendRequest.validateOnly))
                    } catch {
                        return .failure(error)
                    }
                }.get()
            }
            return .json(["name": .string(name)])
        } catch {
            return GoogleAPIError(error, retryAfterSeconds: outbox.faults.retryAfterSeconds).response
        }
    }
}
