import BSON
import Foundation

extension BSONDate {
    init(_ date: Date) {
        self.init(millisecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    var date: Date { Date(timeIntervalSince1970: Double(millisecondsSinceEpoch) / 1000) }
}
