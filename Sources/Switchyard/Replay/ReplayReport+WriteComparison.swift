import BSON

extension ReplayReport.Run {
    /// A write as then and now are compared: what every run makes afresh is left out, so that the same change
    /// compares equal. That is an inserted document's ObjectId `_id` (the store gives a document without one a new
    /// ObjectId each time) and the values of dates (a run's `new Date()`), which compare by their field only.
    static func comparable(_ write: BSONDocument) -> BSON {
        var write = write
        if write["operationType"] == "insert", case .objectId? = write["documentKey"]?.documentValue?["_id"] {
            _ = write.removeValue(forKey: "documentKey")
            if var document = write["fullDocument"]?.documentValue {
                _ = document.removeValue(forKey: "_id")
                write["fullDocument"] = .document(document)
            }
        }
        return withoutDates(.document(write))
    }

    private static func withoutDates(_ value: BSON) -> BSON {
        switch value {
        case .datetime: .null
        case .document(let document):
            .document(BSONDocument(document.map { ($0.key, withoutDates($0.value)) }))
        case .array(let values): .array(values.map(withoutDates))
        default: value
        }
    }
}
