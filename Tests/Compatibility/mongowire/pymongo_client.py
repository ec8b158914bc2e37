"""A MongoDB driver's view of Switchyard's wire protocol: each scenario asserts what a driver reads back.

Run as: python pymongo_client.py URI SCENARIO [ARG]; prints "ok SCENARIO" when every assertion held.
"""
import socket
import struct
import sys
import time
import uuid

import bson
import pymongo
from pymongo.errors import BulkWriteError, DuplicateKeyError, OperationFailure

uri, scenario = sys.argv[1], sys.argv[2]
argument = sys.argv[3] if len(sys.argv) > 3 else None
# Server selection waits out a test machine under the whole suite's load (a handshake answered after 5 s was seen).
client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=30000, compressors="zlib")
db = client.wiretests


def crud():
    books = db.books
    books.drop()
    inserted = books.insert_one({"title": "Dune", "year": 1965, "tags": ["sf", "desert"]})
    assert books.find_one({"_id": inserted.inserted_id})["title"] == "Dune"
    books.insert_many([{"title": "Book %03d" % i, "n": i, "year": 2000 + i % 5} for i in range(40)])
    assert books.count_documents({}) == 41
    assert books.count_documents({"year": 2001}) == 8
    assert books.estimated_document_count() == 41
    titles = [d["title"] for d in books.find({"n": {"$lt": 3}}, {"title": 1, "_id": 0}).sort("n", -1)]
    assert titles == ["Book 002", "Book 001", "Book 000"], titles
    assert [d["n"] for d in books.find({"n": {"$exists": True}}).sort("n", 1).skip(5).limit(2)] == [5, 6]
    result = books.update_many({"year": 2002}, {"$set": {"even": True}, "$inc": {"n": 100}})
    assert (result.matched_count, result.modified_count) == (8, 8)
    result = books.update_one({"title": "Missing"}, {"$set": {"n": -1}}, upsert=True)
    assert result.upserted_id is not None and books.find_one({"title": "Missing"})["n"] == -1
    books.update_one({"title": "Dune"}, {"$set": {"tags.$[t]": "SF"}}, array_filters=[{"t": "sf"}])
    assert books.find_one({"title": "Dune"})["tags"] == ["SF", "desert"]
    books.replace_one({"title": "Missing"}, {"title": "Found", "n": -2})
    assert books.find_one({"n": -2})["title"] == "Found"
    after = books.find_one_and_update(
        {"title": "Dune"}, {"$inc": {"year": 1}}, return_document=pymongo.ReturnDocument.AFTER)
    assert after["year"] == 1966
    before = books.find_one_and_delete({"title": "Found"})
    assert before["n"] == -2 and books.find_one({"title": "Found"}) is None
    assert books.delete_many({"even": True}).deleted_count == 8
    assert books.delete_one({"title": "Dune"}).deleted_count == 1
    assert sorted(books.distinct("year")) == [2000, 2001, 2003, 2004]
    grouped = list(books.aggregate([{"$group": {"_id": "$year", "count": {"$sum": 1}}}, {"$sort": {"_id": 1}}]))
    assert [g["count"] for g in grouped] == [8, 8, 8, 8], grouped
    books.create_index([("n", pymongo.ASCENDING)], name="by_n")
    assert "by_n" in books.index_information()
    assert books.find({"n": 6}).hint("by_n").next()["n"] == 6
    if pymongo.version_tuple[0] >= 4:
        # find's let (pymongo 4): a variable the filter's $expr reads.
        found = books.find({"$expr": {"$eq": ["$n", "$$target"]}}, let={"target": 6}, comment="by let")
        assert [d["n"] for d in found] == [6]
    assert books.update_one({"n": 6}, {"$set": {"hinted": True}}, hint="by_n").modified_count == 1
    assert books.find({"n": 6}).explain()["queryPlanner"]["winningPlan"]["stage"] == "IXSCAN"
    books.drop_index("by_n")
    assert "by_n" not in books.index_information()
    db.create_collection("made")
    assert "made" in db.list_collection_names()
    assert db.list_collection_names(filter={"name": "made"}) == ["made"]
    client.admin.command("renameCollection", "wiretests.made", to="wiretests.renamed")
    assert "renamed" in db.list_collection_names() and "made" not in db.list_collection_names()
    assert "wiretests" in client.list_database_names()
    assert db.command("dbStats")["collections"] >= 2
    db.renamed.drop()
    client.drop_database("scratch")
    for command in ["buildInfo", "hostInfo", "getCmdLineOpts", "connectionStatus", "serverStatus", "listCommands",
                    "whatsmyuri"]:
        assert client.admin.command(command)["ok"] == 1, command
    assert client.admin.command("getLog", "startupWarnings")["ok"] == 1
    assert client.admin.command("getParameter", 1, featureCompatibilityVersion=1)["featureCompatibilityVersion"]
    assert client.admin.command("serverStatus")["connections"]["current"] >= 1
    hello = client.admin.command("hello")
    assert hello["setName"] and hello["isWritablePrimary"] and hello["maxWireVersion"] == 21
    assert hello["logicalSessionTimeoutMinutes"] == 30 and "topologyVersion" in hello


