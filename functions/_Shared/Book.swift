import Switchyard

/// A book as the tutorial stores it, in the shape of a Google Books volume:
/// `{_id, volumeInfo: {title, authors: [String], imageLinks: {smallThumbnail, thumbnail}}}`. A top-level `title`
/// is read when `volumeInfo` lacks one.
///
/// The same reading serves a change's `updatedFields`, whose keys are dotted paths when the update set a nested
/// field (`{"volumeInfo.title": …}`) and nested documents when it replaced a whole one (`{volumeInfo: {…}}`).
struct Book {
    let document: BSONDocument

    var title: String? { text("volumeInfo.title") ?? text("title") }

    /// The cover the tutorial sends as the notification's image: `volumeInfo.imageLinks.smallThumbnail`, else the
    /// larger `thumbnail`.
    var cover: String? {
        text("volumeInfo.imageLinks.smallThumbnail") ?? text("volumeInfo.imageLinks.thumbnail")
    }

    private func text(_ path: String) -> String? {
        guard let string = Self.value(at: path.split(separator: ".").map(String.init), in: document)?.stringValue,
            !string.isEmpty
        else { return nil }
        return string
    }

    /// The value at `components`, where any leading run of them may be one dotted key.
    private static func value(at components: [String], in document: BSONDocument) -> BSON? {
        for count in stride(from: components.count, through: 1, by: -1) {
            guard let value = document[components[..<count].joined(separator: ".")] else { continue }
            if count == components.count { return value }
            if let nested = value.documentValue, let found = Self.value(at: Array(components[count...]), in: nested) {
                return found
            }
        }
        return nil
    }
}
