#!/usr/bin/env python3
"""The web gateway's stream, from docs/PROTOCOL.md ("The web gateway") alone.

A WebSocket client (the `websocket-client` package) keeps a replica of a feed from
`rowcast serve`'s /feeds/NAME/stream with the rules of a ZeroMQ client, and ends equal to
rowcastd's snapshot after inserts, moves, a reset and deletes, through a resume from the
gateway's history, a gateway restart and a daemon restart. Also: the SSE fallback, the HTTP
errors, and a row's action. Every wait is bounded; every process is stopped.
"""
import json
import os
import socket
import sys
import time
import unittest
import urllib.request

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_support import (BUILD_DIR, Control, Gateway, RowcastDaemon, advertising, product,  # noqa: E402
                             read_ready_line, start_logged, stop_process)
from test_protocol import Replica  # noqa: E402

WAIT_SECONDS = 10
FEED = "cars"


class StreamClient:
    """A replica kept from the gateway's WebSocket: snapshot, then deltas; positions checked."""

    def __init__(self, gateway, feed):
        self.gateway = gateway
        self.feed = feed
        self.replica = None
        self.socket = None
        self.opening = []  # the events of the last connection's opening, for the tests to see

    def connect(self):
        url = self.gateway.url.replace("http://", "ws://") + "/feeds/%s/stream" % self.feed
        if self.replica is not None and self.replica.epoch is not None:
            url += "?since=%d&epoch=%s" % (self.replica.seq, self.replica.epoch)
        self.socket = websocket.create_connection(url, timeout=WAIT_SECONDS)
        self.opening = []

    def close(self):
        if self.socket is not None:
            self.socket.close()
            self.socket = None

    def handle(self, event):
        self.opening.append(event["event"])
        if event["event"] == "snapshot":
            self.replica = Replica(event)
        elif event["event"] == "delta":
            if self.replica is None:
                raise AssertionError("a delta came before any snapshot")
            if self.replica.accepts(event):
                self.replica.apply(event)
        elif event["event"] == "position":
            if self.replica is None:
                raise AssertionError("a position came before any snapshot")
            if event["epoch"] != self.replica.epoch or event["seq"] > self.replica.seq:
                raise AssertionError("position %r is past the replica (seq %d): a missed message"
                                     % (event, self.replica.seq))
        return event

    def next_event(self, deadline):
        self.socket.settimeout(max(0.05, deadline - time.monotonic()))
        return self.handle(json.loads(self.socket.recv()))

    def wait_until(self, predicate, what):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if self.replica is not None and predicate(self.replica):
                return
            try:
                self.next_event(deadline)
            except websocket.WebSocketTimeoutException:
                break
        raise AssertionError("timed out waiting for %s (replica at seq %s)"
                             % (what, None if self.replica is None else self.replica.seq))

    def wait_for_seq(self, seq, epoch):
        self.wait_until(lambda r: r.seq >= seq and r.epoch == epoch, "seq %d of epoch %s" % (seq, epoch))