def errors():
    people = db.people
    people.drop()
    people.create_index("email", unique=True)
    people.insert_one({"_id": 1, "email": "a@example.com"})
    try:
        people.insert_one({"_id": 2, "email": "a@example.com"})
        raise AssertionError("the duplicate was inserted")
    except DuplicateKeyError as error:
        assert error.code == 11000
        assert error.details["keyPattern"] == {"email": 1}, error.details
        assert error.details["keyValue"] == {"email": "a@example.com"}, error.details
    try:
        db.plain.drop()
        db.plain.insert_one({"_id": 1})
        db.plain.insert_many([{"_id": 3}, {"_id": 1}, {"_id": 4}], ordered=False)
        raise AssertionError("the duplicate _id was inserted")
    except BulkWriteError as error:
        details = error.details
        assert details["nInserted"] == 2, details
        assert [(e["index"], e["code"]) for e in details["writeErrors"]] == [(1, 11000)], details
        assert details["writeErrors"][0]["keyPattern"] == {"_id": 1}
    try:
        people.insert_one({"_id": 3, "email": "b@example.com"})
        people.update_one({"_id": 3}, {"$set": {"email": "a@example.com"}})
        raise AssertionError("the update made a duplicate")
    except DuplicateKeyError as error:
        assert error.code == 11000
    try:
        people.update_one({"_id": 3}, {"$bogus": {"x": 1}})
        raise AssertionError("an unknown operator was accepted")
    except OperationFailure as error:
        assert error.code != 0 and error.details.get("errmsg")
    try:
        db.command("noSuchCommand")
        raise AssertionError("an unknown command was answered")
    except OperationFailure as error:
        assert error.code == 59 and error.details["codeName"] == "CommandNotFound"
    try:
        people.find_one({}, hint="no_such_index")
        raise AssertionError("a hint of no index was accepted")
    except OperationFailure as error:
        assert error.code == 2


def cursors():
    items = db.items
    items.drop()
    items.insert_many([{"i": i} for i in range(1000)])
    seen = [d["i"] for d in items.find({}, batch_size=7).sort("i", 1)]
    assert seen == list(range(1000))
    cursor = items.find({}, batch_size=10)
    assert next(cursor)["i"] is not None
    cursor_id = cursor.cursor_id
    assert cursor_id != 0
    cursor.close()
    reply = db.command("killCursors", "items", cursors=[bson.int64.Int64(cursor_id)])
    assert reply["cursorsNotFound"] == [cursor_id], reply
    assert len(list(items.find({}, batch_size=0, limit=5))) == 5
    single = db.command("find", "items", batchSize=3, singleBatch=True)
    assert single["cursor"]["id"] == 0 and len(single["cursor"]["firstBatch"]) == 3
    total = sum(1 for _ in items.aggregate([{"$match": {"i": {"$gte": 500}}}], batchSize=50))
    assert total == 500
    try:
        db.command("getMore", bson.int64.Int64(12345), collection="items")
        raise AssertionError("an unknown cursor was read")
    except OperationFailure as error:
        assert error.code == 43


