/// FCM topic names: `[a-zA-Z0-9-_.~%]+`, written with or without a leading `/topics/`.
enum TopicName {
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isAllowed)
    }

    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"), UInt8(ascii: "%"):
            true
        default: false
        }
    }
}
