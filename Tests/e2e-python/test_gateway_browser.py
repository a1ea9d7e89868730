#!/usr/bin/env python3
"""The web gateway's page in a real browser: headless Chromium, driven over its DevTools
protocol (the `websocket-client` package), shows a feed served by `rowcast serve` and keeps
its DOM equal to rowcastd's snapshot through inserts, moves, a reset and deletes; a click on
a row's action shows the action event. Writes screenshots to .build/artifacts/.

A hostile page served from another loopback origin tries to read a feed over the WebSocket and
Server-Sent Events and to run a row's action, against `rowcast serve` and rowcastd's own HTTP
endpoint: every attempt fails, and no action runs.

Skips (status 0) only when no Chromium is installed and ROWCAST_BROWSER_REQUIRED is not set;
`make test` installs Debian's chromium and sets it.
"""
import base64
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_support import Control, Gateway, RowcastDaemon, advertising, free_port, product, stop_process  # noqa: E402
from test_gateway_windows import fill  # noqa: E402
from test_gateway_tokens import SECRET, token  # noqa: E402

FEED = "cars"
WAIT_SECONDS = 15
ARTIFACTS = os.environ.get("ROWCAST_ARTIFACTS", os.path.join(".build", "artifacts"))
BROWSERS = ("chromium", "chromium-browser", "google-chrome")

# The DOM as the test compares it: sections in order (id, header title), their rows in order
# (id, cell, every content field's value), leaving elements excluded; null before the page loads.
READ_DOM = r"""
(() => document.getElementById('feed') && ({
  seq: document.getElementById('feed').dataset.seq || null,
  sections: Array.from(document.querySelectorAll('#sections > section.rc-section:not([data-leaving])')).map(s => ({
    id: s.dataset.sectionId,
    title: (s.querySelector('header [data-field=title]') || {dataset: {}}).dataset.value,
    rows: Array.from(s.querySelectorAll('li.rc-row:not([data-leaving])')).map(li => ({
      id: li.dataset.rowId, cell: li.dataset.cell,
      fields: Object.fromEntries(Array.from(li.querySelectorAll('[data-field]')).map(f => [f.dataset.field, f.dataset.value]))
    }))
  }))
}))()
"""


def browser_path():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def required_browser(test):
    """The browser's path; fails `test` when none is installed and ROWCAST_BROWSER_REQUIRED is
    set, else skips it."""
    path = browser_path()
    if path is None:
        if os.environ.get("ROWCAST_BROWSER_REQUIRED"):
            test.fail("no Chromium found (%s); make deps installs Debian's chromium" % ", ".join(BROWSERS))
        test.skipTest("no Chromium installed")
    return path


def expected_dom(snapshot):
    """What the page must show for a daemon snapshot."""
    def value(v):
        return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
    sections = []
    for section in snapshot["sections"]:
        header_row = section.get("headerRow") or {}
        content = header_row.get("content") or {}
        title = content.get("title") or ((section.get("header") or {}).get("title")) or section["id"]
        sections.append({
            "id": section["id"], "title": value(title),
            "rows": [{"id": row["id"], "cell": row.get("cell", ""),
                      "fields": {k: value(v) for k, v in (row.get("content") or {}).items()}}
                     for row in section["rows"]],
        })
    return {"seq": str(snapshot["seq"]), "sections": sections}