def frame(request_id, command, flags=0):
    body = bson.encode(command)
    payload = struct.pack("<I", flags) + b"\x00" + body
    return struct.pack("<iiii", 16 + len(payload), request_id, 0, 2013) + payload


def read_reply(sock):
    header = b""
    while len(header) < 16:
        chunk = sock.recv(16 - len(header))
        assert chunk, "the server closed the connection"
        header += chunk
    length = struct.unpack("<i", header[:4])[0]
    rest = b""
    while len(rest) < length - 16:
        chunk = sock.recv(length - 16 - len(rest))
        assert chunk, "the server closed the connection"
        rest += chunk
    assert struct.unpack("<i", header[12:16])[0] == 2013
    return bson.decode(rest[5:])


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def retry():
    """A retryable write sent, its connection dropped before the answer, then sent again: applied once."""
    port = int(argument)
    db.retried.drop()
    lsid = {"id": bson.Binary(b"0123456789abcdef", 4)}
    insert = {"insert": "retried", "documents": [{"_id": 1, "v": "first"}], "lsid": lsid,
              "txnNumber": bson.int64.Int64(1), "$db": "wiretests"}
    lost = connect(port)
    lost.sendall(frame(1, insert))
    time.sleep(0.2)
    lost.close()
    again = connect(port)
    again.sendall(frame(2, insert))
    reply = read_reply(again)
    assert reply["ok"] == 1 and reply["n"] == 1 and "writeErrors" not in reply, reply
    update = {"update": "retried", "updates": [{"q": {"_id": 1}, "u": {"$inc": {"count": 1}}}], "lsid": lsid,
              "txnNumber": bson.int64.Int64(2), "$db": "wiretests"}
    for request_id in (3, 4):
        again.sendall(frame(request_id, update))
        assert read_reply(again)["nModified"] == 1
    assert db.retried.find_one({"_id": 1})["count"] == 1
    # A new txnNumber is a new write: the same insert now fails as a duplicate.
    insert["txnNumber"] = bson.int64.Int64(3)
    again.sendall(frame(5, insert))
    assert read_reply(again)["writeErrors"][0]["code"] == 11000
    # pymongo's own retryable writes, through its session machinery.
    with client.start_session() as session:
        db.retried.insert_one({"_id": 2}, session=session)
    assert db.retried.count_documents({}) == 2


def malformed():
    """Bad frames get an error reply or a closed connection; the server keeps serving."""
    port = int(argument)
    sock = connect(port)
    sock.sendall(frame(1, {"ping": 1}, flags=1 << 5))
    assert read_reply(sock)["ok"] == 0
    sock.sendall(frame(2, {"ping": 1}))
    assert "$db" in read_reply(sock)["errmsg"]
    bad = frame(3, {"ping": 1, "$db": "admin"})
    sock.sendall(bad[:21] + b"\x07" + bad[22:])
    assert read_reply(sock)["ok"] == 0
    sock.close()
    huge = connect(port)
    huge.sendall(struct.pack("<iiii", 60_000_000, 1, 0, 2013))
    assert huge.recv(1) == b"", "an oversized message was read"
    huge.close()
    assert client.admin.command("ping")["ok"] == 1


def change_stream():
    events = db.events
    events.drop()
    db.create_collection("events", changeStreamPreAndPostImages={"enabled": True})
    # fullDocumentBeforeChange came with pymongo 4; 3.11 sends the rest.
    images = {"full_document_before_change": "whenAvailable"} if pymongo.version_tuple[0] >= 4 else {}
    with events.watch(full_document="updateLookup", max_await_time_ms=200, **images) as stream:
        assert stream.try_next() is None
        assert stream.resume_token is not None
        events.insert_one({"_id": 1, "v": 1})
        events.update_one({"_id": 1}, {"$set": {"v": 2}})
        seen = []

        def take(count):
            while len(seen) < count:
                event = stream.try_next()
                if event is not None:
                    seen.append(event)

        # updateLookup reads the document when the server's cursor reaches the event, so the update is read
        # before the delete that would leave it nothing to look up.
        take(2)
        events.delete_one({"_id": 1})
        take(3)
        assert [e["operationType"] for e in seen] == ["insert", "update", "delete"]
        assert seen[1]["fullDocument"] == {"_id": 1, "v": 2}
        if images:
            assert seen[1]["fullDocumentBeforeChange"] == {"_id": 1, "v": 1}
        assert seen[1]["updateDescription"]["updatedFields"] == {"v": 2}
        token = seen[0]["_id"]
    # Resumed after the delete, the update's lookup finds nothing: MongoDB answers a null full document.
    with events.watch(resume_after=token, full_document="updateLookup") as stream:
        update = next(stream)
        assert update["operationType"] == "update" and update["fullDocument"] is None
    with db.watch(max_await_time_ms=200) as stream:
        db.other.insert_one({"x": 1})
        assert next(stream)["ns"] == {"db": "wiretests", "coll": "other"}
    with client.watch(max_await_time_ms=200) as stream:
        client.elsewhere.things.insert_one({"x": 1})
        assert next(stream)["ns"] == {"db": "elsewhere", "coll": "things"}


