import BSON
import DocumentStore

/// Why a function call did not return a value, shaped for the client API's `{"error", "error_code"}` answer.
/// Messages never contain secret values: errors a function throws are scrubbed before they get here.
public struct FunctionCallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// App Services' `error_code`; a struct so new codes don't break anyone's `switch`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No callable function has that name.
        public static let functionNotFound = Code(rawValue: "FunctionNotFound")
        /// The function is private: triggers and other functions may call it, clients may not.
        public static let privateFunction = Code(rawValue: "PrivateFunction")
        /// The function's `canEvaluate` rule did not match the call.
        public static let permissionDenied = Code(rawValue: "PermissionDenied")
        /// The function threw.
        public static let functionExecutionError = Code(rawValue: "FunctionExecutionError")
        /// The function ran past its time limit.
        public static let executionTimeLimitExceeded = Code(rawValue: "ExecutionTimeLimitExceeded")
        /// `context.functions.execute` nested deeper than `FunctionContext.maximumCallDepth`.
        public static let callDepthExceeded = Code(rawValue: "CallDepthExceeded")

        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String
    /// The failure of the store's storage (a full disk) that made the function fail, told without paths: the
    /// server's fault rather than the call's, which the client API answers as a server failure.
    public var storageFailure: StoreError?

    public init(code: Code, message: String, storageFailure: StoreError? = nil) {
        self.code = code
        self.message = message
        self.storageFailure = storageFailure
    }

    public var description: String { "\(code): \(message)" }

    /// The HTTP status the client API answers with.
    package var httpStatus: Int {
        switch code {
        case .functionNotFound: 404
        case .privateFunction, .permissionDenied: 403
        default: 400
        }
    }

    /// The client API's error body: `{"error": message, "error_code": code}`.
    package var document: BSONDocument {
        ["error": .string(message), "error_code": .string(code.rawValue)]
    }

    static func notFound(_ name: String) -> FunctionCallError {
        FunctionCallError(code: .functionNotFound, message: "function not found: '\(name)'")
    }

    /// A function that exists but is not callable (a trigger function) is not found as far as callers go.
    static func notCallable(_ name: String, kind: FunctionKind) -> FunctionCallError {
        FunctionCallError(
            code: .functionNotFound,
            message: "function not found: '\(name)' is \(kind.phrase), which only its trigger runs")
    }
}

extension FunctionCallError {
    static func timedOut(_ name: String, after limit: Duration) -> FunctionCallError {
        FunctionCallError(
            code: .executionTimeLimitExceeded,
            message: "function '\(name)' timed out after \(limit.configurationText) (its time limit; see 'timeout')")
    }
}
