import Switchyard

extension APIError {
    /// A function call's error as the client API answers it.
    init(_ error: FunctionCallError) {
        self.init(status: error.httpStatus, code: error.code.rawValue, message: error.message)
    }
}