class Browser:
    """A headless Chromium and one page, driven over the DevTools protocol."""

    def __init__(self, path):
        self.profile = tempfile.mkdtemp(prefix="rowcast-chromium-")
        self.port = free_port()
        self.process = subprocess.Popen(
            [path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=%d" % self.port,
             "--user-data-dir=" + self.profile, "--window-size=1200,900", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.socket = None
        self.next_id = 0
        try:
            self.socket = websocket.create_connection(self._page_target(), timeout=WAIT_SECONDS)
            self.call("Page.enable")
            self.call("Emulation.setDeviceMetricsOverride", width=1200, height=860, deviceScaleFactor=1, mobile=False)
            self.call("Runtime.enable")
        except BaseException:
            self.close()
            raise

    def _page_target(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % self.port, timeout=2) as response:
                    for target in json.loads(response.read()):
                        if target.get("type") == "page":
                            return target["webSocketDebuggerUrl"]
            except OSError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError("chromium exited with status %s" % self.process.poll())
            time.sleep(0.2)
        raise RuntimeError("chromium's DevTools endpoint did not answer within 30 s")

    def call(self, method, **params):
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            self.socket.settimeout(max(0.05, deadline - time.monotonic()))
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError("%s failed: %r" % (method, message["error"]))
                return message.get("result", {})
        raise RuntimeError("%s got no answer within %d s" % (method, WAIT_SECONDS))

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError("script failed: %r" % result["exceptionDetails"])
        return result["result"].get("value")

    def navigate(self, url):
        self.call("Page.navigate", url=url)

    def click(self, selector):
        """A real mouse click at the middle of the element `selector` finds, once the page has
        loaded, nothing moves and the element is what a click at that point would hit."""
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            self.settle()
            rect = self.evaluate(
                "(() => { const e = document.querySelector(%s); if (!e) return null;"
                " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                " const x = r.x + r.width / 2, y = r.y + r.height / 2; const hit = document.elementFromPoint(x, y);"
                " return {x: x, y: y, hits: hit !== null && (hit === e || e.contains(hit))}; })()"
                % json.dumps(selector))
            if rect is not None and rect["hits"]:
                break
            if time.monotonic() >= deadline:
                raise AssertionError("nothing on the page a click can reach matches %s" % selector)
            time.sleep(0.1)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=rect["x"], y=rect["y"], button="left", clickCount=1)

    def settle(self):
        """Waits (bounded) until the page has loaded (its style sheets too, which move what is
        drawn) and no animation or transition runs on it."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline and not self.evaluate(
                "document.readyState === 'complete' && document.getAnimations().length === 0"):
            time.sleep(0.1)

    def screenshot(self, path):
        """The whole page, once its animations ended, as a PNG at `path`."""
        self.evaluate("window.scrollTo(0, 0)")
        self.settle()
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        if self.socket is not None:
            self.socket.close()
        stop_process(self.process)
        shutil.rmtree(self.profile, ignore_errors=True)


class GatewayBrowserTest(unittest.TestCase):
    def setUp(self):
        path = required_browser(self)
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.control.request({"op": "section", "feed": FEED, "section": {"id": "deals", "order": 0}})
        self.control.request({"op": "section", "feed": FEED, "section": {
            "id": "ads", "order": 1, "type": "sponsored", "header": {"title": "Sponsored", "disclosure": "Paid placement"}}})
        for index, name in enumerate(["Tesla Model 3", "Polestar 2", "Kia EV6"]):
            self.control.request({"op": "upsert", "feed": FEED,
                                  "item": product(str(index + 1), name=name, price=30000 + 5000 * index, section="deals", sort=index)})
        self.control.request({"op": "upsert", "feed": FEED, "item": advertising("a1")})
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)
        self.browser = Browser(path)
        self.addCleanup(self.browser.close)

    def assert_page_shows_snapshot(self, step):
        snapshot = self.control.snapshot(FEED)
        expected = expected_dom(snapshot)
        deadline = time.monotonic() + WAIT_SECONDS
        shown = None
        while time.monotonic() < deadline:
            shown = self.browser.evaluate(READ_DOM)
            if shown == expected:
                return
            time.sleep(0.1)
        self.assertEqual(shown, expected, "after %s the page does not show the snapshot" % step)

    def publish(self, body):
        self.control.request(dict(body, feed=FEED))

    def test_page_follows_the_feed_and_runs_actions(self):
        self.browser.navigate(self.gateway.url + "/feeds/" + FEED)
        self.assert_page_shows_snapshot("the first load")

        self.publish({"op": "upsert", "item": product("4", name="BMW i4", price=52000, section="deals", sort=1.5)})
        self.publish({"op": "upsert", "item": product("5", name="Hyundai Ioniq 5", price=41000, section="used", sort=0)})
        self.assert_page_shows_snapshot("inserts")

        self.publish({"op": "upsert", "item": product("1", name="Tesla Model 3", price=29999, section="deals", sort=9)})
        self.publish({"op": "upsert", "item": product("3", name="Kia EV6", price=40000, section="used", sort=-1)})
        self.publish({"op": "section", "section": {"id": "used", "order": -1}})
        self.assert_page_shows_snapshot("moves")

        self.browser.click('li.rc-row[data-row-id="4"] button.rc-action')
        deadline = time.monotonic() + WAIT_SECONDS
        event = None
        while time.monotonic() < deadline:
            event = self.browser.evaluate(
                "(() => { const e = document.querySelector('#events li[data-source=stream][data-row-id=\"4\"]');"
                " return e ? e.textContent : null; })()")
            if event:
                break
            time.sleep(0.1)
        self.assertIsNotNone(event, "the click on row 4's action showed no action event from the stream")
        self.assertIn("show_detail", event)
        self.browser.screenshot(os.path.join(ARTIFACTS, "gateway-feed.png"))

        self.publish({"op": "reset", "items": [product("r%d" % i, section="deals", sort=i) for i in range(4)]
                      + [advertising("a2")], "sections": [{"id": "deals", "order": 0},
                                                          {"id": "ads", "order": 1, "type": "sponsored",
                                                           "header": {"title": "Sponsored", "disclosure": "Paid"}}]})
        self.assert_page_shows_snapshot("a reset")

        self.publish({"op": "delete", "id": "r1"})
        self.publish({"op": "delete_section", "id": "ads"})
        self.assert_page_shows_snapshot("deletes")
        self.browser.screenshot(os.path.join(ARTIFACTS, "gateway-feed-after.png"))


# A page of another origin that tries what a malicious site would: read the feed over the
# WebSocket and Server-Sent Events, and run a row's action with a "simple" request (no CORS
# preflight: text/plain, no-cors) and with a JSON one (preflighted). It records what happened.
HOSTILE_PAGE = """<!doctype html><meta charset="utf-8"><title>hostile</title><script>
const target = new URLSearchParams(location.search).get('target');
const feed = new URLSearchParams(location.search).get('feed');
window.results = {ws: 'pending', wsMessages: 0, sse: 'pending', sseMessages: 0, simple: 'pending', json: 'pending'};
const ws = new WebSocket(target.replace('http://', 'ws://') + '/feeds/' + feed + '/stream');
ws.onopen = () => { results.ws = 'open'; };
ws.onmessage = () => { results.wsMessages += 1; };
ws.onerror = () => { if (results.ws === 'pending') results.ws = 'error'; };
ws.onclose = () => { if (results.ws === 'pending') results.ws = 'closed'; };
const es = new EventSource(target + '/feeds/' + feed + '/stream');
es.onopen = () => { results.sse = 'open'; };
es.onmessage = () => { results.sseMessages += 1; };
es.onerror = () => { if (results.sse === 'pending') results.sse = 'error'; es.close(); };
const select = target + '/feeds/' + feed + '/rows/1/select';
fetch(select, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"action":"select"}'})
  .then(() => { results.simple = 'sent'; }, () => { results.simple = 'failed'; });
fetch(select, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"action":"select"}'})
  .then(r => { results.json = 'answered ' + r.status; }, () => { results.json = 'blocked'; });
</script>"""


class HostileSite:
    """HOSTILE_PAGE served on a loopback port of its own: another origin than the gateways'."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = HOSTILE_PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=WAIT_SECONDS)


class HostilePageTest(unittest.TestCase):
    def setUp(self):
        path = required_browser(self)
        self.daemon = RowcastDaemon(http=True)
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.control.request({"op": "upsert", "feed": FEED, "item": product("1", name="Tesla Model 3", sort=1)})
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)
        self.site = HostileSite()
        self.addCleanup(self.site.close)
        self.browser = Browser(path)
        self.addCleanup(self.browser.close)

    def action_events(self):
        return self.control.request({"op": "events", "feed": FEED})["last"]

    def test_a_page_of_another_origin_can_neither_read_a_feed_nor_run_an_action(self):
        targets = {"rowcast serve": self.gateway.url,
                   "rowcastd --http": "http://" + self.daemon.endpoints["http"][len("tcp://"):]}
        before = self.action_events()
        for name, target in targets.items():
            self.browser.navigate("%s/?target=%s&feed=%s" % (self.site.url, target, FEED))
            deadline = time.monotonic() + WAIT_SECONDS
            results = None
            while time.monotonic() < deadline:
                results = self.browser.evaluate("window.results || null")
                if results and "pending" not in (results["ws"], results["sse"], results["simple"], results["json"]):
                    break
                time.sleep(0.1)
            time.sleep(0.5)  # anything a stream would still deliver
            results = self.browser.evaluate("window.results")
            self.assertNotEqual(results["ws"], "open", "%s: %r" % (name, results))
            self.assertEqual(results["wsMessages"], 0, "%s: %r" % (name, results))
            self.assertNotEqual(results["sse"], "open", "%s: %r" % (name, results))
            self.assertEqual(results["sseMessages"], 0, "%s: %r" % (name, results))
            self.assertEqual(results["json"], "blocked", "%s: %r" % (name, results))
            self.assertEqual(self.action_events(), before, "%s: the hostile page ran an action: %r" % (name, results))
        self.browser.screenshot(os.path.join(ARTIFACTS, "gateway-hostile-page.png"))


