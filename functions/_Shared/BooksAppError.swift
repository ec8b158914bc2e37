/// A failure of one of the example app's functions, with a message saying what and where.
struct BooksAppError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
