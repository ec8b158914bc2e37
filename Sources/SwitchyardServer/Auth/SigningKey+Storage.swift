import BSON
import DocumentStore
import Foundation

extension SigningKey {
    /// Where the key lives: the store's `local` database, which is not change-logged (no trigger sees it) and
    /// which clients cannot reach through the `mongodb-atlas` service.
    static let database = "local"
    static let collection = "switchyard_keys"
    static let documentId = "accessTokenSigningKey"
    static let length = 64

    /// The data directory's key, made on first use. Two servers racing to make it agree on the first one stored.
    static func load(from store: DocumentStore) async throws -> SigningKey {
        let keys = store.database(database).collection(collection)
        if let stored = try await keys.findOne(["_id": .string(documentId)]), let key = SigningKey(document: stored) {
            return key
        }
        let fresh = Cryptography.randomBytes(length)
        do {
            try await keys.insertOne([
                "_id": .string(documentId), "key": .binary(BSONBinary(data: fresh)),
                "createdAt": .datetime(BSONDate(Date())),
            ])
            return SigningKey(bytes: fresh)
        } catch let error as StoreError where error.code == .duplicateKey {
            guard let stored = try await keys.findOne(["_id": .string(documentId)]),
                let key = SigningKey(document: stored)
            else { throw error }
            return key
        }
    }

    private init?(document: BSONDocument) {
        guard case .binary(let binary) = document["key"], binary.data.count >= 32 else { return nil }
        self.init(bytes: binary.data)
    }
}