class EditFormTest(unittest.TestCase):
    """The page's forms for actions with a value: the profile's email and the items' rename."""

    def open_example(self, name):
        path = required_browser(self)
        from test_gateway_stream import example_cells, load_example
        self.daemon = RowcastDaemon(extra_args=["--cells", example_cells(name)])
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        load_example(self.control, name)
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)
        self.browser = Browser(path)
        self.addCleanup(self.browser.close)
        self.browser.navigate(self.gateway.url + "/feeds/" + name)

    def wait_for(self, expression, what):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            value = self.browser.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        self.fail("the page never showed " + what)

    def submit(self, row, action, value):
        form = '%s form.rc-edit[data-action="%s"]' % (row, action)
        self.wait_for("!!document.querySelector('%s input')" % form, "the form of " + action)
        self.browser.evaluate("document.querySelector('%s input').value = %s" % (form, json.dumps(value)))
        self.browser.click(form + " button.rc-save")

    def row_content(self, feed, row_id):
        rows = [r for s in self.control.snapshot(feed)["sections"] for r in s["rows"] if r["id"] == row_id]
        return rows[0]["content"]

    def test_the_profile_email_is_edited_and_a_bad_one_never_leaves_the_page(self):
        self.open_example("profile")
        row = 'li.rc-row[data-row-id="email"]'
        self.wait_for("!!document.querySelector('%s form.rc-edit input[type=email]')" % row, "the email edit form")
        self.submit(row, "edit_email", "ann@new.example")
        self.wait_for("document.querySelector('%s').textContent.includes('ann@new.example')" % row,
                      "the edited email in its row")
        # The browser checks an email input itself: a value without a domain is not sent.
        self.submit(row, "edit_email", "not-an-email@")
        time.sleep(0.5)
        self.assertEqual(self.row_content("profile", "email")["value"], "ann@new.example")
        self.assertEqual(self.control.request({"op": "events", "feed": "profile"})["last"], 1, "one edit event")
        self.browser.screenshot(os.path.join(ARTIFACTS, "gateway-edit-form.png"))

    def test_yaml_cells_are_drawn_as_cells_not_as_key_value_lists(self):
        self.open_example("profile")
        # The first rows are in the page's HTML; wait for the stream's snapshot as well.
        self.wait_for("!!(document.getElementById('feed') || {dataset: {}}).dataset.seq", "the stream's snapshot")
        drawn = self.browser.evaluate(r"""(() => {
          const row = id => document.querySelector('li.rc-row[data-row-id="' + id + '"]');
          const text = (id, selector) => { const e = row(id).querySelector(selector); return e ? e.textContent : null; };
          return {
            nameTitle: text('name', '.rc-title'), nameSubtitle: text('name', '.rc-subtitle'),
            nameLists: row('name').querySelectorAll('dl.rc-extra').length,
            logoutDestructive: row('logout').classList.contains('rc-style-destructive'),
            logoutHintShown: !row('logout').querySelector('[data-field=style]').hidden,
            friendThumbs: document.querySelectorAll('li.rc-row[data-type=friend] .rc-thumb').length,
            friends: document.querySelectorAll('li.rc-row[data-type=friend]').length
          };
        })()""")
        self.assertEqual(drawn["nameTitle"], "Name", drawn)
        self.assertEqual(drawn["nameSubtitle"], "Ann Example", drawn)
        self.assertEqual(drawn["nameLists"], 0, "an attribute row has nothing left to list: %s" % drawn)
        self.assertTrue(drawn["logoutDestructive"], drawn)
        self.assertFalse(drawn["logoutHintShown"], drawn)
        self.assertGreater(drawn["friends"], 0, drawn)
        self.assertEqual(drawn["friendThumbs"], drawn["friends"], drawn)
        self.browser.screenshot(os.path.join(ARTIFACTS, "gateway-profile.png"))

    def test_the_items_rename_and_add_send_their_values(self):
        self.open_example("items")
        self.submit('li.rc-row[data-row-id="t3"]', "rename", "Call the bank at 9")
        self.wait_for("document.querySelector('li.rc-row[data-row-id=\"t3\"]').textContent.includes('at 9')",
                      "the renamed item")
        self.assertEqual(self.row_content("items", "t3")["title"], "Call the bank at 9")
        self.submit('li.rc-row[data-row-id="composer"]', "add", "Buy milk")
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline and self.control.request({"op": "events", "feed": "items"})["last"] < 2:
            time.sleep(0.1)
        events = self.control.request({"op": "events", "feed": "items", "after": 0})
        self.assertEqual([e.get("value") for e in events["events"]], ["Call the bank at 9", "Buy milk"], events)


