#!/usr/bin/env python3
"""End-to-end protocol test in Python, written from docs/PROTOCOL.md alone.

It starts a real rowcastd on wildcard loopback ports, publishes items over PUSH and DEALER,
keeps a replica from a snapshot plus deltas (the Clone pattern) and checks that the replica
ends identical to the daemon's snapshot, through inserts, moves, section changes, deletes and
a reset, directly and through `rowcast relay`. Every wait is bounded; the daemon is always stopped.
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import zmq

BUILD_DIR = os.environ.get("ROWCAST_BUILD_DIR", ".build/debug")
TIMEOUT_MS = 5000


def topic(name):
    """A topic frame: the name and one NUL byte."""
    return name.encode() + b"\0"


def stop_process(process):
    """SIGTERM, then SIGKILL after 5 s; closes its stdout and returns its exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
    process.stdout.close()
    return process.returncode


class Daemon:
    """A rowcastd process with both real plugins in a private plugin directory."""

    def __init__(self, extra_args=(), extra_plugins=()):
        self.plugins = tempfile.mkdtemp(prefix="rowcast-py-plugins-")
        self.state = tempfile.mkdtemp(prefix="rowcast-py-state-")
        for name in ("librowcast-product.so", "librowcast-advertising.so"):
            shutil.copy(os.path.join(BUILD_DIR, name), self.plugins)
        for build in extra_plugins:
            build(self.plugins)
        self.process = subprocess.Popen(
            [os.path.join(BUILD_DIR, "rowcastd"),
             "--ingest", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*",
             "--publish", "tcp://127.0.0.1:*", "--http", "tcp://127.0.0.1:0", "--plugins", self.plugins, "--state-dir", self.state, "--heartbeat-ms", "200", *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            self._wait_until_ready()
        except BaseException:
            self.stop()  # never leave a daemon behind, whatever went wrong
            raise

    def _wait_until_ready(self):
        self.endpoints = {}
        deadline = time.monotonic() + 20
        buffer = b""
        while time.monotonic() < deadline and not self.endpoints:
            readable, _, _ = select.select([self.process.stdout], [], [], 0.1)
            if readable:
                chunk = os.read(self.process.stdout.fileno(), 4096)
                if not chunk:
                    break
                buffer += chunk
            for line in buffer.decode(errors="replace").splitlines():
                if line.startswith("rowcastd ready "):
                    self.endpoints = dict(field.split("=", 1) for field in line.split()[2:])
        if not self.endpoints:
            raise RuntimeError("rowcastd did not become ready")

    def stop(self):
        stop_process(self.process)
        shutil.rmtree(self.plugins, ignore_errors=True)
        shutil.rmtree(self.state, ignore_errors=True)


def postgresql_binaries():
    """The directory of Debian's PostgreSQL server binaries, or None."""
    import glob
    for directory in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(directory, "initdb"), os.X_OK):
            return directory
    return None


def postgresql_tests_enabled():
    """Whether the cluster classes run: always under CI (CI=true, where a missing server fails
    them, as it fails the Swift suites), else only when PostgreSQL is installed."""
    return os.environ.get("CI") == "true" or postgresql_binaries() is not None


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgreSQLServer:
    """A throwaway PostgreSQL server: initdb and postgres as the `postgres` user (PostgreSQL
    refuses root) in a temporary directory, on a free loopback port; stopped and removed."""

    def __init__(self):
        self.bin = postgresql_binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (make deps installs it); CI=true runs need it")
        self.directory = tempfile.mkdtemp(prefix="rowcast-py-pg-")
        self.port = free_port()
        self.as_postgres = ["/usr/sbin/runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        if os.getuid() == 0:
            shutil.chown(self.directory, "postgres")
        data = os.path.join(self.directory, "data")
        subprocess.run(self.as_postgres + [os.path.join(self.bin, "initdb"), "-D", data, "-U", "postgres",
                                           "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        self.log = open(os.path.join(self.directory, "server.log"), "wb")
        self.process = subprocess.Popen(
            self.as_postgres + [os.path.join(self.bin, "postgres"), "-D", data, "-p", str(self.port),
                                "-k", self.directory, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while subprocess.run([os.path.join(self.bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)],
                             timeout=10).returncode != 0:
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.stop()
                raise RuntimeError("PostgreSQL did not start")
            time.sleep(0.1)
        self.databases = 0

    def make_database(self):
        """A new, empty database; its URL."""
        self.databases += 1
        name = "rowcast_%d" % self.databases
        subprocess.run([os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                        name], check=True, timeout=30)
        return "postgresql://postgres@127.0.0.1:%d/%s" % (self.port, name)

    def stop(self):
        if self.process.poll() is None:
            # pg_ctl as postgres: runuser, the process here, does not pass SIGINT on.
            subprocess.run(self.as_postgres + [os.path.join(self.bin, "pg_ctl"), "-D",
                                               os.path.join(self.directory, "data"), "-w", "-t", "30", "stop",
                                               "-m", "fast"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


class ClusterDaemon:
    """Three rowcastd nodes on one PostgreSQL, reached through the first node (writes and
    queries) and a relay of every node's publish endpoint (subscriptions): the same endpoints a
    `Daemon` offers, so every protocol test runs against the cluster unchanged."""

    def __init__(self, server):
        url = server.make_database()
        self.nodes = []
        self.relay = None
        try:
            for name in ("n1", "n2", "n3"):
                self.nodes.append(Daemon(extra_args=("--store", url, "--node-name", name,
                                                      "--lease-ms", "1500")))
            self._wait_until_settled()
            self.relay = Relay(self.nodes[0], publishes=[node.endpoints["publish"] for node in self.nodes])
        except BaseException:
            self.stop()
            raise
        self.endpoints = dict(self.nodes[0].endpoints, publish=self.relay.endpoints["publish"])

    def _wait_until_settled(self):
        """Until every node holds a share and no partition lacks an owner."""
        context = zmq.Context()
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                settled = True
                for node in self.nodes:
                    dealer = context.socket(zmq.DEALER)
                    dealer.setsockopt(zmq.LINGER, 0)
                    dealer.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
                    dealer.connect(node.endpoints["control"])
                    dealer.send_multipart([b"", b'{"op":"status","req":1}'])
                    cluster = json.loads(dealer.recv_multipart()[1]).get("cluster", {})
                    dealer.close(0)
                    if cluster.get("unowned") != 0 or len(cluster.get("nodes", [])) != 3 or not cluster.get("held"):
                        settled = False
                if settled:
                    return
                time.sleep(0.2)
            raise RuntimeError("the cluster did not settle within 60 s")
        finally:
            context.term()

    def stop(self):
        if self.relay:
            self.relay.stop()
        for node in self.nodes:
            node.stop()


class Replica:
    """A feed replica that applies deltas exactly as docs/PROTOCOL.md says."""

    def __init__(self, snapshot):
        self.seq = snapshot["seq"]
        self.epoch = snapshot["epoch"]
        self.sections = []
        for section in snapshot["sections"]:
            section = dict(section)
            rows = section.pop("rows")
            self.sections.append({"section": section, "rows": rows})

    def accepts(self, delta):
        """True to apply, False to ignore (already included); raises on a gap or epoch change."""
        if delta["seq"] <= self.seq:
            return False
        if self.seq == 0 and self.epoch is None and delta["seq"] == 1:
            return True
        if delta["epoch"] != self.epoch or delta["seq"] != self.seq + 1:
            raise ValueError("gap or new epoch: resync")
        return True

    def apply(self, delta):
        sections, rows = delta["sections"], delta["rows"]
        # Stage 1.1: remove deleted and moved rows by old index path (highest first).
        removals = [(e["at"], e["id"], False) for e in rows["deleted"]]
        removals += [(e["from"], e["id"], True) for e in rows["moved"]]
        moved_rows = {}
        for (s, r), row_id, is_move in sorted(removals, key=lambda x: x[0], reverse=True):
            row = self.sections[s]["rows"].pop(r)
            assert row["id"] == row_id, (row["id"], row_id)
            if is_move:
                moved_rows[row_id] = row
        # Stage 1.2: remove deleted and moved sections by old index.
        removals = [(e["at"], e["id"], False) for e in sections["deleted"]]
        removals += [(e["from"], e["id"], True) for e in sections["moved"]]
        moved_sections = {}
        for index, section_id, is_move in sorted(removals, reverse=True):
            section = self.sections.pop(index)
            assert section["section"]["id"] == section_id
            if is_move:
                moved_sections[section_id] = section
        # Stage 1.3: insert inserted and moved sections at new indexes, ascending.
        inserts = [(e["at"], {"section": e["section"], "rows": e["rows"]}) for e in sections["inserted"]]
        inserts += [(e["to"], moved_sections[e["id"]]) for e in sections["moved"]]
        for index, section in sorted(inserts, key=lambda x: x[0]):
            self.sections.insert(index, section)
        # Stage 1.4: insert inserted and moved rows at new index paths, ascending.
        inserts = [(tuple(e["at"]), e["row"]) for e in rows["inserted"]]
        inserts += [(tuple(e["to"]), moved_rows[e["id"]]) for e in rows["moved"]]
        for (s, r), row in sorted(inserts, key=lambda x: x[0]):
            self.sections[s]["rows"].insert(r, row)
        # Stage 2: contents by new index path.
        for entry in rows["reconfigured"] + rows["reloaded"]:
            s, r = entry["at"]
            assert self.sections[s]["rows"][r]["id"] == entry["id"]
            self.sections[s]["rows"][r] = entry["row"]
        for entry in sections["updated"]:
            self.sections[entry["at"]]["section"] = entry["section"]
        self.seq, self.epoch = delta["seq"], delta["epoch"]

    def as_sections(self):
        return [dict(s["section"], rows=s["rows"]) for s in self.sections]


def product(item_id, name="Tesla Model 3", price=39999, section=None, sort=None):
    item = {"id": item_id, "type": "product",
            "data": {"name": name, "operatedBy": "Tesla", "price": price, "image": "https://img/" + item_id}}
    if section is not None:
        item["section"] = section
    if sort is not None:
        item["sort"] = sort
    return item


def advertising(item_id, section="ads"):
    return {"id": item_id, "type": "advertising", "section": section,
            "data": {"name": "Ad " + item_id, "operatedBy": "Bob", "price": 5, "image": "https://img/ad",
                     "url": "https://ads.example/" + item_id}}


class ProtocolTest(unittest.TestCase):
    # Whether errors of different topics come in the order of the messages: one engine loop
    # answers them in order; several take different feeds side by side (docs/OPERATIONS.md,
    # "Engine threads"), and each topic's own order holds.
    errors_keep_their_order_across_topics = True

    def make_daemon(self):
        return Daemon()

    def setUp(self):
        self.daemon = self.make_daemon()
        self.context = zmq.Context()
        self.dealer = self.context.socket(zmq.DEALER)
        self.push = self.context.socket(zmq.PUSH)
        self.sub = self.context.socket(zmq.SUB)
        for sock in (self.dealer, self.push, self.sub):
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
            sock.setsockopt(zmq.SNDTIMEO, TIMEOUT_MS)
        self.dealer.connect(self.daemon.endpoints["control"])
        self.push.connect(self.daemon.endpoints["ingest"])
        self.sub.connect(self.daemon.endpoints["publish"])
        self.req = 0

    def tearDown(self):
        for sock in (self.dealer, self.push, self.sub):
            sock.close(0)
        self.context.term()
        self.daemon.stop()

    def request(self, body):
        self.req += 1
        body = dict(body, req=self.req)
        self.dealer.send_multipart([b"", json.dumps(body).encode()])
        while True:
            empty, reply = self.dealer.recv_multipart()
            self.assertEqual(empty, b"")
            reply = json.loads(reply)
            if reply.get("req") == self.req:
                return reply

    def subscribe_live(self, topics):
        """Subscribes, then waits for a heartbeat so the subscription is known to be live."""
        for name in topics:
            self.sub.setsockopt(zmq.SUBSCRIBE, name)
        self.sub.setsockopt(zmq.SUBSCRIBE, topic("heartbeat"))
        while self.sub.recv_multipart()[0] != topic("heartbeat"):
            pass
        self.sub.setsockopt(zmq.UNSUBSCRIBE, topic("heartbeat"))

    def test_replica_matches_snapshot_through_every_kind_of_change(self):
        feed = "cars"
        self.subscribe_live([topic("rows." + feed)])
        # Some history before the replica starts, so it joins late.
        self.assertTrue(self.request({"op": "upsert", "feed": feed, "item": product("1")})["ok"])
        snapshot = self.request({"op": "snapshot", "feed": feed})
        replica = Replica(snapshot)

        # Fire-and-forget first: PUSH and DEALER are separate connections, so the order between
        # them is not defined; wait (bounded) until both pushes are applied.
        self.push.send(json.dumps({"op": "upsert", "feed": feed, "item": product("2", sort=-1)}).encode())
        self.push.send(json.dumps({"op": "upsert", "feed": feed, "item": advertising("ad1")}).encode())
        deadline = time.monotonic() + 5
        while sum(len(s["rows"]) for s in self.request({"op": "snapshot", "feed": feed})["sections"]) < 3:
            self.assertLess(time.monotonic(), deadline, "pushed items were not applied")
            time.sleep(0.01)
        steps = [
            {"op": "section", "feed": feed, "section": {"id": "ads", "order": -5, "header": {"title": "Sponsored"}}},
            {"op": "upsert", "feed": feed, "item": product("1", name="Tesla Model S", price=79999.5)},
            {"op": "upsert", "feed": feed, "item": product("3", section="used")},
            {"op": "upsert", "feed": feed, "item": product("2", section="used", sort=9)},
            {"op": "delete", "feed": feed, "id": "1"},
            {"op": "reset", "feed": feed, "items": [product("3", section="used"), advertising("ad2", section="default"), product("9")]},
            {"op": "delete_section", "feed": feed, "id": "used"},
        ]
        for step in steps:
            reply = self.request(step)
            self.assertTrue(reply["ok"], reply)
        final = self.request({"op": "snapshot", "feed": feed})
        while replica.seq < final["seq"]:
            frames = self.sub.recv_multipart()
            self.assertEqual(len(frames), 2)
            self.assertEqual(frames[0], topic("rows." + feed))
            delta = json.loads(frames[1])
            if delta["event"] == "position":
                # Where the feed stands: never ahead of a replica that missed nothing.
                self.assertEqual(delta["epoch"], replica.epoch)
                self.assertLessEqual(delta["seq"], replica.seq)
                continue
            self.assertEqual(delta["event"], "delta")
            if replica.accepts(delta):
                replica.apply(delta)
        self.assertEqual(replica.seq, final["seq"])
        self.assertEqual(replica.epoch, final["epoch"])
        self.assertEqual(replica.as_sections(), final["sections"])
        rows = [row["id"] for section in final["sections"] for row in section["rows"]]
        self.assertEqual(rows, ["ad2", "9"])
        self.assertEqual(final["sections"][0]["rows"][0]["cell"], "AdvertisingCell")

    def test_positions_follow_the_last_delta_and_answer_a_subscription(self):
        self.assertTrue(self.request({"op": "upsert", "feed": "cars", "item": product("1")})["ok"])
        self.assertTrue(self.request({"op": "upsert", "feed": "cars", "item": product("2")})["ok"])
        # Subscribing to the feed's own topic is answered with where it stands.
        self.sub.setsockopt(zmq.SUBSCRIBE, topic("rows.cars"))
        name, body = self.sub.recv_multipart()
        self.assertEqual(name, topic("rows.cars"))
        position = json.loads(body)
        self.assertEqual(position["event"], "position")
        self.assertEqual((position["feed"], position["seq"]), ("cars", 2))
        # After the last delta, a position within a heartbeat interval (200 ms here).
        self.assertTrue(self.request({"op": "delete", "feed": "cars", "id": "1"})["ok"])
        last_delta = 2
        while True:
            event = json.loads(self.sub.recv_multipart()[1])
            if event["event"] == "delta":
                last_delta = event["seq"]
                continue
            self.assertEqual(event["event"], "position")
            self.assertEqual(event["epoch"], position["epoch"])
            self.assertLessEqual(event["seq"], last_delta, "a position ahead of the deltas published")
            if event["seq"] == 3:
                break

    def test_since_answers_missed_deltas_from_history(self):
        for item_id in ["1", "2", "3"]:
            self.assertTrue(self.request({"op": "upsert", "feed": "cars", "item": product(item_id)})["ok"])
        snapshot = self.request({"op": "snapshot", "feed": "cars"})
        epoch = snapshot["epoch"]
        reply = self.request({"op": "since", "feed": "cars", "epoch": epoch, "seq": 1})
        self.assertTrue(reply["covered"], reply)
        self.assertEqual([d["seq"] for d in reply["deltas"]], [2, 3])
        self.assertTrue(all(d["event"] == "delta" and d["epoch"] == epoch for d in reply["deltas"]))
        self.assertEqual(reply["seq"], 3)
        gone = self.request({"op": "since", "feed": "cars", "epoch": "0000000000000000", "seq": 1})
        self.assertFalse(gone["covered"])
        self.assertIn("epoch", gone["reason"])

    def test_drop_empties_the_feed_for_subscribers_and_removes_it(self):
        for item_id in ["1", "2"]:
            self.assertTrue(self.request({"op": "upsert", "feed": "cars", "item": product(item_id)})["ok"])
        self.subscribe_live([topic("rows.cars")])
        reply = self.request({"op": "drop", "feed": "cars"})
        self.assertTrue(reply["ok"], reply)
        self.assertEqual((reply["seq"], reply["epoch"]), (0, None))
        dropped = reply["dropped"]
        self.assertEqual((dropped["items"], dropped["seq"]), (2, 3))
        while True:
            event = json.loads(self.sub.recv_multipart()[1])
            if event["event"] == "delta":
                break
        self.assertEqual((event["seq"], event["epoch"]), (3, dropped["epoch"]))
        self.assertEqual(len(event["sections"]["deleted"]), 1)
        gone = self.request({"op": "drop", "feed": "cars"})
        self.assertEqual(gone["error"]["code"], "not_found")
        # Gone: the snapshot of a feed that does not exist.
        snapshot = self.request({"op": "snapshot", "feed": "cars"})
        self.assertEqual((snapshot["seq"], snapshot["epoch"], snapshot["sections"]), (0, None, []))

    def test_reset_in_parts_then_a_snapshot_in_parts(self):
        # About 3 MB of rows: three times the message limit, sent and read in parts.
        token = self.request({"op": "reset_begin", "feed": "big"})["reset"]
        items = [product(str(i), name="Car %d %s" % (i, "x" * 200), section="s%d" % (i % 2)) for i in range(6000)]
        for part, start in enumerate(range(0, len(items), 1500)):
            reply = self.request({"op": "reset_append", "feed": "big", "reset": token, "part": part, "items": items[start:start + 1500]})
            self.assertTrue(reply["ok"], reply)
            self.assertEqual(reply["items"], start + 1500)
        self.assertEqual(self.request({"op": "snapshot", "feed": "big"})["seq"], 0)  # nothing before the commit
        self.assertEqual(self.request({"op": "reset_commit", "feed": "big", "reset": token})["seq"], 1)
        self.assertEqual(self.request({"op": "snapshot", "feed": "big"})["error"]["code"], "limit_exceeded")

        self.req += 1
        self.dealer.send_multipart([b"", json.dumps({"op": "snapshot", "feed": "big", "chunked": True, "req": self.req}).encode()])
        parts = []
        while not parts or len(parts) < parts[0]["parts"]:
            reply = json.loads(self.dealer.recv_multipart()[1])
            if reply.get("req") == self.req:
                parts.append(reply)
        self.assertGreater(len(parts), 2)
        self.assertEqual([p["part"] for p in parts], list(range(len(parts))))
        self.assertEqual({(p["seq"], p["epoch"]) for p in parts}, {(1, parts[0]["epoch"])})
        sections = []
        for p in parts:
            for index, section in enumerate(p["sections"]):
                if index == 0 and sections and sections[-1]["id"] == section["id"]:
                    sections[-1]["rows"] += section["rows"]  # the section continues from the last part
                else:
                    sections.append(section)
        self.assertEqual([s["id"] for s in sections], ["s0", "s1"])
        self.assertEqual([len(s["rows"]) for s in sections], [3000, 3000])
        self.assertEqual(sections[1]["rows"][-1]["id"], "5999")

    def test_a_window_of_a_large_feed_is_a_page_of_its_rows(self):
        # 2,000 rows in two sections; pages of 50 from an offset, and around a row id.
        items = [product(str(i), name="Car %d" % i, section="s%d" % (i // 1000), sort=i % 1000) for i in range(2000)]
        self.assertTrue(self.request({"op": "reset", "feed": "paged", "items": items})["ok"])
        ids = [str(i) for i in range(2000)]
        page = self.request({"op": "snapshot", "feed": "paged", "offset": 975, "limit": 50})
        self.assertTrue(page["ok"], page)
        self.assertEqual(page["window"], {"offset": 975, "limit": 50, "rows": 50, "total": 2000})
        self.assertEqual([s["id"] for s in page["sections"]], ["s0", "s1"])
        self.assertEqual([r["id"] for s in page["sections"] for r in s["rows"]], ids[975:1025])
        self.assertLess(len(json.dumps(page)), 30000)
        around = self.request({"op": "snapshot", "feed": "paged", "around": "1999", "limit": 10})
        self.assertEqual(around["window"]["offset"], 1990)
        self.assertEqual([r["id"] for s in around["sections"] for r in s["rows"]], ids[1990:])
        missing = self.request({"op": "snapshot", "feed": "paged", "offset": 10})
        self.assertEqual((missing["error"]["code"], missing["error"]["field"]), ("missing_field", "limit"))

    def test_errors_are_published_and_good_items_keep_flowing(self):
        self.subscribe_live([topic("rows.cars"), b"errors"])
        self.push.send(b"{broken")
        self.push.send(json.dumps({"op": "upsert", "feed": "cars", "item": {"id": "x"}}).encode())
        self.push.send(json.dumps({"op": "upsert", "feed": "cars", "item": product("ok")}).encode())
        errors, deltas = [], []
        while len(errors) < 2 or not deltas:
            name, body = self.sub.recv_multipart()
            if name.startswith(b"errors"):
                errors.append((name, json.loads(body)))
            elif name == topic("rows.cars"):
                deltas.append(json.loads(body))
        expected = [(topic("errors"), "invalid_json"), (topic("errors.cars"), "missing_field")]
        if self.errors_keep_their_order_across_topics:
            self.assertEqual([(n, b["code"]) for n, b in errors], expected)
        else:
            self.assertCountEqual([(n, b["code"]) for n, b in errors], expected)
        self.assertEqual(dict(errors)[topic("errors.cars")]["field"], "item.type")
        self.assertEqual(deltas[0]["seq"], 1)

    def test_rejected_request_reply_names_the_field(self):
        reply = self.request({"op": "upsert", "feed": "cars",
                              "item": {"id": "1", "type": "product", "data": {"name": "n", "operatedBy": "o", "image": "i"}}})
        self.assertFalse(reply["ok"])
        self.assertEqual(reply["error"]["code"], "missing_field")
        self.assertEqual(reply["error"]["field"], "price")

    def test_ids_and_client_names_may_not_contain_nul(self):
        # PROTOCOL.md, "Names and limits": ids and `client` are any characters but U+0000.
        for body, field in [
            ({"op": "upsert", "feed": "cars", "item": product("a\u0000b")}, "item.id"),
            ({"op": "upsert", "feed": "cars", "item": product("1", section="s\u0000")}, "item.section"),
            ({"op": "section", "feed": "cars", "section": {"id": "\u0000"}}, "section.id"),
            ({"op": "upsert", "feed": "cars", "client": "c\u0000d", "item": product("1")}, "client"),
        ]:
            reply = self.request(body)
            self.assertFalse(reply["ok"], body)
            self.assertEqual(reply["error"]["code"], "invalid_field")
            self.assertEqual(reply["error"]["field"], field)
        reply = self.request({"op": "upsert", "feed": "cars", "item": product("a\u0001b \u00e9")})
        self.assertTrue(reply["ok"], reply)

    def raw_request(self, text):
        """Sends `text` as it is and returns the next reply's bytes, unparsed."""
        self.dealer.send_multipart([b"", text.encode()])
        empty, reply = self.dealer.recv_multipart()
        self.assertEqual(empty, b"")
        return reply

    def test_req_is_echoed_exactly_and_compared_exactly(self):
        # A 19-digit integer and a string (with an escape) come back byte for byte.
        for req in ('1234567890123456789', '"c\\u00e9-7"', '"plain"'):
            reply = self.raw_request('{"op":"status","req":%s}' % req)
            self.assertTrue(reply.endswith(b',"req":' + req.encode() + b'}'), reply[-80:])
            self.assertTrue(json.loads(reply)["ok"])
        # Two 19-digit reqs one apart are two requests: both applied.
        item = '{"id":"%s","type":"product","data":{"name":"n","operatedBy":"o","price":1,"image":"i"}}'
        for number, item_id in ((1234567890123456789, "a"), (1234567890123456790, "b")):
            reply = self.raw_request('{"op":"upsert","feed":"ids","client":"py","req":%d,"item":%s}' % (number, item % item_id))
            self.assertTrue(reply.endswith(b'"req":%d,"client":"py"}' % number), reply)
            self.assertEqual(json.loads(reply)["req"], number)
        snapshot = self.request({"op": "snapshot", "feed": "ids"})
        self.assertEqual(sorted(r["id"] for s in snapshot["sections"] for r in s["rows"]), ["a", "b"])

    def test_oversized_and_multi_frame_requests_are_answered(self):
        # 4 x 1 MiB + 4097 bytes: the size that used to vanish with its connection.
        head = '{"req":"big-1","client":"py","op":"upsert","feed":"big","item":{"id":"x","type":"product","data":{"name":"'
        tail = '"}}}'
        size = 4 * 1048576 + 4097
        body = head + "a" * (size - len(head) - len(tail)) + tail
        reply = json.loads(self.raw_request(body))
        self.assertEqual((reply["ok"], reply["error"]["code"], reply["req"]), (False, "too_large", "big-1"))
        # [empty, U1, U2] is refused whole, with U1's req.
        upsert = '{"req":%d,"op":"upsert","feed":"mf","item":{"id":"%s","type":"product","data":{"name":"n","operatedBy":"o","price":1,"image":"i"}}}'
        self.dealer.send_multipart([b"", (upsert % (1, "u1")).encode(), (upsert % (2, "u2")).encode()])
        empty, reply = self.dealer.recv_multipart()
        reply = json.loads(reply)
        self.assertEqual((reply["ok"], reply["error"]["code"], reply["req"]), (False, "invalid_request", 1))
        self.assertEqual(self.request({"op": "snapshot", "feed": "mf"})["sections"], [])

    def test_plugins_run_in_hosts_and_the_quarantine_starts_empty(self):
        plugins = self.request({"op": "plugins"})
        self.assertEqual(plugins["isolation"], "process")
        self.assertEqual(sorted(h["plugin"] for h in plugins["hosts"]), ["advertising", "product"])
        for host in plugins["hosts"]:
            self.assertEqual(host["state"], "running")
            self.assertGreater(host["pid"], 0)
            self.assertIsNone(host["lastFault"])
        quarantine = self.request({"op": "quarantine", "retry": True, "feed": "cars"})
        self.assertEqual((quarantine["ok"], quarantine["retried"], quarantine["items"]), (True, 0, []))
        bad = self.request({"op": "quarantine", "id": "42"})
        self.assertEqual(bad["error"]["code"], "missing_field")
        self.assertEqual(self.request({"op": "status"})["quarantined"], 0)


def build_profile_plugin(directory):
    """Compiles the C fixture Tests/Fixtures/c-plugin/profile_plugin.c into `directory`."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    subprocess.run(
        ["cc", "-std=c11", "-shared", "-fPIC", "-O1",
         "-I", os.path.join(root, "SDK/Sources/CRowCastPlugin/include"),
         os.path.join(root, "Tests/Fixtures/c-plugin/profile_plugin.c"),
         "-o", os.path.join(directory, "librowcast-profile.so")],
        check=True, timeout=60)


@unittest.skipUnless(postgresql_tests_enabled(), "PostgreSQL is not installed (make deps installs it)")
class ClusterProtocolTest(ProtocolTest):
    """Every protocol test above, against three nodes sharing PostgreSQL (docs/OPERATIONS.md,
    "Cluster"), reached through one node: requests for feeds another node serves are forwarded
    to it, and subscriptions go through a relay of every node. One PostgreSQL server for the
    class, a database of its own for each test."""

    @classmethod
    def setUpClass(cls):
        cls.server = PostgreSQLServer()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def make_daemon(self):
        return ClusterDaemon(self.server)


class EngineThreadsProtocolTest(ProtocolTest):
    """Every protocol test above, against one rowcastd running three engine loops
    (docs/OPERATIONS.md, "Engine threads"): the front hands each request to its feed's loop,
    and a client sees no difference but the order of errors of different topics."""

    errors_keep_their_order_across_topics = False

    def make_daemon(self):
        return Daemon(extra_args=("--engine-threads", "3"))


class InteractionTest(unittest.TestCase):
    """select with a value, as docs/PROTOCOL.md ("Interactions") describes it."""

    request = ProtocolTest.request
    subscribe_live = ProtocolTest.subscribe_live
    tearDown = ProtocolTest.tearDown

    def setUp(self):
        self.daemon = Daemon(extra_plugins=(build_profile_plugin,))
        self.context = zmq.Context()
        self.dealer = self.context.socket(zmq.DEALER)
        self.sub = self.context.socket(zmq.SUB)
        for sock in (self.dealer, self.sub):
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
            sock.setsockopt(zmq.SNDTIMEO, TIMEOUT_MS)
        self.dealer.connect(self.daemon.endpoints["control"])
        self.sub.connect(self.daemon.endpoints["publish"])
        self.push = self.context.socket(zmq.PUSH)  # unused; ProtocolTest.tearDown closes it
        self.req = 0

    def test_edit_through_select_with_a_value(self):
        self.subscribe_live([topic("rows.people"), topic("actions.people")])
        item = {"id": "me", "type": "profile", "data": {"name": "Ann", "email": "ann@old.example"}}
        upserted = self.request({"op": "upsert", "feed": "people", "item": item})
        self.assertEqual(upserted.get("seq"), 1, upserted)
        # The row declares its actions; the edit of the email takes a value of type email.
        snapshot = self.request({"op": "snapshot", "feed": "people"})
        actions = {a["name"]: a for a in snapshot["sections"][0]["rows"][0]["actions"]}
        self.assertEqual((actions["edit_email"]["role"], actions["edit_email"]["field"], actions["edit_email"]["valueType"]),
                         ("edit", "email", "email"))
        # A value of the wrong type is refused, naming the action, and changes nothing.
        wrong = self.request({"op": "select", "feed": "people", "id": "me", "action": "edit_email", "value": 7})
        self.assertEqual(wrong["error"]["code"], "invalid_value")
        self.assertIn("edit_email", wrong["error"]["message"])
        reply = self.request({"op": "select", "feed": "people", "id": "me", "action": "edit_email",
                              "value": "ann@new.example", "client": "py"})
        self.assertTrue(reply["ok"], reply)
        self.assertEqual((reply["seq"], reply["change"], reply["eventSeq"]), (2, "update", 1))
        delta = event = None
        while delta is None or event is None:
            name, body = self.sub.recv_multipart()
            body = json.loads(body)
            if name == topic("rows.people") and body["event"] == "delta" and body["seq"] > 1:
                delta = body
            elif name == topic("actions.people"):
                event = body
        self.assertEqual(delta["seq"], 2)
        self.assertEqual(delta["rows"]["reconfigured"][0]["row"]["content"]["email"], "ann@new.example")
        self.assertEqual((event["eventSeq"], event["requester"], event["value"]), (1, "py", "ann@new.example"))
        pulled = self.request({"op": "events", "feed": "people", "after": 0})
        self.assertEqual([e["eventSeq"] for e in pulled["events"]], [1])
        located = self.request({"op": "locate", "feed": "people", "id": "me"})
        self.assertEqual((located["section"], located["row"], located["seq"]), (0, 0, 2))


class Relay:
    """A `rowcast relay` in front of a daemon (or of the publish endpoints of every node of a
    cluster), on wildcard loopback ports."""

    def __init__(self, daemon, publishes=None):
        upstreams = []
        for endpoint in publishes or [daemon.endpoints["publish"]]:
            upstreams += ["--upstream-publish", endpoint]
        self.process = subprocess.Popen(
            [os.path.join(BUILD_DIR, "rowcast"), "relay", *upstreams,
             "--upstream-control", daemon.endpoints["control"],
             "--publish", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.endpoints = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not self.endpoints:
            readable, _, _ = select.select([self.process.stdout], [], [], 0.1)
            if readable:
                line = self.process.stdout.readline().decode(errors="replace")
                if not line:
                    break
                if line.startswith("rowcast relay ready "):
                    self.endpoints = dict(field.split("=", 1) for field in line.split()[3:])
        if not self.endpoints:
            self.stop()
            raise RuntimeError("rowcast relay did not become ready")

    def stop(self):
        return stop_process(self.process)


class RelayTest(unittest.TestCase):
    """The same Clone pattern through a relay (docs/OPERATIONS.md, "Relays"): snapshot and
    deltas come from the relay, writes go to rowcastd, and a write sent to the relay is refused."""

    def setUp(self):
        self.daemon = Daemon()
        try:
            self.relay = Relay(self.daemon)
        except BaseException:
            self.daemon.stop()
            raise
        self.context = zmq.Context()
        self.sockets = []

    def tearDown(self):
        for sock in self.sockets:
            sock.close(0)
        self.context.term()
        self.assertEqual(self.relay.stop(), 0)
        self.daemon.stop()

    def socket(self, kind, endpoint):
        sock = self.context.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
        sock.setsockopt(zmq.SNDTIMEO, TIMEOUT_MS)
        sock.connect(endpoint)
        self.sockets.append(sock)
        return sock

    @staticmethod
    def request(dealer, body):
        dealer.send_multipart([b"", json.dumps(body).encode()])
        while True:
            reply = json.loads(dealer.recv_multipart()[-1])
            if reply.get("req") == body["req"]:
                return reply

    def test_replica_through_relay(self):
        writer = self.socket(zmq.DEALER, self.daemon.endpoints["control"])
        reader = self.socket(zmq.DEALER, self.relay.endpoints["control"])
        sub = self.socket(zmq.SUB, self.relay.endpoints["publish"])
        for i in range(5):
            self.assertTrue(self.request(writer, {"op": "upsert", "feed": "cars", "item": product(str(i)), "req": i})["ok"])
        sub.setsockopt(zmq.SUBSCRIBE, topic("rows.cars"))
        # The position rowcastd sends a new subscriber of rows.cars comes through the relay.
        while True:
            name, body = sub.recv_multipart()
            if json.loads(body).get("event") == "position":
                break
        replica = Replica(self.request(reader, {"op": "snapshot", "feed": "cars", "req": "s"}))
        self.assertEqual(replica.seq, 5)
        last = 0
        for i, item in enumerate([product("9", section="used"), product("2", name="changed")]):
            last = self.request(writer, {"op": "upsert", "feed": "cars", "item": item, "req": 10 + i})["seq"]
        last = self.request(writer, {"op": "delete", "feed": "cars", "id": "0", "req": 20})["seq"]
        while replica.seq < last:
            name, body = sub.recv_multipart()
            message = json.loads(body)
            if message.get("event") == "delta" and replica.accepts(message):
                replica.apply(message)
        direct = self.request(writer, {"op": "snapshot", "feed": "cars", "req": "d"})
        self.assertEqual(replica.as_sections(), direct["sections"])

        refused = self.request(reader, {"op": "upsert", "feed": "cars", "item": product("x"), "req": 99})
        self.assertFalse(refused["ok"])
        self.assertEqual(refused["error"]["code"], "read_only")


class CurveTest(unittest.TestCase):
    """CURVE, as docs/PROTOCOL.md ("Connecting with CURVE") describes it."""

    extra_args = ()

    def setUp(self):
        self.clients = tempfile.mkdtemp(prefix="rowcast-py-clients-")
        self.public, self.secret = zmq.curve_keypair()
        with open(os.path.join(self.clients, "py-client.key"), "w") as key_file:
            key_file.write('public-key = "%s"\nallow = "all *"\n' % self.public.decode())
        self.daemon = Daemon(["--curve", "--curve-clients", self.clients, *self.extra_args])
        with open(os.path.join(self.daemon.state, "curve", "server.pub")) as server_pub:
            line = next(l for l in server_pub if l.startswith("public-key"))
        self.server_key = line.split('"')[1].encode()
        self.context = zmq.Context()
        self.sockets = []

    def tearDown(self):
        for sock in self.sockets:
            sock.close(0)
        self.context.term()
        self.daemon.stop()
        shutil.rmtree(self.clients, ignore_errors=True)

    def socket(self, kind, endpoint, public, secret):
        sock = self.context.socket(kind)
        self.sockets.append(sock)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
        sock.setsockopt(zmq.SNDTIMEO, TIMEOUT_MS)
        sock.curve_serverkey = self.server_key
        sock.curve_publickey = public
        sock.curve_secretkey = secret
        sock.connect(self.daemon.endpoints[endpoint])
        return sock

    def test_installed_key_publishes_and_subscribes(self):
        self.assertTrue(zmq.has("curve"))
        dealer = self.socket(zmq.DEALER, "control", self.public, self.secret)
        sub = self.socket(zmq.SUB, "publish", self.public, self.secret)
        sub.setsockopt(zmq.SUBSCRIBE, topic("rows.cars"))
        sub.setsockopt(zmq.SUBSCRIBE, topic("heartbeat"))
        while sub.recv_multipart()[0] != topic("heartbeat"):
            pass
        dealer.send_multipart([b"", json.dumps({"op": "upsert", "feed": "cars", "item": product("1"), "req": 1}).encode()])
        empty, reply = dealer.recv_multipart()
        self.assertEqual(json.loads(reply)["ok"], True)
        while True:
            name, body = sub.recv_multipart()
            if name == topic("rows.cars"):
                self.assertEqual(json.loads(body)["seq"], 1)
                break
        dealer.send_multipart([b"", json.dumps({"op": "status", "req": 2}).encode()])
        status = json.loads(dealer.recv_multipart()[1])
        self.assertEqual(status["curve"]["serverKey"], self.server_key.decode())
        self.assertIn("py-client", status["curve"]["clients"])

    def test_unknown_key_gets_no_reply(self):
        public, secret = zmq.curve_keypair()
        dealer = self.socket(zmq.DEALER, "control", public, secret)
        dealer.setsockopt(zmq.RCVTIMEO, 1500)
        dealer.send_multipart([b"", json.dumps({"op": "reset", "feed": "cars", "items": [], "req": 1}).encode()], zmq.DONTWAIT)
        with self.assertRaises(zmq.Again):
            dealer.recv_multipart()



class CurveEngineThreadsTest(CurveTest):
    """The CURVE tests above, against one rowcastd running three engine loops
    (docs/OPERATIONS.md, "Engine threads"): the front names each message's client to its loop."""

    extra_args = ("--engine-threads", "3")



def partition(feed):
    """A feed's partition (docs/PROTOCOL.md, "Partitions"): FNV-1a of its name, modulo 256."""
    value = 2166136261
    for byte in feed.encode():
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return value % 256


@unittest.skipUnless(postgresql_tests_enabled(), "PostgreSQL is not installed (make deps installs it)")
class ClusterCurveTest(unittest.TestCase):
    """Two cluster nodes with CURVE and one server key pair (docs/PROTOCOL.md, "Framing",
    forwarded messages): a request sent to the node that does not own its feed is checked on
    the owner against the sending client's grants, and a client frame from a client is refused."""

    @classmethod
    def setUpClass(cls):
        cls.server = PostgreSQLServer()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="rowcast-py-cluster-curve-")
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.server_key, server_secret = zmq.curve_keypair()
        key_file = os.path.join(self.directory, "server.key")
        with open(key_file, "w") as out:
            out.write('public-key = "%s"\nsecret-key = "%s"\n' % (self.server_key.decode(), server_secret.decode()))
        os.chmod(key_file, 0o600)
        clients = os.path.join(self.directory, "clients")
        os.mkdir(clients)
        self.admin = zmq.curve_keypair()
        self.producer = zmq.curve_keypair()
        for name, pair, allow in (("admin", self.admin, "all *"), ("producer", self.producer, "publish,read allowed-*")):
            with open(os.path.join(clients, name + ".key"), "w") as out:
                out.write('public-key = "%s"\nallow = "%s"\n' % (pair[0].decode(), allow))
        url = self.server.make_database()
        self.nodes = []
        for name in ("n1", "n2"):
            node = Daemon(extra_args=("--store", url, "--node-name", name, "--lease-ms", "1500", "--curve",
                                      "--curve-clients", clients, "--curve-server-key", key_file))
            self.addCleanup(node.stop)
            self.nodes.append(node)
        self.context = zmq.Context()
        self.addCleanup(self.context.term)

    def request(self, node, pair, body, extra=()):
        """The reply to `body` sent to `node` as the client `pair`, with `extra` frames after it."""
        dealer = self.context.socket(zmq.DEALER)
        try:
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
            dealer.curve_serverkey = self.server_key
            dealer.curve_publickey, dealer.curve_secretkey = pair
            dealer.connect(node.endpoints["control"])
            dealer.send_multipart([b"", json.dumps(body).encode()] + list(extra))
            return json.loads(dealer.recv_multipart()[-1])
        finally:
            dealer.close(0)

    def owned_by_n2(self, prefix):
        """A feed named PREFIX-N whose partition n2 serves, as n1's status says, once both serve."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            cluster = self.request(self.nodes[0], self.admin, {"op": "status", "req": 1}).get("cluster", {})
            shares = {node["name"]: set(node["partitions"]) for node in cluster.get("nodes", [])}
            if cluster.get("unowned") == 0 and len(shares) == 2 and all(shares.values()):
                return next(prefix + "-%d" % n for n in range(10000) if partition(prefix + "-%d" % n) in shares["n2"])
            time.sleep(0.2)
        raise RuntimeError("the cluster did not settle within 60 s")

    def test_grants_of_the_sending_client_are_checked_on_the_owner(self):
        allowed, other = self.owned_by_n2("allowed"), self.owned_by_n2("other")
        n1, n2 = self.nodes
        reply = self.request(n1, self.producer, {"op": "upsert", "feed": allowed, "item": product("1"), "req": 1})
        self.assertEqual(reply["ok"], True, reply)
        snapshot = self.request(n2, self.admin, {"op": "snapshot", "feed": allowed, "req": 2})
        self.assertEqual([row["id"] for row in snapshot["sections"][0]["rows"]], ["1"])

        body = {"op": "upsert", "feed": other, "item": product("2"), "req": "r"}
        forwarded, direct = self.request(n1, self.producer, body), self.request(n2, self.producer, body)
        self.assertEqual(forwarded["error"]["code"], "forbidden", forwarded)
        self.assertEqual(forwarded, direct)
        self.assertIn('client "producer" lacks the publish permission on feed "%s"' % other,
                      forwarded["error"]["message"])

        # A client naming another client (the admin) in a client frame is refused, on either node.
        for node in (n1, n2):
            forged = self.request(node, self.producer, body, extra=[b"rowcast-client:" + self.admin[0]])
            self.assertEqual(forged["error"]["code"], "forbidden", forged)
            self.assertIn("only a cluster node may send", forged["error"]["message"])
        status = self.request(n2, self.admin, {"op": "status", "req": 3})
        self.assertNotIn(other, [feed["feed"] for feed in status["feeds"]])
        self.assertEqual(status["curve"]["refusedClientFrames"], 1)
        self.assertGreaterEqual(status["curve"]["admittedNodes"], 1)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or result.testsRun == 0 else 0)
