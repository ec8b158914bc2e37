import BSON
import DocumentStore

extension FunctionRuntime {
    /// Delivers forwarded records: inserted into the action's collection (as the system, past any rules), or
    /// handed to its callable function as one argument, the array, run as the system user and recorded as a log
    /// forwarder's run (which is never forwarded itself). Throws when the delivery failed, so that it is retried.
    func deliver(_ records: [BSONDocument], to action: LogForwarder.Action) async throws {
        switch action {
        case .collection(let database, let collection):
            do {
                try await services.store.database(database).collection(collection).insertMany(records, ordered: false)
            } catch let error as BulkWriteError where error.writeErrors.allSatisfy({ $0.code == .duplicateKey }) {
                // Each record keeps its run's `_id`: another forwarder to the same collection took these already.
            }
        case .function(let name):
            let body: CallableFunction
            switch registry[name] {
            case .callable(let callable)?: body = callable
            case let other?: throw FunctionCallError.notCallable(name, kind: other.kind)
            case nil: throw FunctionCallError.notFound(name)
            }
            let outcome = await run(
                Origin(function: name, source: .logForwarder), user: .system, runningAsSystem: true,
                input: [BSON.array(records.map { .document($0) })], body)
            _ = try outcome.value(of: name)
        }
    }
}