def expanded_events():
    """A stream opened with show_expanded_events (pymongo 4.2 on) sees create and createIndexes, shaped as MongoDB 7
    shapes them; a stream without it sees only the insert."""
    db.drop_collection("ddl")
    with db.watch(show_expanded_events=True, max_await_time_ms=200) as expanded, \
            db.watch(max_await_time_ms=200) as plain:
        db.create_collection("ddl")
        db.ddl.create_index([("title", pymongo.ASCENDING)], unique=True)
        db.ddl.insert_one({"_id": 1})
        seen = []
        # Bounded, so a server that leaves the events out fails the assertion below instead of waiting forever.
        for _ in range(100):
            if len(seen) == 3:
                break
            event = expanded.try_next()
            if event is not None:
                seen.append(event)
        assert [e["operationType"] for e in seen] == ["create", "createIndexes", "insert"], seen
        assert all(e["ns"] == {"db": "wiretests", "coll": "ddl"} for e in seen), seen
        assert seen[0]["operationDescription"] == {"idIndex": {"v": 2, "key": {"_id": 1}, "name": "_id_"}}, seen[0]
        assert seen[1]["operationDescription"] == {
            "indexes": [{"v": 2, "key": {"title": 1}, "name": "title_1", "unique": True}]}, seen[1]
        assert next(plain)["operationType"] == "insert"


def history_lost():
    """The server keeps only the last few events: resuming from before them fails with ChangeStreamHistoryLost."""
    with db.events.watch() as stream:
        first = stream.resume_token
    for i in range(20):
        db.events.insert_one({"n": i})
    try:
        with db.events.watch(resume_after=first) as stream:
            stream.try_next()
        raise AssertionError("a resume before the kept history was accepted")
    except OperationFailure as error:
        assert error.code == 286 and error.details["codeName"] == "ChangeStreamHistoryLost", error.details


def before_crash():
    """Reads the first five events of a stream, then writes five more without reading them; prints the token of the
    last event read, from which the stream resumes after the server is killed."""
    with db.events.watch(max_await_time_ms=100) as stream:
        for i in range(1, 11):
            db.events.insert_one({"_id": i})
        seen = []
        while len(seen) < 5:
            event = stream.try_next()
            if event is not None:
                seen.append(event["documentKey"]["_id"])
        assert seen == [1, 2, 3, 4, 5], seen
        print("token", stream.resume_token["_data"])


def after_crash():
    """Resumes from the token before_crash printed: the five events it left unread come, in order, then new ones."""
    with db.events.watch(resume_after={"_data": argument}, max_await_time_ms=100) as stream:
        db.events.insert_one({"_id": 11})
        seen = []
        while len(seen) < 6:
            event = stream.try_next()
            if event is not None:
                seen.append(event["documentKey"]["_id"])
        assert seen == [6, 7, 8, 9, 10, 11], seen


