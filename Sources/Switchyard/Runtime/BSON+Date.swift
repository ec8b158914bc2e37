import BSON
import Foundation

extension BSON {
    /// A BSON datetime for `date`, to the millisecond.
    static func date(_ date: Date) -> BSON { .datetime(BSONDate(date)) }

    var dateValue: Date? {
        guard case .datetime(let value) = self else { return nil }
        return value.date
    }
}
