/// Remembers which polled entries were printed, so `--follow` prints each entry once.
struct PollFollower<ID: Hashable> {
    private var seen: Set<ID>?

    /// The entries of this poll not printed before; on the first poll, the newest `firstLimit`.
    mutating func unseen<Entry>(_ entries: [Entry], id: (Entry) -> ID, firstLimit: Int) -> [Entry] {
        defer { seen = Set(entries.map(id)) }
        guard let seen else { return Array(entries.suffix(firstLimit)) }
        return entries.filter { !seen.contains(id($0)) }
    }
}

enum PollSchedule {
    static let window = 1_000
    static let interval = Duration.milliseconds(250)
}