class ClientLibraryTest(unittest.TestCase):
    """/client.js in a real browser: a whole feed kept over /socket equals rowcastd's snapshot,
    resumes with since after its connection drops (only the missed delta comes), and a token
    message reaches the gateway's hook."""

    def setUp(self):
        path = required_browser(self)
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        for index in range(3):
            self.control.request({"op": "upsert", "feed": FEED, "item": product(str(index), sort=index)})
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)
        self.browser = Browser(path)
        self.addCleanup(self.browser.close)

    def wait_for_state(self, snapshot, what):
        deadline = time.monotonic() + WAIT_SECONDS
        state = None
        while time.monotonic() < deadline:
            state = self.browser.evaluate("window.carsState || null")
            if state and state["seq"] == snapshot["seq"]:
                break
            time.sleep(0.1)
        self.assertIsNotNone(state, "no state after %s" % what)
        self.assertEqual((state["seq"], state["epoch"], state["sections"]),
                         (snapshot["seq"], snapshot["epoch"], snapshot["sections"]), what)

    def test_the_client_keeps_a_whole_feed_resumes_with_since_and_sends_tokens(self):
        # A page of the gateway's own origin, so the socket is its own.
        self.browser.navigate(self.gateway.url + "/feeds/" + FEED)
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline and not self.browser.evaluate("document.readyState === 'complete'"):
            time.sleep(0.1)
        self.browser.call("Runtime.evaluate", awaitPromise=True, expression="""
            import('/client.js').then(({ RowCastSocket }) => {
              window.carsEvents = [];
              window.clientErrors = [];
              window.client = new RowCastSocket(null, { onError: (m) => window.clientErrors.push(m) });
              window.client.subscribe('cars', { onChange: (state, message) => {
                window.carsState = state;
                window.carsEvents.push(message.event);
              } });
            })""")
        self.wait_for_state(self.control.snapshot(FEED), "the first snapshot")
        self.control.request({"op": "upsert", "feed": FEED, "item": product("9", sort=0.5)})
        self.control.request({"op": "delete", "feed": FEED, "id": "1"})
        self.wait_for_state(self.control.snapshot(FEED), "an insert and a delete")

        # The connection drops; a delta goes by; the client reconnects with since.
        self.browser.evaluate("window.carsEvents = []; window.client.ws.close(); true")
        self.control.request({"op": "upsert", "feed": FEED, "item": product("2", price=1, sort=2)})
        self.wait_for_state(self.control.snapshot(FEED), "a resume")
        self.assertEqual(self.browser.evaluate("window.carsEvents"), ["delta"],
                         "the resume brought only the missed delta, no snapshot")

        self.browser.evaluate("window.client.setToken('not-a-token'); true")
        deadline = time.monotonic() + WAIT_SECONDS
        errors = []
        while time.monotonic() < deadline and not errors:
            errors = self.browser.evaluate("window.clientErrors")
            time.sleep(0.1)
        self.assertEqual([e["code"] for e in errors], ["tokens_off"])


