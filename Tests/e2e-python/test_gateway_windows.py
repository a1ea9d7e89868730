#!/usr/bin/env python3
"""Windows over a large feed through the web gateway, from docs/PROTOCOL.md ("Windows") alone.

A WebSocket client subscribes to a window of 50 rows of a 200,000-row feed on `rowcast serve`'s
/socket: its first message is small, a thousand changes elsewhere in the feed send it nothing,
and changes inside it arrive as window updates that keep it equal to the same range of
rowcastd's own range snapshot (ZeroMQ `snapshot` with `offset`/`limit`). Every wait is
bounded; every process is stopped.
"""
import json
import os
import random
import sys
import time
import unittest
import urllib.request

import websocket
import zmq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_support import Control, Gateway, RowcastDaemon  # noqa: E402

FEED = "big"
ROWS = 200_000
LIMIT = 50
OFFSET = 100_000
WAIT_SECONDS = 120  # the gateway loads 200,000 rows first (a debug build takes a while)


def item(index, price=1, sort=None):
    """A small product item; its row sorts by `sort` (by default its index)."""
    return {"id": "i%d" % index, "type": "product", "sort": index if sort is None else sort,
            "data": {"name": "Car %d" % index, "operatedBy": "T", "price": price, "image": "c.png"}}


def fill(control, feed, count):
    """Resets `feed` to `count` items in parts (each part under the message limit)."""
    token = control.request({"op": "reset_begin", "feed": feed})["reset"]
    for part, start in enumerate(range(0, count, 5000)):
        control.request({"op": "reset_append", "feed": feed, "reset": token, "part": part,
                         "items": [item(i) for i in range(start, min(count, start + 5000))]})
    # The commit sorts and stores every row: more than the usual 5 s in a debug build.
    control.socket.setsockopt(zmq.RCVTIMEO, WAIT_SECONDS * 1000)
    try:
        return control.request({"op": "reset_commit", "feed": feed, "reset": token})
    finally:
        control.socket.setsockopt(zmq.RCVTIMEO, 5000)


class WindowClient:
    """A window kept from the socket's messages exactly as docs/PROTOCOL.md says."""

    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=WAIT_SECONDS)
        self.rows = []  # [(section id, row)]
        self.offset = self.total = self.seq = None
        self.epoch = None

    def send(self, message):
        self.socket.send(json.dumps(message))

    def receive(self, seconds=WAIT_SECONDS):
        """The next message (text and parsed)."""
        self.socket.settimeout(seconds)
        text = self.socket.recv()
        return text, json.loads(text)

    def apply(self, message):
        event = message["event"]
        if event == "window":
            self.rows = [(entry["section"], entry["row"]) for entry in message["rows"]]
        elif event in ("window-update", "window-position"):
            assert message["base"] == self.seq, "a window message of base %s after seq %s" % (message["base"], self.seq)
            assert message["epoch"] == self.epoch
            if event == "window-update":
                moved = {}
                removals = [(e["at"], None) for e in message["deleted"]] + [(e["from"], e["id"]) for e in message["moved"]]
                for at, moved_id in sorted(removals, reverse=True):
                    removed = self.rows.pop(at)
                    if moved_id is not None:
                        moved[moved_id] = removed[1]
                additions = [(e["at"], e["section"], e["row"]) for e in message["inserted"]]
                additions += [(e["to"], e["section"], moved[e["id"]]) for e in message["moved"]]
                for at, section, row in sorted(additions, key=lambda a: a[0]):
                    self.rows.insert(at, (section, row))
                for entry in message["reloaded"]:
                    assert self.rows[entry["at"]][1]["id"] == entry["id"]
                    self.rows[entry["at"]] = (self.rows[entry["at"]][0], entry["row"])
        else:
            raise AssertionError("unexpected message %r" % message)
        self.offset, self.total, self.seq, self.epoch = (message["offset"], message["total"], message["seq"],
                                                         message["epoch"])

    def close(self):
        self.socket.close()


