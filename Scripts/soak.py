#!/usr/bin/env python3
"""Soak test of `switchyard serve` on the example app: sustained load, then the triggers' catch-up, with the
server's RSS (VmRSS) printed before, during and after beside its bound; exits 1 when a sample exceeds it.

    Scripts/soak.py SWITCHYARD_BINARY [--clients 64] [--seconds 60] [--bound-mb 100] [--readers 2]

Each client logs in anonymously once (a bounded set of users, so login rate limits never refuse it), then loops:
a book update (which queues one notification per favourite reader), `updateFCMUserToken`, and every 50 requests
a session refresh. The app's data access rules let only the system write books, so the updates go through the
admin API's document endpoint on the same server, as a back office would send them. Catch-up ends when every trigger has
nothing pending (then no queued notification may be left unsent); its rate is notifications sent per second.
Loopback only; the load and the catch-up are bounded in time.

Every reader marks every book as a favourite, so each book update queues `--readers` notifications. The default,
2, is the tutorial's data (its seeded reader favours two books) and the fan-out issue 19's probe saw (45,700
notifications from 64 clients × 60 s at 946 req/s, about 1.6 per book update); 50 readers a book queued some 40
times that, a backlog no tutorial app meets, which measured the catch-up's length rather than the server's memory.
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

APP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APP_ID = "switchyard-app"
CLIENT = f"/api/client/v2.0/app/{APP_ID}"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Connection:
    """One keep-alive HTTP/1.1 connection to the server, reconnecting when the server closes it."""

    def __init__(self, port):
        self.port = port
        self.http = None

    def request(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        for attempt in range(2):
            try:
                if self.http is None:
                    self.http = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                self.http.request(method, path, body=data, headers=headers)
                response = self.http.getresponse()
                payload = response.read()
                return response.status, payload
            except (ConnectionError, http.client.HTTPException, OSError):
                self.http = None
                if attempt == 1:
                    raise
        raise RuntimeError("unreachable")


def write_app(directory, books, readers):
    """The example app's configuration with a seed of `books` books, each the favourite of `readers` registered
    readers with a device token."""
    for name in ("triggers.yaml", "values.json"):
        shutil.copy(os.path.join(APP, name), directory)
    shutil.copytree(os.path.join(APP, "data_sources"), os.path.join(directory, "data_sources"))
    seed = os.path.join(directory, "seed")
    os.mkdir(seed)
    book_ids = [f"64b0000000000000000{index:05d}" for index in range(books)]
    with open(os.path.join(seed, "product.book.json"), "w") as out:
        for index, oid in enumerate(book_ids):
            out.write(json.dumps({"_id": {"$oid": oid}, "volumeInfo": {"title": f"Book {index}"}}) + "\n")
    with open(os.path.join(seed, "product.user.json"), "w") as users, open(
        os.path.join(seed, "product.customUserData.json"), "w"
    ) as data:
        for index in range(readers):
            user = f"soak-reader-{index}"
            users.write(
                json.dumps(
                    {"_id": user, "registered": True, "favoriteBooks": [{"$oid": oid} for oid in book_ids]}
                )
                + "\n"
            )
            token = f"soakReader{index:04d}:APA91b" + "x" * 140
            data.write(json.dumps({"userId": user, "FCMToken": [token]}) + "\n")
    return seed, book_ids


def admin_get(port, token, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/admin/v1" + path, headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"admin {path}: {response.status} {body[:200]!r}")
    return json.loads(body)


def queued_count(port, admin):
    """Notifications queued so far (the seed queues none)."""
    return admin_get(port, admin, "/databases/product/collections/pushNotification/documents?limit=1")["count"]


def unprocessed_count(port, admin):
    path = "/databases/product/collections/pushNotification/documents?limit=1&filter=%7B%22processed%22%3Afalse%7D"
    return admin_get(port, admin, path)["count"]


def trigger_statuses(port, admin):
    listed = admin_get(port, admin, "/triggers")
    triggers = listed["triggers"] if isinstance(listed, dict) else listed
    return {trigger["name"]: trigger for trigger in triggers}


def idle(statuses):
    return all((t.get("pendingLogEntries") or 0) == 0 and (t.get("inFlight") or 0) == 0 for t in statuses.values())


def sent(statuses):
    """Notifications sent so far: the events `onSentPushNotification` processed (one per queued notification)."""
    return statuses.get("onSentPushNotification", {}).get("processed", 0)


def client_loop(port, index, book_ids, deadline, counts, lock, admin):
    connection = Connection(port)
    status, body = connection.request("POST", f"{CLIENT}/auth/providers/anon-user/login", {})
    if status != 200:
        raise RuntimeError(f"client {index}: anonymous login answered {status} {body[:200]!r}")
    session = json.loads(body)
    access, refresh = session["access_token"], session["refresh_token"]
    device = f"soakClient{index:04d}:APA91b" + "y" * 140
    done = errors = 0
    while time.monotonic() < deadline:
        step = done % 50
        if step == 49:
            status, body = connection.request("POST", "/api/client/v2.0/auth/session", token=refresh)
            if status == 201:
                access = json.loads(body)["access_token"]
        elif step % 2 == 0:
            book = book_ids[(index + done) % len(book_ids)]
            update = {
                "filter": {"_id": {"$oid": book}},
                "update": {"$set": {"volumeInfo.title": f"Book {book[-5:]} edition {done}"}},
            }
            status, body = connection.request(
                "POST", "/admin/v1/databases/product/collections/book/update", update, token=admin)
        else:
            call = {"name": "updateFCMUserToken", "arguments": [device, "add"]}
            status, body = connection.request("POST", f"{CLIENT}/functions/call", call, token=access)
        done += 1
        if status >= 300:
            errors += 1
            if errors <= 3:
                print(f"  client {index}: {status} {body[:160]!r}", flush=True)
    with lock:
        counts[0] += done
        counts[1] += errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--bound-mb", type=float, default=100)
    parser.add_argument("--books", type=int, default=20)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--wrapper", default="", help="a command to run the server under (heaptrack, valgrind)")
    parser.add_argument("--catch-up-limit", type=float, default=600, help="seconds the catch-up may take at most")
    parser.add_argument("--rate-interval", type=float, default=30, help="seconds between drain rate reports")
    options = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="switchyard-soak-")
    seed, book_ids = write_app(directory, options.books, options.readers)
    port = free_port()
    log = open(os.path.join(directory, "serve.log"), "w")
    server = subprocess.Popen(
        options.wrapper.split() + [options.binary, "serve", "--config", directory, "--port", str(port), "--import", seed],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    failed = False
    try:
        admin_file = os.path.join(directory, ".switchyard", "admin.token")
        started = time.monotonic()
        while not os.path.exists(admin_file) or not Connection(port).request("GET", f"{CLIENT}/location")[0] == 200:
            if server.poll() is not None or time.monotonic() - started > 60:
                raise RuntimeError(f"switchyard serve did not start; see {log.name}")
            time.sleep(0.2)
        admin = open(admin_file).read().strip()
        while not idle(trigger_statuses(port, admin)):
            time.sleep(0.2)
        before = rss_mb(server.pid)
        bound = options.bound_mb
        print(f"soak: {options.clients} clients for {options.seconds:g} s, {options.books} books "
              f"× {options.readers} favourite readers; RSS bound {bound:g} MB", flush=True)
        print(f"  RSS before: {before:.1f} MB", flush=True)

        counts, lock = [0, 0], threading.Lock()
        deadline = time.monotonic() + options.seconds
        threads = [
            threading.Thread(
                target=client_loop, args=(port, index, book_ids, deadline, counts, lock, admin), daemon=True
            )
            for index in range(options.clients)
        ]
        load_started = time.monotonic()
        for thread in threads:
            thread.start()
        peak_during = 0.0
        while any(thread.is_alive() for thread in threads):
            peak_during = max(peak_during, rss_mb(server.pid))
            time.sleep(0.5)
        load_seconds = time.monotonic() - load_started
        during = rss_mb(server.pid)
        peak_during = max(peak_during, during)
        sent_before = sent(trigger_statuses(port, admin))
        queued = queued_count(port, admin)
        print(f"  load: {counts[0]} requests in {load_seconds:.1f} s ({counts[0] / load_seconds:.0f} req/s), "
              f"{counts[1]} errors; {queued} notifications queued, {sent_before} sent during it", flush=True)
        print(f"  RSS during: {during:.1f} MB at the end of the load, peak {peak_during:.1f} MB", flush=True)

        # The triggers' own counters say when they are done: a query of the queue would scan it at every poll.
        # They are asked every 2 s (RSS is sampled every 0.5 s), as each status reads up to 256 log entries per
        # trigger to count what is pending.
        catch_up_started = time.monotonic()
        peak_catch_up = 0.0
        idle_polls = 0
        samples = 0
        # The drain rate over each interval shows whether the catch-up slows as it goes (per-entry work that
        # grows with the queue) or keeps the emulator's pace.
        interval_started, interval_sent = catch_up_started, sent_before
        while idle_polls < 2:
            peak_catch_up = max(peak_catch_up, rss_mb(server.pid))
            if samples % 4 == 0:
                statuses = trigger_statuses(port, admin)
                idle_polls = idle_polls + 1 if idle(statuses) else 0
                now = time.monotonic()
                if now - interval_started >= options.rate_interval:
                    total = sent(statuses)
                    print(f"    at {now - catch_up_started:.0f} s: {total - sent_before} sent, "
                          f"{(total - interval_sent) / (now - interval_started):.0f}/s over the last "
                          f"{now - interval_started:.0f} s; RSS {rss_mb(server.pid):.1f} MB", flush=True)
                    interval_started, interval_sent = now, total
            samples += 1
            if time.monotonic() - catch_up_started > options.catch_up_limit:
                print(f"  catch-up: gave up after {options.catch_up_limit:g} s")
                failed = True
                break
            time.sleep(0.5)
        catch_up_seconds = time.monotonic() - catch_up_started
        drained = sent(trigger_statuses(port, admin)) - sent_before
        unsent = unprocessed_count(port, admin)
        after = rss_mb(server.pid)
        peak = max(peak_during, peak_catch_up, after)
        print(f"  catch-up: {drained} notifications sent in {catch_up_seconds:.1f} s "
              f"({drained / max(catch_up_seconds, 0.001):.0f}/s), {unsent} left unsent", flush=True)
        print(f"  RSS after: {after:.1f} MB, peak {peak:.1f} MB (bound {bound:g} MB)", flush=True)
        if unsent > 0:
            print("  FAILED: queued notifications were left unsent")
            failed = True
        if counts[1] > 0:
            print("  FAILED: requests failed during the load")
            failed = True
        if peak > bound:
            print(f"  FAILED: RSS reached {peak:.1f} MB, over the {bound:g} MB bound")
            failed = True
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        if failed:
            print(f"  server log: {log.name}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
