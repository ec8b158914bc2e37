import Switchyard

extension ServeLifecycle {
    /// What a `ServeLifecycle` tells its caller: its steps in the order they happen, and function runs (`invocations`)
    /// while it serves.
    package enum Event: Sendable {
        /// The import read a chunk or wrote a collection.
        case importing(DataImportProgress)
        /// The import directory landed, whole.
        case imported(DataImport.Summary, from: String)
        /// The app is served and its triggers run.
        case serving(AppServer)
        /// The MongoDB wire protocol is served at this connection string, asking for authentication when `users`
        /// is more than 0.
        case servingMongoDB(connectionString: String, users: Int)
        /// The MongoDB wire protocol is not served (its default port is taken), and why.
        case mongoDBNotServing(reason: String)
        /// Function runs finished since the last batch told.
        case invocations([InvocationRecord])
        /// A reload applied the configuration read again.
        case reloaded(ConfigurationChange)
        /// A reload found problems (`ConfigurationErrors`) or failed; the configuration before stays in effect.
        case notReloaded(any Error)
        /// A stop was asked for, with its reason; the triggers, then the server, stop next.
        case stopping(reason: String)
        /// The data was exported to the directory on the way out.
        case exported([DataExport.Collection], to: String)
        /// The export on the way out failed; the store is closed all the same.
        case notExported(DataExport.Failure, to: String)
        /// Everything stopped: the store is closed and the data directory free.
        case stopped
    }
}
