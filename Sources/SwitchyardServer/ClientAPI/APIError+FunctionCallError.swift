import Switchyard

extension APIError {
    /// A function call's error as the client API answers it: a function that failed on the store's storage (a full
    /// disk) as the server failure it is, answered as the client API's own writes are, without the detail.
    init(_ error: FunctionCallError) {
        if let failure = error.storageFailure, let answer = APIError.storageFailure(code: failure.code) {
            self = answer
            return
        }
        self.init(status: error.httpStatus, code: error.code.rawValue, message: error.message)
    }
}
