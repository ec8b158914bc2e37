# The wire benchmark's client (Benchmarks/WireBenchmark.swift): one Python process shape for both sides, pymongo
# against `switchyard serve` and psycopg against PostgreSQL, so the figures differ by the server, not the client.
#
#   wire_load.py mongo URI insert|find CLIENTS SECONDS
#   wire_load.py postgresql DSN insert|find CLIENTS SECONDS
#   wire_load.py mongo URI change-stream EVENTS
#
# Throughput runs print one line `ops N seconds S errors E`; the change stream run prints
# `p50 MS p99 MS insert-p99 MS events N`. CLIENTS threads each run their operations back to back until SECONDS
# passed, after a warm-up, all starting together.
import json
import random
import sys
import threading
import time

# A tutorial book (seed/product.book.json's shape), about 600 bytes as BSON.
def book(number):
    return {
        "_partition": "PUBLIC",
        "volumeInfo": {
            "title": f"Pacific Linguistics {number}",
            "authors": ["Australian National University", "Frank Herbert"],
            "publishedDate": "1963",
            "industryIdentifiers": [{"type": "OTHER", "identifier": f"UOM:{39015069017963 + number}"}],
            "readingModes": {"text": False, "image": False},
            "categories": ["Linguistics"],
            "imageLinks": {
                "smallThumbnail": "http://books.google.com/books/content?id=aCVZAAAAMAAJ&printsec=frontcover&img=1&zoom=5&source=gbs_api",
                "thumbnail": "http://books.google.com/books/content?id=aCVZAAAAMAAJ&printsec=frontcover&img=1&zoom=1&source=gbs_api",
            },
            "language": "en",
        },
    }


# How many documents the find runs look up among (inserted before the clock starts).
LOOKUP_DOCUMENTS = 2000


class Mongo:
    def __init__(self, uri, clients):
        import pymongo

        self.client = pymongo.MongoClient(uri, maxPoolSize=max(clients, 1) + 4)
        self.books = self.client.wirebench.books

    def prepare_find(self):
        self.books.drop()
        self.books.insert_many([dict(book(n), _id=n) for n in range(LOOKUP_DOCUMENTS)])

    # Every thread shares the client, as an application's threads share one MongoClient (its pool).
    def worker(self):
        books = self.books

        def insert(number):
            books.insert_one(book(number))

        def find(number):
            if books.find_one({"_id": number % LOOKUP_DOCUMENTS}) is None:
                raise RuntimeError("missing book")

        return insert, find


class PostgreSQL:
    def __init__(self, dsn, clients):
        import psycopg

        self.psycopg = psycopg
        self.dsn = dsn
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute("DROP TABLE IF EXISTS books")
            connection.execute("CREATE TABLE books(id text PRIMARY KEY, doc jsonb NOT NULL)")

    def prepare_find(self):
        with self.psycopg.connect(self.dsn, autocommit=True) as connection:
            with connection.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO books(id, doc) VALUES (%s, %s)",
                    [(str(n), json.dumps(book(n))) for n in range(LOOKUP_DOCUMENTS)],
                )

    # A connection per thread (a psycopg connection runs one statement at a time); autocommit: each INSERT is its
    # own transaction, durable when it returns, as an acknowledged insert_one is.
    def worker(self):
        connection = self.psycopg.connect(self.dsn, autocommit=True, prepare_threshold=0)
        counter = iter(range(10**9))
        prefix = f"{threading.get_ident()}-"

        def insert(number):
            connection.execute(
                "INSERT INTO books(id, doc) VALUES (%s, %s)", (prefix + str(next(counter)), json.dumps(book(number)))
            )

        def find(number):
            if connection.execute("SELECT doc FROM books WHERE id = %s", (str(number % LOOKUP_DOCUMENTS),)).fetchone() is None:
                raise RuntimeError("missing book")

        return insert, find


def throughput(side, operation, clients, seconds):
    if operation == "find":
        side.prepare_find()
    ready = threading.Barrier(clients + 1)
    counts = [0] * clients
    errors = [0] * clients
    deadline = [0.0]

    def run(index):
        insert, find = side.worker()
        work = insert if operation == "insert" else find
        rng = random.Random(index)
        for _ in range(20):
            work(rng.randrange(LOOKUP_DOCUMENTS))
        ready.wait()
        done = 0
        while time.perf_counter() < deadline[0]:
            try:
                work(rng.randrange(LOOKUP_DOCUMENTS))
                done += 1
            except Exception as error:
                errors[index] += 1
                if errors[index] == 1:
                    print(f"error: {error!r}", file=sys.stderr)
        counts[index] = done

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    deadline[0] = time.perf_counter() + 3600
    ready.wait()
    start = time.perf_counter()
    deadline[0] = start + seconds
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    print(f"ops {sum(counts)} seconds {elapsed:.3f} errors {sum(errors)}")


# One watcher, one writer: each insert's time from the start of its insert_one (so the commit is inside the figure)
# until the watcher read its event. The writer waits for each event before the next insert, so the figure is one
# event's trip, not a queue's.
def change_stream(uri, events):
    import pymongo

    client = pymongo.MongoClient(uri)
    books = client.wirebench.stream
    books.drop()
    books.insert_one({"warm": True})
    arrived = threading.Event()
    latencies = []
    inserts = []
    started = [0.0]
    with books.watch(max_await_time_ms=1000) as stream:
        def watch():
            for _ in range(events + 1):
                stream.next()
                latencies.append(time.perf_counter() - started[0])
                arrived.set()

        watcher = threading.Thread(target=watch)
        watcher.start()
        for number in range(events + 1):
            arrived.clear()
            started[0] = time.perf_counter()
            books.insert_one(book(number))
            inserts.append(time.perf_counter() - started[0])
            if not arrived.wait(10):
                raise RuntimeError(f"event {number} did not arrive within 10 s")
        watcher.join()
    # The first event pays for the stream's first getMore.
    latencies = sorted(latencies[1:])
    inserts = sorted(inserts[1:])

    def at(values, fraction):
        return values[min(len(values) - 1, int(len(values) * fraction))] * 1000

    print(f"p50 {at(latencies, 0.5):.3f} p99 {at(latencies, 0.99):.3f} insert-p99 {at(inserts, 0.99):.3f} events {len(latencies)}")


def main():
    kind, target, operation = sys.argv[1:4]
    if operation == "change-stream":
        change_stream(target, int(sys.argv[4]))
        return
    clients, seconds = int(sys.argv[4]), float(sys.argv[5])
    side = Mongo(target, clients) if kind == "mongo" else PostgreSQL(target, clients)
    throughput(side, operation, clients, seconds)


main()
