import Foundation
import Switchyard

extension BSONDate {
    init(_ date: Date) {
        self.init(millisecondsSinceEpoch: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