def transactions():
    """pymongo's transactions: all or nothing, the transaction reads its own writes, nobody else sees them before the
    commit, and its change events come at the commit with its lsid and txnNumber."""
    accounts = db.accounts
    accounts.drop()
    accounts.insert_many([{"_id": "ann", "balance": 100}, {"_id": "ben", "balance": 0}])
    with accounts.watch(max_await_time_ms=100) as stream, client.start_session() as session:
        with session.start_transaction():
            accounts.update_one({"_id": "ann"}, {"$inc": {"balance": -30}}, session=session)
            accounts.update_one({"_id": "ben"}, {"$inc": {"balance": 30}}, session=session)
            accounts.insert_one({"_id": "cid", "balance": 7}, session=session)
            assert accounts.find_one({"_id": "ann"}, session=session)["balance"] == 70
            assert sorted(d["_id"] for d in accounts.find({}, session=session)) == ["ann", "ben", "cid"]
            assert accounts.count_documents({"balance": {"$gt": 5}}, session=session) == 3
            assert sorted(accounts.distinct("balance", session=session)) == [7, 30, 70]
            # Outside the transaction: what was committed before it.
            assert accounts.find_one({"_id": "ann"})["balance"] == 100
            assert accounts.find_one({"_id": "cid"}) is None
            assert stream.try_next() is None
        assert accounts.find_one({"_id": "ann"})["balance"] == 70
        assert accounts.find_one({"_id": "cid"})["balance"] == 7
        seen = []
        while len(seen) < 3:
            event = stream.try_next()
            if event is not None:
                seen.append(event)
        assert [e["operationType"] for e in seen] == ["update", "update", "insert"], seen
        # pymongo 3.11 decodes the lsid's UUID as uuid.UUID and keeps its own as a Binary: compared as bytes.
        def uuid_bytes(value):
            return value.bytes if isinstance(value, uuid.UUID) else bytes(value)
        assert all(uuid_bytes(e["lsid"]["id"]) == uuid_bytes(session.session_id["id"]) for e in seen), seen
        assert len({e["txnNumber"] for e in seen}) == 1, seen
        assert seen[2]["fullDocument"] == {"_id": "cid", "balance": 7}
        # An exception inside the block aborts: none of its writes stay.
        try:
            with session.start_transaction():
                accounts.insert_one({"_id": "dan", "balance": 1}, session=session)
                accounts.update_one({"_id": "ann"}, {"$set": {"balance": 0}}, session=session)
                raise KeyError("stop")
        except KeyError:
            pass
        assert accounts.find_one({"_id": "dan"}) is None and accounts.find_one({"_id": "ann"})["balance"] == 70
        # A failing statement aborts the whole transaction: the commit finds none.
        session.start_transaction()
        accounts.insert_one({"_id": "eve"}, session=session)
        try:
            accounts.insert_one({"_id": "ann"}, session=session)
            raise AssertionError("the duplicate was inserted")
        except DuplicateKeyError:
            pass
        try:
            session.commit_transaction()
            raise AssertionError("an aborted transaction committed")
        except OperationFailure as error:
            assert error.code == 251 and error.has_error_label("TransientTransactionError"), error.details
        assert accounts.find_one({"_id": "eve"}) is None
        # with_transaction: pymongo's callback form, committed once.
        session.with_transaction(lambda s: accounts.insert_one({"_id": "fay"}, session=s))
        assert accounts.find_one({"_id": "fay"}) is not None
        # A transaction may create its collection by writing to it.
        db.fresh.drop()
        with session.start_transaction():
            db.fresh.insert_one({"_id": 1}, session=session)
        assert db.fresh.find_one({"_id": 1}) == {"_id": 1}
    try:
        with client.start_session() as other, other.start_transaction():
            accounts.count_documents({}, session=other)
            db.command("count", "accounts", session=other)
            raise AssertionError("count ran in a transaction")
    except OperationFailure as error:
        assert error.code == 263 and error.details["codeName"] == "OperationNotSupportedInTransaction"


