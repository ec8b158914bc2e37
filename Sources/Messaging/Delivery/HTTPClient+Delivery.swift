extension HTTPClient {
    /// `send` as a result, for the retry loops' closures (where typed throws do not carry through).
    func exchange(_ request: HTTPRequest) async -> Result<HTTPResponse, HTTPClientError> {
        do {
            return .success(try await send(request))
        } catch {
            return .failure(error)
        }
    }
}

extension RetryPolicy.Outcome {
    /// A transport failure: retried, unless the waiting task was cancelled or the request could never be sent.
    static func transport(_ error: HTTPClientError, _ place: String) -> Self {
        let pushError = PushError(code: .transport, message: "\(place): \(error)")
        switch error {
        case .cancelled, .invalidRequest: return .failure(pushError)
        default: return .retry(pushError, retryAfter: nil)
        }
    }
}
