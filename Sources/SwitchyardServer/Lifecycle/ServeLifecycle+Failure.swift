import Switchyard

extension ServeLifecycle {
    /// Why a `ServeLifecycle` could not start, and at which step.
    package struct Failure: Error, CustomStringConvertible {
        package enum Stage: Sendable {
            /// Another process holds the data directory, or it cannot be created.
            case claimingDataDirectory
            /// The store refused to open (damaged, less than was committed) or the app could not be assembled.
            case opening
            /// The import directory holds something the store refuses (`DataImportError`); nothing was imported.
            case importing
            /// The server could not listen (the port is taken) or the triggers could not start.
            case starting
        }

        package var stage: Stage
        package var error: any Error

        package var description: String {
            switch stage {
            case .claimingDataDirectory, .importing: "\(error)"
            case .opening: "cannot open the app: \(error)"
            case .starting: "cannot start: \(error)"
            }
        }
    }
}