def transaction_commands():
    """The transaction commands as sent on the wire, and MongoDB's errors for the wrong ones."""
    sock = connect(int(argument))
    lsid = {"id": bson.Binary(b"fedcba9876543210", 4)}
    request_ids = iter(range(1, 100))

    def run(command, **fields):
        message = dict(command, lsid=lsid, **fields)
        message["$db"] = message.get("$db", "wiretests")
        sock.sendall(frame(next(request_ids), message))
        return read_reply(sock)

    def txn(number):
        return {"txnNumber": bson.int64.Int64(number), "autocommit": False}

    db.wired.drop()
    reply = run({"insert": "wired", "documents": [{"_id": 1}]}, startTransaction=True, **txn(5))
    assert reply["ok"] == 1 and reply["n"] == 1, reply
    assert run({"find": "wired", "filter": {}}, **txn(5))["cursor"]["firstBatch"] == [{"_id": 1}]
    reply = run({"commitTransaction": 1, "$db": "admin"}, **txn(5))
    assert reply["ok"] == 1, reply
    # A commit sent again (its answer lost) is answered again.
    assert run({"commitTransaction": 1, "$db": "admin"}, **txn(5))["ok"] == 1
    reply = run({"insert": "wired", "documents": [{"_id": 2}]}, **txn(5))
    assert (reply["ok"], reply["code"], reply["codeName"]) == (0, 256, "TransactionCommitted"), reply
    reply = run({"abortTransaction": 1, "$db": "admin"}, **txn(5))
    assert reply["code"] == 256, reply
    reply = run({"commitTransaction": 1, "$db": "admin"}, **txn(6))
    assert (reply["code"], reply["codeName"]) == (251, "NoSuchTransaction"), reply
    assert reply["errorLabels"] == ["TransientTransactionError"], reply
    reply = run({"insert": "wired", "documents": [{"_id": 3}]}, startTransaction=True, **txn(4))
    assert (reply["code"], reply["codeName"]) == (225, "TransactionTooOld"), reply
    reply = run({"insert": "wired", "documents": [{"_id": 3}]}, startTransaction=True, **txn(7))
    assert reply["ok"] == 1, reply
    assert run({"abortTransaction": 1, "$db": "admin"}, **txn(7))["ok"] == 1
    reply = run({"abortTransaction": 1, "$db": "admin"}, **txn(7))
    assert reply["code"] == 251, reply
    assert db.wired.find_one({"_id": 3}) is None
    reply = run({"insert": "wired", "documents": [{"_id": 4}]}, txnNumber=bson.int64.Int64(8), autocommit=True)
    assert (reply["ok"], reply["codeName"]) == (0, "InvalidOptions"), reply
    reply = run({"commitTransaction": 1, "$db": "admin"})
    assert reply["ok"] == 0, reply
    # A session's newer transaction ends its open older one.
    assert run({"insert": "wired", "documents": [{"_id": 5}]}, startTransaction=True, **txn(9))["ok"] == 1
    assert run({"insert": "wired", "documents": [{"_id": 6}]}, startTransaction=True, **txn(10))["ok"] == 1
    assert run({"commitTransaction": 1, "$db": "admin"}, **txn(9))["code"] == 225
    assert run({"commitTransaction": 1, "$db": "admin"}, **txn(10))["ok"] == 1
    assert [d["_id"] for d in db.wired.find().sort("_id", 1)] == [1, 6]
    # endSessions aborts the session's open transaction.
    assert run({"insert": "wired", "documents": [{"_id": 7}]}, startTransaction=True, **txn(11))["ok"] == 1
    assert run({"endSessions": [lsid], "$db": "admin"})["ok"] == 1
    db.wired.insert_one({"_id": 8})
    assert db.wired.find_one({"_id": 7}) is None
    sock.close()


def transaction_expiry():
    """A transaction never committed holds the writer only until its lifetime limit (the server's, five seconds here):
    then it is aborted, the write waiting behind it goes through, and its commit fails with NoSuchTransaction."""
    with client.start_session() as session:
        session.start_transaction()
        db.expiring.insert_one({"_id": "held"}, session=session)
        db.expiring.insert_one({"_id": "waiting"})
        try:
            session.commit_transaction()
            raise AssertionError("an expired transaction committed")
        except OperationFailure as error:
            assert error.code == 251, error.details
    assert [d["_id"] for d in db.expiring.find()] == ["waiting"]


