import BSON
import Foundation

extension BSONDate {
    /// `date` to the millisecond, as BSON keeps dates.
    public init(_ date: Date) {
        self.init(millisecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSinceEpoch) / 1000) }
}