class GatewayStreamTest(unittest.TestCase):
    def setUp(self):
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.publish({"op": "upsert", "feed": FEED, "item": product("1", sort=1)})
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)

    def publish(self, body):
        reply = self.control.request(body)
        return reply["seq"], reply["epoch"]

    def assert_replica_equals_daemon(self, client):
        snapshot = self.control.snapshot(FEED)
        client.wait_for_seq(snapshot["seq"], snapshot["epoch"])
        self.assertEqual(client.replica.seq, snapshot["seq"])
        self.assertEqual(client.replica.epoch, snapshot["epoch"])
        self.assertEqual(client.replica.as_sections(), snapshot["sections"])

    def test_replica_from_the_stream_survives_gateway_and_daemon_restarts(self):
        client = StreamClient(self.gateway, FEED)
        self.addCleanup(client.close)
        client.connect()
        client.wait_until(lambda r: True, "the snapshot")
        self.assertEqual(client.opening[0], "snapshot")
        self.assert_replica_equals_daemon(client)

        # Inserts, a new section, moves (by sort), a reconfigure, deletes.
        for index in range(2, 8):
            self.publish({"op": "upsert", "feed": FEED, "item": product(str(index), sort=index)})
        self.publish({"op": "upsert", "feed": FEED, "item": advertising("a1")})
        self.publish({"op": "upsert", "feed": FEED, "item": product("2", sort=10)})
        self.publish({"op": "upsert", "feed": FEED, "item": product("6", sort=0, price=1)})
        self.publish({"op": "delete", "feed": FEED, "id": "4"})
        self.assert_replica_equals_daemon(client)

        # A resume the gateway's history covers: only the missed deltas come, no snapshot.
        client.close()
        self.publish({"op": "upsert", "feed": FEED, "item": product("8", sort=8)})
        self.publish({"op": "delete", "feed": FEED, "id": "5"})
        client.connect()
        self.assert_replica_equals_daemon(client)
        # The gateway's replica may not have the missed deltas yet: a position at the resumed
        # seq may come before them.
        self.assertEqual([event for event in client.opening if event != "position"][0], "delta",
                         "a covered resume starts with the missed deltas")
        self.assertNotIn("snapshot", client.opening)

        # A reset, then deletes.
        self.publish({"op": "reset", "feed": FEED,
                      "items": [product("r%d" % i, sort=-i) for i in range(5)] + [advertising("a2")],
                      "sections": [{"id": "ads", "order": -1}]})
        self.publish({"op": "delete", "feed": FEED, "id": "r3"})
        self.assert_replica_equals_daemon(client)

        # The gateway restarts: the connection drops; changes go on meanwhile; the client
        # reconnects with since and its new history does not cover the gap: a snapshot.
        self.gateway.stop()
        self.publish({"op": "upsert", "feed": FEED, "item": product("g1", sort=3)})
        self.gateway.start()
        client.close()
        client.connect()
        self.assert_replica_equals_daemon(client)
        self.assertEqual(client.opening[0], "snapshot")
        self.publish({"op": "delete", "feed": FEED, "id": "r0"})
        self.assert_replica_equals_daemon(client)

        # The daemon restarts (same state and endpoints): the connection stays, the
        # gateway's replica follows, the sequence continues.
        self.daemon.restart()
        self.control.connect()
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                seq, epoch = self.publish({"op": "upsert", "feed": FEED, "item": product("d1", sort=4)})
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                self.control.connect()
        self.publish({"op": "upsert", "feed": FEED, "item": product("r1", sort=9)})
        self.assert_replica_equals_daemon(client)

    def test_server_sent_events_send_the_snapshot_then_deltas(self):
        request = urllib.request.Request(self.gateway.url + "/feeds/%s/stream" % FEED,
                                         headers={"Accept": "text/event-stream"})
        with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
            self.assertTrue(response.headers["Content-Type"].startswith("text/event-stream"))

            def next_event():
                while True:
                    line = response.readline().decode()
                    self.assertTrue(line, "the event stream ended")
                    if line.startswith("data: "):
                        return json.loads(line[len("data: "):])

            snapshot = next_event()
            self.assertEqual(snapshot["event"], "snapshot")
            replica = Replica(snapshot)
            seq, epoch = self.publish({"op": "upsert", "feed": FEED, "item": product("9", sort=9)})
            while replica.seq < seq:
                event = next_event()
                if event["event"] == "delta" and replica.accepts(event):
                    replica.apply(event)
            self.assertEqual(replica.as_sections(), self.control.snapshot(FEED)["sections"])

    def test_bad_names_unknown_feeds_and_bad_since_are_clear_http_errors(self):
        cases = [
            ("/feeds/bad%20name", 400, "feed name"),
            ("/feeds/nosuch", 404, "does not exist"),
            ("/feeds/nosuch/stream", 404, "does not exist"),
            ("/feeds/%s/stream?since=abc" % FEED, 400, "since=abc"),
            ("/feeds/%s/stream?since=3" % FEED, 400, "needs epoch"),
            ("/feeds/%s/stream?epoch=x" % FEED, 400, "needs since"),
        ]
        for path, status, text in cases:
            code, _, body = self.gateway.get(path)
            self.assertEqual(code, status, path)
            self.assertIn(text, body, path)

    def test_the_page_holds_its_first_rows_before_its_script_runs(self):
        for index in range(2, 80):
            self.publish({"op": "upsert", "feed": FEED, "item": product(str(index), name="Car <%d> & \"co\"" % index, sort=index)})
        code, _, body = self.gateway.get("/feeds/" + FEED)
        self.assertEqual(code, 200, body)
        self.assertIn('<li class="rc-row" data-row-id="1" data-cell="', body)
        self.assertIn('data-field="title" data-value="Car &lt;50&gt; &amp; &quot;co&quot;"', body)
        self.assertEqual(body.count('<li class="rc-row"'), 50, "the first 50 rows, no more")
        self.assertNotIn("<50>", body)

    def gateway_metrics(self):
        """The gateway's /metrics as {(name, labels): value}, read with Prometheus' own parser."""
        from prometheus_client.parser import text_string_to_metric_families
        code, kind, body = self.gateway.get("/metrics")
        self.assertEqual(code, 200, body)
        self.assertIn("text/plain", kind)
        return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
                for family in text_string_to_metric_families(body) for sample in family.samples}

    def test_metrics_count_connections_messages_and_selects(self):
        client = StreamClient(self.gateway, FEED)
        client.connect()
        self.addCleanup(client.close)
        seq, epoch = self.publish({"op": "upsert", "feed": FEED, "item": product("2", sort=2)})
        client.wait_for_seq(seq, epoch)
        code, _, _ = self.gateway.request("POST", "/feeds/%s/rows/1/select" % FEED,
                                          headers={"Content-Type": "application/json"})
        self.assertEqual(code, 200)
        self.gateway.request("POST", "/feeds/%s/rows/nope/select" % FEED, headers={"Content-Type": "application/json"})
        metrics = self.gateway_metrics()
        self.assertEqual(metrics[("rowcast_gateway_connections", ())], 1, metrics)
        self.assertEqual(metrics[("rowcast_gateway_connections_opened_total", (("kind", "websocket"),))], 1)
        self.assertEqual(metrics[("rowcast_gateway_replicas", ())], 1)
        self.assertGreaterEqual(metrics[("rowcast_gateway_messages_sent_total", ())], 2, "the snapshot and a delta")
        self.assertGreater(metrics[("rowcast_gateway_bytes_sent_total", ())], 100)
        self.assertEqual(metrics[("rowcast_gateway_selects_total", (("outcome", "ok"),))], 1)
        self.assertEqual(metrics[("rowcast_gateway_selects_total", (("outcome", "not_found"),))], 1)
        client.close()
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline and self.gateway_metrics()[("rowcast_gateway_connections", ())] != 0:
            time.sleep(0.1)
        self.assertEqual(self.gateway_metrics()[("rowcast_gateway_connections", ())], 0, "the closed connection")

    def test_select_runs_the_action_and_maps_errors(self):
        json_type = {"Content-Type": "application/json"}
        code, kind, body = self.gateway.request("POST", "/feeds/%s/rows/1/select" % FEED, headers=json_type)
        self.assertEqual(code, 200, body)
        self.assertIn("application/json", kind)
        self.assertEqual(json.loads(body)["event"], {"kind": "show_detail", "id": "1"})
        code, _, body = self.gateway.request("POST", "/feeds/%s/rows/nope/select" % FEED, body=b'{"action":"select"}',
                                             headers=json_type)
        self.assertEqual(code, 404, body)
        self.assertEqual(json.loads(body)["error"]["code"], "not_found")
        code, _, body = self.gateway.request("POST", "/feeds/%s/rows/1/select" % FEED, body=b'{"acton":"x"}',
                                             headers=json_type)
        self.assertEqual(code, 400, body)
        self.assertIn("acton", body)
        code, _, body = self.gateway.request("POST", "/feeds/%s/rows/1/select" % FEED, body=b'{"action":"select"}',
                                             headers={"Content-Type": "text/plain"})
        self.assertEqual(code, 415, body)
        self.assertIn("application/json", body)

    def test_a_slow_connection_is_closed_and_never_holds_back_the_others(self):
        # A gateway whose connections may have 8 messages waiting; one client never reads
        # (with a small receive buffer) while ~10 MB of deltas go by, the other reads all. The
        # slow one reads its `overflow` only afterwards, so the write timeout (which resets a
        # client that takes no data; test_gateway_limits.py) must not run out first.
        gateway = Gateway(self.daemon, extra_args=["--connection-buffer", "8", "--write-timeout", "300"])
        self.addCleanup(gateway.stop)
        url = gateway.url.replace("http://", "ws://") + "/feeds/%s/stream" % FEED
        slow = websocket.create_connection(url, timeout=WAIT_SECONDS,
                                           sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
        self.addCleanup(slow.close)
        fast = StreamClient(gateway, FEED)
        self.addCleanup(fast.close)
        fast.connect()
        fast.wait_until(lambda r: True, "the snapshot")
        for round_number in range(40):
            self.publish({"op": "reset", "feed": FEED,
                          "items": [product("p%d" % i, name="Car %d %s" % (i, "x" * 120), price=round_number, sort=i)
                                    for i in range(400)]})
            self.assert_replica_equals_daemon(fast)
        # The slow one gets what was queued before it overflowed, then `overflow`, then the close.
        events = []
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            try:
                text = slow.recv()
            except (websocket.WebSocketConnectionClosedException, ConnectionError):
                break
            if not text:
                break
            events.append(json.loads(text)["event"])
        self.assertIn("overflow", events, "the slow connection was not told it fell behind")
        self.assertEqual(events[-1], "overflow")
        self.assertLess(events.count("delta"), 40)

    def test_index_lists_the_feeds(self):
        code, kind, body = self.gateway.get("/")
        self.assertEqual(code, 200)
        self.assertIn("text/html", kind)
        self.assertIn('href="/feeds/%s"' % FEED, body)


EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Examples")
PROFILE_CELLS = os.path.join(EXAMPLES, "profile", "cells")


def example_cells(name):
    """The declarative cells directory of example `name` (profile, items)."""
    return os.path.join(EXAMPLES, name, "cells")


def load_example(control, name):
    """Publishes example `name`'s feed.ndjson into the feed of that name."""
    with open(os.path.join(EXAMPLES, name, "feed.ndjson"), encoding="utf-8") as feed:
        lines = feed.read().splitlines()
    for line in lines:
        body = json.loads(line)
        if "op" not in body:
            body = {"op": "upsert", "item": body}
        reply = control.request(dict(body, feed=name))
        assert reply.get("ok"), reply


def load_profile(control):
    """Publishes the profile example's feed (its declarative cells have an edit action)."""
    load_example(control, "profile")


class GatewaySelectValueTest(unittest.TestCase):
    """A select with a value through the gateway: the profile example's email edit."""

    def setUp(self):
        self.daemon = RowcastDaemon(extra_args=["--cells", PROFILE_CELLS])
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        load_profile(self.control)
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)

    def select(self, body):
        code, _, text = self.gateway.request("POST", "/feeds/profile/rows/email/select", body=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
        return code, json.loads(text)

    def email_row(self):
        for section in self.control.snapshot("profile")["sections"]:
            for row in section["rows"]:
                if row["id"] == "email":
                    return row
        raise AssertionError("no email row")

    def test_an_edit_sends_its_value_and_client_errors_are_4xx(self):
        code, reply = self.select({"action": "edit_email", "value": "ann@example.org"})
        self.assertEqual(code, 200, reply)
        self.assertEqual(reply.get("change"), "update", reply)
        self.assertEqual(self.email_row()["content"]["value"], "ann@example.org")
        code, reply = self.select({"action": "edit_email", "value": "not an email"})
        self.assertEqual((code, reply["error"]["code"]), (422, "invalid_value"), reply)
        code, reply = self.select({"action": "edit_email"})
        self.assertEqual((code, reply["error"]["code"]), (422, "invalid_value"), reply)
        code, reply = self.select({"action": "no_such_action"})
        self.assertEqual((code, reply["error"]["code"]), (400, "unknown_action"), reply)
        self.assertEqual(self.email_row()["content"]["value"], "ann@example.org", "a refused edit changes nothing")

    def test_the_index_counts_rows_as_people_write_them(self):
        one = {"id": "solo", "type": "attribute", "data": {"label": "Only", "value": "row"}}
        self.assertTrue(self.control.request({"op": "upsert", "feed": "one", "item": one})["ok"])
        rows = sum(len(s["rows"]) for s in self.control.snapshot("profile")["sections"])
        code, _, body = self.gateway.get("/")
        self.assertEqual(code, 200, body)
        self.assertIn('<span class="rc-count">1 row</span>', body)
        self.assertIn('<span class="rc-count">%d rows</span>' % rows, body)

    def test_serve_takes_http_as_rowcastd_writes_it(self):
        process = start_logged(
            [os.path.join(BUILD_DIR, "rowcast"), "serve", "--http", "tcp://127.0.0.1:0",
             "--control", self.daemon.endpoints["control"], "--publish", self.daemon.endpoints["publish"]], None)
        try:
            line = read_ready_line(process, "rowcast serve ready ")
            url = dict(field.split("=", 1) for field in line.split()[3:])["http"]
            with urllib.request.urlopen(url + "/feeds/profile", timeout=10) as response:
                self.assertEqual(response.status, 200)
        finally:
            stop_process(process)


if __name__ == "__main__":
    unittest.main(verbosity=2)