def collmod():
    """collMod turns pre- and post-images on and off; a stream started at an operation time begins with the event
    of that time."""
    notes = db.notes
    notes.drop()
    notes.insert_one({"_id": 1, "v": 0})
    assert db.command("collMod", "notes", changeStreamPreAndPostImages={"enabled": True})["ok"] == 1
    for attempt, (bad, code) in enumerate([({"validator": {"v": {"$type": "int"}}}, 72), ({"bogus": 1}, 40415)]):
        try:
            db.command("collMod", "notes", **bad)
            raise AssertionError("collMod took %s" % bad)
        except OperationFailure as error:
            assert error.code == code, error.details
    try:
        db.command("collMod", "no_such_collection", changeStreamPreAndPostImages={"enabled": True})
        raise AssertionError("collMod of a missing collection succeeded")
    except OperationFailure as error:
        assert error.code == 26, error.details
    with notes.watch(max_await_time_ms=100) as stream:
        notes.update_one({"_id": 1}, {"$set": {"v": 1}})
        db.command("collMod", "notes", changeStreamPreAndPostImages={"enabled": False})
        notes.update_one({"_id": 1}, {"$set": {"v": 2}})
        notes.update_one({"_id": 1}, {"$set": {"v": 3}})
        seen = []
        while len(seen) < 3:
            event = stream.try_next()
            if event is not None:
                seen.append(event)
    if pymongo.version_tuple[0] >= 4:
        with notes.watch(resume_after=seen[0]["_id"], full_document_before_change="whenAvailable",
                         max_await_time_ms=100) as stream:
            assert next(stream)["fullDocumentBeforeChange"] is None
        before = seen[0]["_id"]
        notes.database.command("collMod", "notes", changeStreamPreAndPostImages={"enabled": True})
        notes.update_one({"_id": 1}, {"$set": {"v": 4}})
        with notes.watch(resume_after=before, full_document_before_change="whenAvailable") as stream:
            images = [next(stream).get("fullDocumentBeforeChange") for _ in range(3)]
        assert images == [None, None, {"_id": 1, "v": 3}], images
    # startAtOperationTime: the second update's clusterTime starts the stream at that update.
    with notes.watch(start_at_operation_time=seen[1]["clusterTime"], max_await_time_ms=100) as stream:
        assert next(stream)["updateDescription"]["updatedFields"] == {"v": 2}
        assert next(stream)["updateDescription"]["updatedFields"] == {"v": 3}
    try:
        both = {"startAtOperationTime": seen[1]["clusterTime"], "resumeAfter": seen[0]["_id"]}
        db.command("aggregate", "notes", pipeline=[{"$changeStream": both}], cursor={})
        raise AssertionError("two resume options were accepted")
    except OperationFailure as error:
        assert error.code == 40674, error.details


