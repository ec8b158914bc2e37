import DocumentStore

extension AppOptions {
    /// Prints what `read` finds in the app's store, once, or with `follow` every `PollSchedule.interval`
    /// (the store belongs to another process while the app runs, so its live feeds are not reachable here).
    /// Returns the command's exit status.
    func printPolled<Entry, ID: Hashable>(
        follow: Bool, limit: Int, nothingYet: String, id: (Entry) -> ID,
        read: (DocumentStore) async throws -> [Entry], print: (Entry) -> Void
    ) async -> Int32 {
        var printed = PollFollower<ID>()
        repeat {
            do throws(CommandFailure) {
                if let store = try await openStoreForReading() {
                    let entries: Result<[Entry], CommandFailure>
                    do {
                        entries = .success(try await read(store))
                    } catch {
                        entries = .failure(CommandFailure("cannot read \(dataDirectory): \(error)", status: 1))
                    }
                    await store.close()
                    for entry in printed.unseen(try entries.get(), id: id, firstLimit: limit) { print(entry) }
                } else if !follow {
                    Output.error("\(nothingYet): \(dataDirectory) holds no store")
                }
            } catch {
                Output.error(error.message)
                return error.status
            }
            if follow { try? await Task.sleep(for: PollSchedule.interval) }
        } while follow
        return 0
    }
}

/// The `--limit N` option of the commands that print records, when given.
func positiveLimit(_ parsed: Arguments, usage: String) throws(UsageError) -> Int? {
    guard let text = parsed.value("--limit") else { return nil }
    guard let limit = Int(text), limit > 0 else {
        throw UsageError("--limit needs a positive number, not '\(text)'", usage: usage)
    }
    return limit
}
