/// What answers a request whose handler is past the deadline it was held to (`RequestExecution.hold`).
protocol OverdueAnswer: Sendable {
    /// The error the request is answered with.
    func error() async -> APIError
}
