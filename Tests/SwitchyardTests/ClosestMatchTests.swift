import Switchyard
import Testing

@Suite struct ClosestMatchTests {
    @Test func suggestsTheNearestWordIgnoringCase() {
        #expect(ClosestMatch.suggestion(for: "colection", among: ["database", "collection"]) == "collection")
        #expect(ClosestMatch.suggestion(for: "INSRT", among: ["INSERT", "UPDATE"]) == "INSERT")
        #expect(ClosestMatch.suggestion(for: "Collection", among: ["collection"]) == "collection")
        #expect(ClosestMatch.suggestion(for: "JNA", among: ["JAN", "FEB"]) == "JAN")
        #expect(
            ClosestMatch.suggestion(for: "sendBookTopic", among: ["sendBooksTopic", "createUserData"])
                == "sendBooksTopic")
    }

    @Test func offersNothingWhenNoWordIsClose() {
        #expect(ClosestMatch.suggestion(for: "zzz", among: ["collection", "database"]) == nil)
        #expect(ClosestMatch.suggestion(for: "a", among: ["b"]) == nil)
        #expect(ClosestMatch.suggestion(for: "", among: ["b"]) == nil)
        #expect(ClosestMatch.suggestion(for: "anything", among: [String]()) == nil)
    }
}
