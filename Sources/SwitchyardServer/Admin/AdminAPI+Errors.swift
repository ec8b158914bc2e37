import BSON
import DocumentStore
import Switchyard

extension AdminAPI {
    /// What the store and the trigger runtime throw, as the HTTP errors an admin client can act on.
    static func apiError(_ error: any Error) -> any Error {
        switch error {
        case let error as APIError:
            return error
        case let error as ExtendedJSONError:
            return APIError.badRequest("malformed Extended JSON at \(error.line):\(error.column): \(error.message)")
        case let error as StoreError:
            if let failure = APIError.storageFailure(code: error.code) { return failure }
            if error.code == .duplicateKey {
                return APIError(status: 409, code: error.codeName, message: error.message)
            }
            return APIError(status: 400, code: error.codeName, message: error.message)
        case let error as BulkWriteError:
            let duplicate = error.writeErrors.contains { $0.code == .duplicateKey }
            return APIError(
                status: duplicate ? 409 : 400, code: duplicate ? "DuplicateKey" : "WriteError",
                message: error.writeErrors.map(\.errmsg).joined(separator: "; "))
        case let error as TriggerRuntimeError:
            return apiError(error)
        default:
            return error
        }
    }

    private static func apiError(_ error: TriggerRuntimeError) -> APIError {
        switch error.code {
        case .unknownTrigger: APIError(status: 404, code: "TriggerNotFound", message: error.message)
        case .deadLetterNotFound: APIError(status: 404, code: "DeadLetterNotFound", message: error.message)
        case .notRunning: APIError(status: 409, code: "TriggersNotRunning", message: error.message)
        case .invalidState: APIError(status: 409, code: "InvalidTriggerState", message: error.message)
        case .redeliveryFailed: APIError(status: 500, code: "RedeliveryFailed", message: error.message)
        case .heldByAnotherNode: APIError(status: 409, code: "TriggerHeldByAnotherNode", message: error.message)
        default: APIError(status: 400, code: error.code.rawValue, message: error.message)
        }
    }
}
