import BSON
import DocumentStore

/// Collections for `$lookup`, held in memory.
struct MemorySource: PipelineSource {
    var collections: [String: [BSONDocument]] = [:]

    func documents(inCollection name: String) throws(StoreError) -> [BSONDocument] {
        collections[name] ?? []
    }
}

func aggregate(_ stages: [BSONDocument], _ input: [BSONDocument], source: MemorySource = MemorySource())
    throws(StoreError) -> [BSONDocument]
{
    try Pipeline(stages).run(input, source: source)
}

/// The error that compiling or running the pipeline throws.
func aggregationFailure(_ stages: [BSONDocument], _ input: [BSONDocument] = [["_id": 1]]) -> StoreError? {
    do {
        _ = try aggregate(stages, input)
        return nil
    } catch {
        return error
    }
}
