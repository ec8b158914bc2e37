import BSON

extension FunctionUser {
    /// The user as App Services shows it to rules (`%%user`) and events:
    /// `{"id", "type", "data", "custom_data", "identities": [{"id", "provider_type"}]}`.
    package var document: BSONDocument {
        [
            "id": .string(id),
            "type": .string(kind.rawValue),
            "data": .document(data),
            "custom_data": .document(customData),
            "identities": .array(
                identities.map { ["id": .string($0.id), "provider_type": .string($0.providerType)] }),
        ]
    }
}