class LargeFeedPageTest(unittest.TestCase):
    """A 200,000-row feed's page: its first rows are in the HTML, it scrolls as a virtual list
    over a window of the feed, and a change at the top seen from the middle only moves the
    window's position."""

    ROW_HEIGHT = 96  # GatewayWindowScript.rowHeight

    def setUp(self):
        path = required_browser(self)
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        fill(self.control, "big", 200_000)
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)
        self.browser = Browser(path)
        self.addCleanup(self.browser.close)

    def wait_for(self, expression, what, seconds=WAIT_SECONDS):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = self.browser.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError("timed out waiting for %s" % what)

    def rows_shown(self, first, count):
        """The ids the page draws at flat indexes first ..< first+count (None where none)."""
        return self.browser.evaluate(
            "Array.from({length: %d}, (_, i) => { const e = document.querySelector('li.rc-row[data-index=\"' + (%d + i) + '\"]');"
            " return e ? e.dataset.rowId : null; })" % (count, first))

    def daemon_ids(self, offset, count):
        reply = self.control.request({"op": "snapshot", "feed": "big", "offset": offset, "limit": count})
        return [row["id"] for section in reply["sections"] for row in section["rows"]]

    def test_a_large_feed_opens_at_once_scrolls_and_sees_a_change_at_the_top_as_a_position(self):
        self.browser.navigate(self.gateway.url + "/feeds/big")
        self.wait_for("document.querySelector('li.rc-row[data-row-id=\"i0\"]') !== null", "the first row")
        # The first rows are in the HTML the server sent: the page shows them once parsed,
        # without its script. The issue asks for them within two seconds of navigation.
        parsed_ms = self.browser.evaluate("performance.getEntriesByType('navigation')[0].domInteractive")
        self.assertLess(parsed_ms, 2000, "the first rows were parsed %d ms after navigation" % parsed_ms)

        # The script follows a window (the gateway loads its replica of the feed first).
        self.wait_for("document.getElementById('feed').dataset.windowMessages === '1'", "the first window", 120)
        self.assertEqual(self.rows_shown(0, 5), self.daemon_ids(0, 5))

        # Scrolled to the middle: the window moves (one move per update), the rows there show.
        middle = 100_000
        self.browser.evaluate(
            "window.scrollTo(0, document.querySelector('.rc-virtual').getBoundingClientRect().top + window.scrollY + %d)"
            % (middle * self.ROW_HEIGHT))
        self.wait_for("document.querySelector('li.rc-row[data-index=\"%d\"]') !== null" % middle, "the middle rows")
        self.assertEqual(self.rows_shown(middle, 8), self.daemon_ids(middle, 8))
        self.assertEqual(self.browser.evaluate("document.getElementById('feed').dataset.windowMessages"), "1",
                         "scrolling moved the window; it never asked for a new one")
        positions = int(self.browser.evaluate("document.getElementById('feed').dataset.positionMessages || '0'"))
        offset = int(self.browser.evaluate("document.getElementById('feed').dataset.offset"))

        # A row inserted at the top, seen from the middle: a new position, the same rows.
        shown_before = self.rows_shown(offset, 10)
        self.control.request({"op": "upsert", "feed": "big", "item": {
            "id": "top", "type": "product", "sort": -1,
            "data": {"name": "New at the top", "operatedBy": "T", "price": 1, "image": "c.png"}}})
        self.wait_for("Number(document.getElementById('feed').dataset.positionMessages || '0') > %d" % positions,
                      "a window position")
        self.assertEqual(self.browser.evaluate("document.getElementById('feed').dataset.offset"), str(offset + 1))
        self.assertEqual(self.browser.evaluate("document.getElementById('feed').dataset.windowMessages"), "1")
        self.assertEqual(self.rows_shown(offset + 1, 10), shown_before)
        self.assertEqual(self.rows_shown(offset + 1, 10), self.daemon_ids(offset + 1, 10))
        self.assertIsNone(self.browser.evaluate("document.querySelector('li.rc-row[data-row-id=\"top\"]')"))

        # A row's action runs from the windowed page too.
        target = self.rows_shown(offset + 3, 1)[0]
        self.browser.click('li.rc-row[data-row-id="%s"] button.rc-action' % target)
        reply = self.wait_for("(() => { const e = document.querySelector('#events li[data-source=reply]');"
                              " return e ? e.textContent : null; })()", "the action's reply")
        self.assertIn(target, reply)
        self.assertIn("show_detail", reply)

        data = self.browser.call("Page.captureScreenshot", format="png")["data"]
        os.makedirs(ARTIFACTS, exist_ok=True)
        with open(os.path.join(ARTIFACTS, "gateway-large-feed.png"), "wb") as file:
            file.write(base64.b64decode(data))


