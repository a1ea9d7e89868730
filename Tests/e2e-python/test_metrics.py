#!/usr/bin/env python3
"""End-to-end test of rowcastd's /metrics and /healthz, read as Prometheus reads them.

It starts a real rowcastd (HTTP on a free loopback port) with both real plugins and the C
fault fixture (Tests/Fixtures/c-plugin/fault_plugin.c, built here with cc), publishes items,
a message that is not JSON and an item that crashes its plugin host, and checks with the
Prometheus client's own text-format parser that the counters moved: items received and
applied, deltas and bytes published, the refusal counted by code, the plugin fault by kind.
Every wait is bounded; the daemon is always stopped.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import zmq
from prometheus_client.parser import text_string_to_metric_families

from test_protocol import Daemon, TIMEOUT_MS, product

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build_fault_plugin(directory):
    """Compiles the fault fixture into `directory`/librowcast-fault.so."""
    subprocess.run(
        ["cc", "-std=c11", "-O1", "-shared", "-fPIC",
         "-I", os.path.join(REPOSITORY, "SDK/Sources/CRowCastPlugin/include"),
         os.path.join(REPOSITORY, "Tests/Fixtures/c-plugin/fault_plugin.c"),
         "-o", os.path.join(directory, "librowcast-fault.so")],
        check=True, timeout=120)


def http_get(endpoint, path):
    """(status, content type, body) of GET `path` on a tcp://HOST:PORT endpoint."""
    url = "http://" + endpoint[len("tcp://"):] + path
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers.get("Content-Type"), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type"), error.read().decode()


class Scrape:
    """One /metrics scrape, parsed by prometheus_client."""

    def __init__(self, text):
        self.families = {family.name: family for family in text_string_to_metric_families(text)}

    def value(self, sample_name, **labels):
        """The value of the sample `sample_name` with exactly `labels`, 0 when absent."""
        for family in self.families.values():
            for sample in family.samples:
                if sample.name == sample_name and sample.labels == labels:
                    return sample.value
        return 0.0


class MetricsTest(unittest.TestCase):
    def setUp(self):
        self.faults = tempfile.mkdtemp(prefix="rowcast-py-fault-")
        build_fault_plugin(self.faults)
        self.daemon = Daemon(extra_args=("--plugins", self.faults))
        self.http = self.daemon.endpoints.get("http", "")
        self.context = zmq.Context()
        self.dealer = self.context.socket(zmq.DEALER)
        self.push = self.context.socket(zmq.PUSH)
        for sock in (self.dealer, self.push):
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.RCVTIMEO, TIMEOUT_MS)
            sock.setsockopt(zmq.SNDTIMEO, TIMEOUT_MS)
        self.dealer.connect(self.daemon.endpoints["control"])
        self.push.connect(self.daemon.endpoints["ingest"])
        self.req = 0

    def tearDown(self):
        for sock in (self.dealer, self.push):
            sock.close(0)
        self.context.term()
        self.daemon.stop()
        shutil.rmtree(self.faults, ignore_errors=True)

    def request(self, body):
        self.req += 1
        # Compact: the fault fixture looks for "id":"segv" in the item's bytes as sent.
        self.dealer.send_multipart([b"", json.dumps(dict(body, req=self.req), separators=(",", ":")).encode()])
        while True:
            _, reply = self.dealer.recv_multipart()
            reply = json.loads(reply)
            if reply.get("req") == self.req:
                return reply

    def scrape(self):
        status, content_type, body = http_get(self.http, "/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(content_type.startswith("text/plain; version=0.0.4"), content_type)
        return Scrape(body)

    def scrape_until(self, ready):
        """Scrapes until `ready(scrape)` holds, for at most 10 s; returns the last scrape."""
        deadline = time.monotonic() + 10
        scrape = self.scrape()
        while not ready(scrape) and time.monotonic() < deadline:
            time.sleep(0.05)
            scrape = self.scrape()
        return scrape

    def test_counters_move_as_items_are_published(self):
        self.assertTrue(self.http.startswith("tcp://127.0.0.1:"), self.daemon.endpoints)
        before = self.scrape()
        for name in ("rowcast_items_received", "rowcast_items_applied", "rowcast_deltas_published",
                     "rowcast_published_bytes", "rowcast_commit_duration_seconds", "rowcast_feeds", "rowcast_rows"):
            self.assertIn(name, before.families, sorted(before.families))
            self.assertTrue(before.families[name].documentation, name + " has no HELP")
        for index in range(5):
            self.push.send(json.dumps({"op": "upsert", "feed": "cars", "item": product("p%d" % index)}).encode())
        # An acked request after them: its reply comes once everything before it is committed.
        self.assertTrue(self.request({"op": "upsert", "feed": "cars", "item": product("p5")})["ok"])
        after = self.scrape_until(lambda s: s.value("rowcast_rows") == 6)
        self.assertEqual(after.value("rowcast_items_applied_total") - before.value("rowcast_items_applied_total"), 6)
        self.assertGreaterEqual(after.value("rowcast_items_received_total") - before.value("rowcast_items_received_total"), 6)
        self.assertGreaterEqual(after.value("rowcast_deltas_published_total"), 1)
        self.assertGreater(after.value("rowcast_published_bytes_total"), before.value("rowcast_published_bytes_total"))
        self.assertGreaterEqual(after.value("rowcast_commit_duration_seconds_count"), 1)
        self.assertGreaterEqual(after.value("rowcast_commit_batch_messages_sum"), 6)
        self.assertGreaterEqual(after.value("rowcast_publish_latency_seconds_count"), 1)
        self.assertGreaterEqual(after.value("rowcast_render_duration_seconds_count", plugin="product"), 1)
        self.assertEqual(after.value("rowcast_feeds"), 1)

    def test_a_refusal_is_counted_by_code(self):
        self.push.send(b"this is not json")
        self.assertEqual(self.request({"op": "upsert", "feed": "cars"})["error"]["code"], "missing_field")
        scrape = self.scrape_until(lambda s: s.value("rowcast_items_rejected_total", code="missing_field") == 1)
        self.assertEqual(scrape.value("rowcast_items_rejected_total", code="invalid_json"), 1)
        self.assertEqual(scrape.value("rowcast_items_rejected_total", code="missing_field"), 1)

    def test_a_plugin_fault_is_counted_by_kind(self):
        reply = self.request({"op": "upsert", "feed": "faults", "item": {"id": "segv", "type": "fault"}})
        self.assertEqual(reply.get("error", {}).get("code"), "plugin_crashed", reply)
        scrape = self.scrape_until(lambda s: s.value("rowcast_plugin_faults_total", plugin="fault", kind="crash") == 1)
        self.assertEqual(scrape.value("rowcast_plugin_faults_total", plugin="fault", kind="crash"), 1)
        self.assertEqual(scrape.value("rowcast_items_rejected_total", code="plugin_crashed"), 1)
        # The host was restarted: the next item of that plugin renders.
        self.assertTrue(self.request({"op": "upsert", "feed": "faults", "item": {"id": "fine", "type": "fault"}})["ok"])

    def test_healthz_is_ok_while_the_loop_runs(self):
        status, content_type, body = http_get(self.http, "/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(content_type, "application/json")
        self.assertEqual(json.loads(body)["status"], "ok")


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"{result.testsRun - failed} passed, {failed} failed")
    sys.exit(1 if failed or result.testsRun == 0 else 0)
