import BSON

/// A book as the tutorial stores it, in the shape of a Google Books volume:
/// `{_id, volumeInfo: {title, authors: [String], imageLinks: {thumbnail}}}`. A top-level `title` or `authors`
/// is read when `volumeInfo` lacks them.
struct Book {
    let document: BSONDocument

    var title: String? {
        nonEmpty(document.value(atPath: "volumeInfo.title")) ?? nonEmpty(document["title"])
    }

    var authors: [String] {
        let list = document.value(atPath: "volumeInfo.authors")?.arrayValue ?? document["authors"]?.arrayValue ?? []
        return list.compactMap { nonEmpty($0) }
    }

    /// The cover image, sent as the notification's image.
    var thumbnail: String? { nonEmpty(document.value(atPath: "volumeInfo.imageLinks.thumbnail")) }

    /// "Title by Author One, Author Two", or what of it the book has.
    var summary: String? {
        let byline = authors.isEmpty ? nil : "by " + authors.joined(separator: ", ")
        switch (title, byline) {
        case (let title?, let byline?): return "\(title) \(byline)"
        case (let title?, nil): return title
        case (nil, let byline?): return "A book \(byline)"
        case (nil, nil): return nil
        }
    }

    private func nonEmpty(_ value: BSON?) -> String? {
        guard let string = value?.stringValue, !string.isEmpty else { return nil }
        return string
    }
}