class TokenPageTest(unittest.TestCase):
    """With user tokens on, a user who opened the index with ?access_token= follows its link to
    a feed (the link carries the token), whose page follows the feed through /client.js over
    /socket with that token and runs a row's action as its user."""

    def setUp(self):
        path = required_browser(self)
        directory = tempfile.mkdtemp(prefix="rowcast-browser-tokens-")
        self.addCleanup(shutil.rmtree, directory, True)
        secret_file = os.path.join(directory, "gateway.secret")
        with open(secret_file, "wb") as file:
            file.write(SECRET)
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        for index in range(3):
            self.control.request({"op": "upsert", "feed": FEED, "item": product(str(index), sort=index)})
        self.gateway = Gateway(self.daemon, extra_args=["--token-secret-file", secret_file])
        self.addCleanup(self.gateway.stop)
        self.browser = Browser(path)
        self.addCleanup(self.browser.close)

    def wait_for(self, expression, what):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            value = self.browser.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        self.fail("no %s within %d s" % (what, WAIT_SECONDS))

    def test_a_page_opened_with_a_token_links_follows_and_selects_with_it(self):
        alice = token("dana", {"cars": ["read", "select"]})
        self.browser.navigate(self.gateway.url + "/?access_token=" + alice)
        self.wait_for("document.querySelector('li[data-feed=cars] a') !== null", "the index's link to cars")
        self.browser.click("li[data-feed=cars] a")
        self.wait_for("location.pathname === '/feeds/cars'", "the feed's page")
        self.assertEqual(self.browser.evaluate("new URLSearchParams(location.search).get('access_token')"), alice)
        snapshot = self.control.snapshot(FEED)
        self.wait_for("document.getElementById('feed').dataset.seq === '%d'" % snapshot["seq"], "the live feed")
        # The page is a module on /client.js and /assets/rows.js, nothing of its own over the wire.
        loaded = self.browser.evaluate("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        for module in ("/assets/gateway.js", "/client.js", "/assets/rows.js"):
            self.assertIn(module, loaded)
        self.browser.click('li.rc-row[data-row-id="1"] button.rc-action')
        reply = self.wait_for("(() => { const e = document.querySelector('#events li[data-source=reply]');"
                              " return e ? e.textContent : null; })()", "the action's reply")
        self.assertIn("show_detail", reply)
        events = self.control.request({"op": "events", "feed": FEED})["events"]
        self.assertEqual([event["requester"] for event in events], ["dana"])
        # A change reaches the page over the token's socket.
        self.control.request({"op": "upsert", "feed": FEED, "item": product("9", name="Added later", sort=9)})
        self.wait_for("document.querySelector('li.rc-row[data-row-id=\"9\"]') !== null", "the inserted row")


if __name__ == "__main__":
    unittest.main(verbosity=2)
