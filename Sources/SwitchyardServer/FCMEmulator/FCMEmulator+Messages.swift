import BSON
import Messaging

extension FCMEmulator {
    /// `POST /v1/projects/{project}/messages:send`.
    func send(_ request: ServerRequest, project: String) async -> ServerResponse {
        if outbox.takeConnectionReset() { return .connectionReset }
        let grant: FCMAccessTokens.Grant
        switch self.grant(request) {
        case .success(let granted): grant = granted
        case .failure(let error): return error.response
        }
        if let own = grant.project, own != project { return GoogleAPIError.permissionDenied(project: project).response }
        guard project == self.project else { return GoogleAPIError.notFound.response }
        let document: BSONDocument
        do {
            document = try ExtendedJSON.parseDocument(request.body)
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
