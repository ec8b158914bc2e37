import BSON
import Messaging

extension FCMEmulator {
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
            let name = try await outbox.send(sendRequest.message, validateOnly: sendRequest.validateOnly)
            return .json(["name": .string(name)])
        } catch {
            return GoogleAPIError(error, retryAfterSeconds: outbox.faults.retryAfterSeconds).response
        }
    }
}
