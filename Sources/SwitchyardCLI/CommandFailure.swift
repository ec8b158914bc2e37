/// A command that could not do its work: the message for standard error and the exit status.
struct CommandFailure: Error {
    var message: String
    var status: Int32

    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}
