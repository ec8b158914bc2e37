import BSON

extension ServerRequest {
    /// The body as an Extended JSON document; an empty body is an empty document.
    /// - Throws: `APIError` 400 `BadRequest` naming the line and column where the JSON went wrong.
    func extendedJSONBody() throws(APIError) -> BSONDocument {
        guard body.contains(where: { !" \t\r\n".utf8.contains($0) }) else { return [:] }
        do {
            return try ExtendedJSON.parseDocument(body)
        } catch {
            throw APIError.badRequest(
                "malformed JSON in the request body at \(error.line):\(error.column): \(error.message)")
        }
    }
}