def pipeline_writes():
    """Pipeline-style updates (update_one/update_many/find_one_and_update with a list of stages) and $out/$merge."""
    scores = db.scores
    scores.drop()
    scores.insert_many([{"_id": 1, "a": 2, "b": 3, "old": True}, {"_id": 2, "a": 5, "b": 1, "old": True}])
    with scores.watch(max_await_time_ms=100) as stream:
        result = scores.update_many({}, [{"$set": {"sum": {"$add": ["$a", "$b"]}}}, {"$unset": "old"}])
        assert (result.matched_count, result.modified_count) == (2, 2)
        assert list(scores.find().sort("_id", 1)) == [{"_id": 1, "a": 2, "b": 3, "sum": 5},
                                                     {"_id": 2, "a": 5, "b": 1, "sum": 6}]
        event = stream.next()
        assert event["operationType"] == "update", event
        assert event["updateDescription"]["updatedFields"] == {"sum": 5}, event
        assert event["updateDescription"]["removedFields"] == ["old"], event
    assert scores.update_one({"_id": 1}, [{"$set": {"a": 2}}]).modified_count == 0
    # Inside a transaction the statement joins it instead of waiting for the writer the transaction holds.
    with client.start_session() as session, session.start_transaction():
        scores.update_one({"_id": 1}, [{"$set": {"t": True}}], session=session)
        scores.update_one({"_id": 1}, [{"$unset": "t"}], session=session)
        assert "t" not in scores.find_one({"_id": 1}, session=session)
    result = scores.update_one({"_id": 3}, [{"$set": {"a": {"$literal": 9}}}], upsert=True)
    assert result.upserted_id == 3 and scores.find_one({"_id": 3}) == {"_id": 3, "a": 9}
    after = scores.find_one_and_update({"_id": 2}, [{"$set": {"a": {"$multiply": ["$a", 10]}}}],
                                       projection={"a": 1}, return_document=pymongo.ReturnDocument.AFTER)
    assert after == {"_id": 2, "a": 50}, after
    try:
        scores.update_one({"_id": 1}, [{"$match": {"a": 1}}])
        raise AssertionError("$match was accepted in an update")
    except OperationFailure as error:
        assert error.code == 72, error.details
    try:
        scores.update_one({"_id": 1}, [{"$set": {"_id": 10}}])
        raise AssertionError("the _id was changed")
    except OperationFailure as error:
        assert error.code == 66, error.details
    # $out replaces the target's documents with the pipeline's output.
    db.totals.drop()
    db.totals.insert_one({"_id": "stale"})
    assert list(scores.aggregate([{"$match": {"sum": {"$exists": True}}}, {"$project": {"sum": 1}},
                                  {"$out": "totals"}])) == []
    assert list(db.totals.find().sort("_id", 1)) == [{"_id": 1, "sum": 5}, {"_id": 2, "sum": 6}]
    # $merge: matched documents merged, new ones inserted.
    scores.aggregate([{"$project": {"a": 1}}, {"$merge": {"into": "totals", "whenMatched": "merge"}}])
    assert list(db.totals.find().sort("_id", 1)) == [
        {"_id": 1, "sum": 5, "a": 2}, {"_id": 2, "sum": 6, "a": 50}, {"_id": 3, "a": 9}]
    scores.aggregate([{"$project": {"b": 1}}, {"$merge": {"into": {"db": "wiretests", "coll": "totals"},
                                                          "whenMatched": "replace", "whenNotMatched": "discard"}}])
    assert db.totals.find_one({"_id": 1}) == {"_id": 1, "b": 3}
    # A whenMatched pipeline updates the matched document; $$new is the incoming one, and `let` names others.
    with db.totals.watch(max_await_time_ms=100) as stream:
        scores.aggregate([{"$project": {"a": 1}}, {"$merge": {"into": "totals", "whenNotMatched": "discard",
            "whenMatched": [{"$set": {"total": {"$add": [{"$ifNull": ["$b", 0]}, "$$new.a"]}}}]}}])
        event = stream.next()
        assert event["operationType"] == "update", event
        assert event["updateDescription"]["updatedFields"] == {"total": 5}, event
    assert list(db.totals.find().sort("_id", 1)) == [
        {"_id": 1, "b": 3, "total": 5}, {"_id": 2, "b": 1, "total": 51}, {"_id": 3, "total": 9}]
    scores.aggregate([{"$merge": {"into": "totals", "let": {"doubled": {"$multiply": ["$a", 2]}},
                                  "whenMatched": [{"$set": {"doubled": "$$doubled"}}, {"$unset": "total"}]}}])
    assert list(db.totals.find().sort("_id", 1)) == [
        {"_id": 1, "b": 3, "doubled": 4}, {"_id": 2, "b": 1, "doubled": 100}, {"_id": 3, "doubled": 18}]
    try:
        scores.aggregate([{"$merge": {"into": "totals", "whenMatched": [{"$match": {}}]}}])
        raise AssertionError("$match was accepted in a whenMatched pipeline")
    except OperationFailure as error:
        assert error.code == 72, error.details
    try:
        scores.aggregate([{"$merge": "totals"}, {"$match": {}}])
        raise AssertionError("$merge in the middle was accepted")
    except OperationFailure as error:
        assert error.code == 40601, error.details


def insert_book():
    client.get_database(argument).book.insert_one({"title": "Wire Protocol Book", "author": "Driver"})


{"crud": crud, "errors": errors, "cursors": cursors, "retry": retry, "malformed": malformed,
 "change_stream": change_stream, "expanded_events": expanded_events, "history_lost": history_lost, "before_crash": before_crash,
 "after_crash": after_crash, "transactions": transactions, "transaction_commands": transaction_commands,
 "transaction_expiry": transaction_expiry, "collmod": collmod, "pipeline_writes": pipeline_writes,
 "insert_book": insert_book}[scenario]()
print("ok", scenario)
