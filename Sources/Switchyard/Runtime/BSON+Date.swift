import BSON
import Foundation

extension BSON {
    /// A BSON datetime for `date`, to the millisecond.
    static func date(_ date: Date) -> BSON {
        .datetime(BSONDate(millisecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1000).rounded(.down))))
    }

    var dateValue: Date? {
        guard case .datetime(let value) = self else { return nil }
        return Date(timeIntervalSince1970: Double(value.millisecondsSinceEpoch) / 1000)
    }
}
