import BSON

/// A compiled aggregation pipeline.
public struct Pipeline: Sendable {
    public init(_ stages: [BSONDocument]) throws(StoreError) {
        throw .badValue("aggregation is not implemented yet")
    }

    /// Runs the pipeline over `input`; `$lookup` reads other collections of the same database through `source`.
    public func run(_ input: [BSONDocument], source: any PipelineSource) throws(StoreError) -> [BSONDocument] {
        input
    }
}

/// Where `$lookup` finds the documents of another collection in the same database.
public protocol PipelineSource: Sendable {
    func documents(inCollection name: String) throws(StoreError) -> [BSONDocument]
}
