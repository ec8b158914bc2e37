import Switchyard

/// A served request keeps the time limit of the function it calls: the function runs in the request's own task.
extension RequestExecution: DeadlineKeeper {
    func keep(_ call: ExpiringCall, until deadline: ContinuousClock.Instant) {
        hold(until: deadline, overdue: call)
    }
}

extension ExpiringCall: OverdueAnswer {
    func error() async -> APIError {
        APIError(await expire())
    }
}

extension APIError {
    /// A function call's error as the client API answers it.
    init(_ error: FunctionCallError) {
        self.init(status: error.httpStatus, code: error.code.rawValue, message: error.message)
    }
}