class GatewayWindowTest(unittest.TestCase):
    """One daemon with the large feed for every test (filling it takes a while); each test
    leaves the feed as a daemon's snapshot describes it, so the others compare with that."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = RowcastDaemon()
        cls.addClassCleanup(cls.daemon.close)
        cls.control = Control(cls.daemon)
        cls.addClassCleanup(cls.control.close)
        fill(cls.control, FEED, ROWS)
        cls.gateway = Gateway(cls.daemon)
        cls.addClassCleanup(cls.gateway.stop)
        cls.socket_url = cls.gateway.url.replace("http://", "ws://") + "/socket"

    def daemon_range(self, offset):
        """rowcastd's own range snapshot of LIMIT rows at `offset`: (seq, epoch, total, rows)."""
        reply = self.control.request({"op": "snapshot", "feed": FEED, "offset": offset, "limit": LIMIT})
        rows = [(section["id"], row) for section in reply["sections"] for row in section["rows"]]
        return reply["seq"], reply["epoch"], reply["window"]["total"], rows

    def assert_window_equals_daemon(self, client):
        seq, epoch, total, rows = self.daemon_range(client.offset)
        self.assertEqual((client.seq, client.epoch, client.total), (seq, epoch, total))
        self.assertEqual(client.rows, rows)

    def next_update(self, client, seq):
        """Applies the window's messages until it reaches `seq`; the messages it took."""
        taken = []
        while client.seq < seq:
            _, message = client.receive()
            client.apply(message)
            taken.append(message)
        return taken

    def test_a_window_of_a_large_feed_costs_its_rows_only(self):
        client = WindowClient(self.socket_url)
        self.addCleanup(client.close)
        client.send({"type": "subscribe", "feed": FEED, "window": {"offset": OFFSET, "limit": LIMIT}})
        text, first = client.receive()
        self.assertEqual(first["event"], "window")
        self.assertLess(len(text.encode()), 100_000, "the first message holds the window's rows only")
        client.apply(first)
        self.assertEqual((client.offset, client.total, len(client.rows)), (OFFSET, ROWS, LIMIT))
        self.assert_window_equals_daemon(client)

        # A thousand changes elsewhere: prices above and below the window, rows added and
        # removed below it. None of them touches the window's rows or moves it.
        generator = random.Random(37)
        added = 0
        for step in range(1000):
            kind = generator.randrange(4)
            if kind == 0:
                self.control.request({"op": "upsert", "feed": FEED,
                                      "item": item(generator.randrange(0, OFFSET - 1), price=step + 2)})
            elif kind == 1:
                self.control.request({"op": "upsert", "feed": FEED,
                                      "item": item(generator.randrange(OFFSET + LIMIT + 1, ROWS), price=step + 2)})
            elif kind == 2:
                self.control.request({"op": "upsert", "feed": FEED, "item": item(ROWS + added, sort=ROWS + added)})
                added += 1
            else:
                self.control.request({"op": "delete", "feed": FEED,
                                      "id": "i%d" % generator.randrange(OFFSET + LIMIT + 10, ROWS - 10)})

        # A change inside: the next message the window gets is its update (nothing came
        # before it), and the window equals the daemon's range again.
        inside = self.control.request({"op": "upsert", "feed": FEED, "item": item(OFFSET + 7, price=424242)})
        _, message = client.receive()
        self.assertEqual(message["event"], "window-update", message)
        self.assertEqual(message["seq"], inside["seq"], "the thousand changes elsewhere sent nothing")
        self.assertEqual(message["base"], first["seq"])
        self.assertEqual([entry["id"] for entry in message["reloaded"]], ["i%d" % (OFFSET + 7)])
        self.assertEqual((message["deleted"], message["inserted"], message["moved"]), ([], [], []))
        client.apply(message)
        self.assert_window_equals_daemon(client)

        # Rows inserted, deleted and moved inside; a row inserted above only moves the window.
        changes = [
            {"op": "upsert", "feed": FEED, "item": item(900_001, sort=OFFSET + 10.5)},
            {"op": "delete", "feed": FEED, "id": "i%d" % (OFFSET + 20)},
            {"op": "upsert", "feed": FEED, "item": item(OFFSET + 3, sort=OFFSET + 40.5)},
            {"op": "upsert", "feed": FEED, "item": item(OFFSET + 30, sort=10.5)},
            {"op": "upsert", "feed": FEED, "item": item(900_002, sort=-1)},
        ]
        for change in changes:
            reply = self.control.request(change)
            taken = self.next_update(client, reply["seq"])
            self.assertEqual(len(taken), 1, taken)
            self.assert_window_equals_daemon(client)
        self.assertEqual(taken[0]["event"], "window-position")
        self.assertEqual(client.offset, OFFSET + 2)  # a row moved above it, one inserted above it

        # Moving the window is one message, answered with one update.
        target = client.offset + 25
        client.send({"type": "move", "feed": FEED, "window": {"offset": target, "limit": LIMIT}})
        _, moved = client.receive()
        self.assertEqual(moved["event"], "window-update")
        self.assertEqual(len(moved["inserted"]), 25)
        self.assertEqual(len(moved["deleted"]), 25)
        client.apply(moved)
        self.assertEqual(client.offset, target)
        self.assert_window_equals_daemon(client)

        # A token message goes to the hook (no user tokens here), and the window goes on.
        client.send({"type": "token", "token": "x"})
        _, answer = client.receive()
        self.assertEqual((answer["event"], answer["code"]), ("error", "tokens_off"))

    def test_a_window_over_server_sent_events_opens_with_its_rows(self):
        request = urllib.request.Request(
            self.gateway.url + "/feeds/%s/stream?limit=%d&around=i%d" % (FEED, LIMIT, OFFSET))
        with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
            line = response.readline()
        self.assertTrue(line.startswith(b"data: "))
        self.assertLess(len(line), 100_000)
        message = json.loads(line[len(b"data: "):])
        reply = self.control.request({"op": "snapshot", "feed": FEED, "around": "i%d" % OFFSET, "limit": LIMIT})
        self.assertEqual((message["event"], message["seq"], message["offset"], message["total"]),
                         ("window", reply["seq"], reply["window"]["offset"], reply["window"]["total"]))
        self.assertEqual([(entry["section"], entry["row"]) for entry in message["rows"]],
                         [(section["id"], row) for section in reply["sections"] for row in section["rows"]])

    def test_bad_windows_are_refused(self):
        status, _, body = self.gateway.get("/feeds/%s/stream?limit=0" % FEED)
        self.assertEqual((status, json.loads(body)["error"]["code"]), (400, "invalid_field"))
        status, _, _ = self.gateway.get("/feeds/%s/stream?offset=4" % FEED)
        self.assertEqual(status, 400)
        client = WindowClient(self.socket_url)
        self.addCleanup(client.close)
        client.send({"type": "subscribe", "feed": FEED, "window": {"around": "nope", "limit": 5}})
        _, message = client.receive()
        self.assertEqual((message["event"], message["code"], message["field"]), ("error", "not_found", "around"))
        client.send({"type": "move", "feed": FEED, "window": {"offset": 0, "limit": 5}})
        _, message = client.receive()
        self.assertEqual((message["event"], message["code"]), ("error", "not_subscribed"))
        client.send({"type": "subscribe", "feed": "no-such-feed", "window": {"offset": 0, "limit": 5}})
        _, message = client.receive()
        self.assertEqual((message["event"], message["code"]), ("error", "not_found"))
        client.send("not json")
        _, message = client.receive()
        self.assertEqual(message["code"], "invalid_json")

    def test_one_socket_carries_several_feeds_and_resumes_a_whole_one_with_since(self):
        for index in range(3):
            self.control.request({"op": "upsert", "feed": "cars", "item": item(index)})
        client = WindowClient(self.socket_url)
        self.addCleanup(client.close)
        client.send({"type": "subscribe", "feed": "cars"})
        client.send({"type": "subscribe", "feed": FEED, "window": {"offset": 0, "limit": 5}})
        seen = {}
        while len(seen) < 2:
            _, message = client.receive()
            seen.setdefault((message["feed"], message["event"]), message)
            if ("cars", "snapshot") in seen and (FEED, "window") in seen:
                break
        snapshot = self.control.snapshot("cars")
        cars = seen[("cars", "snapshot")]
        self.assertEqual((cars["seq"], cars["epoch"], cars["sections"]),
                         (snapshot["seq"], snapshot["epoch"], snapshot["sections"]))
        self.assertEqual(len(seen[(FEED, "window")]["rows"]), 5)

        # A delta of the whole feed comes on the same socket.
        changed = self.control.request({"op": "upsert", "feed": "cars", "item": item(1, price=77)})
        while True:
            _, message = client.receive()
            if message["feed"] == "cars" and message["event"] == "delta":
                break
        self.assertEqual(message["seq"], changed["seq"])

        # Unsubscribed, then subscribed again with since: only the missed delta comes.
        client.send({"type": "unsubscribe", "feed": "cars"})
        while True:
            _, message = client.receive()
            if message["event"] == "unsubscribed":
                break
        self.assertEqual(message["feed"], "cars")
        missed = self.control.request({"op": "upsert", "feed": "cars", "item": item(2, price=78)})
        client.send({"type": "subscribe", "feed": "cars", "since": changed["seq"], "epoch": changed["epoch"]})
        # The gateway's replica may not hold the missed change yet: it then says where it
        # stands (a position at the resumed seq) and sends the delta when it comes.
        while True:
            _, message = client.receive()
            if message["feed"] != "cars":
                continue
            if message["event"] != "position":
                break
            self.assertEqual((message["epoch"], message["seq"]), (changed["epoch"], changed["seq"]))
        self.assertEqual((message["event"], message["seq"]), ("delta", missed["seq"]))

        # A message the socket does not take changes nothing.
        client.send({"type": "shout", "feed": "cars"})
        while True:
            _, message = client.receive()
            if message["event"] == "error":
                break
        self.assertEqual((message["code"], message["type"]), ("invalid_field", "shout"))


if __name__ == "__main__":
    unittest.main()
