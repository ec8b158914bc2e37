import BSON
import Foundation

extension InvocationRecord {
    /// The record as a log forwarder hands it on, in the shape of App Services' log entries:
    /// `{_id, co_id, type, status, function_name, event_subscription_name?, user_id, started, completed, logs,
    /// error?, error_code?}`. `co_id` (the correlation id) is the trigger event's id, or the record's for a call;
    /// `event_subscription_name` is the trigger's name; `status` is `success` or `error`; `error_code` is
    /// `FunctionExecutionError` or `ExecutionTimeLimitExceeded`. Error and log lines are scrubbed of secrets as the
    /// record is.
    package func forwardedLog(source: LogSource) -> BSONDocument {
        var document = BSONDocument()
        document.reserveCapacity(12)
        document.append("_id", .objectId(id))
        document.append("co_id", .string(eventId ?? id.hex))
        document.append("type", .string(source.entryType))
        document.append("status", .string(logStatus.rawValue))
        document.append("function_name", .string(function))
        if let trigger { document.append("event_subscription_name", .string(trigger)) }
        document.append("user_id", .string(userId))
        document.append("started", .datetime(BSONDate(start)))
        document.append("completed", .datetime(BSONDate(start.addingTimeInterval(duration.milliseconds / 1000))))
        document.append("logs", .array(logs.map { .string($0) }))
        if let error {
            document.append("error", .string(error))
            let code: FunctionCallError.Code =
                outcome == .timeout ? .executionTimeLimitExceeded : .functionExecutionError
            document.append("error_code", .string(code.rawValue))
        }
        return document
    }

    /// The status a log forwarder filters on.
    package var logStatus: LogForwarder.LogStatus {
        outcome == .success ? .success : .error
    }
}
