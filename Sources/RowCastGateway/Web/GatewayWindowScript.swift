/// The script of a large feed's page, served as `/assets/gateway-window.js` (an ES module):
/// a virtual list over the feed's rows. It follows a window of the feed through `/client.js`
/// (docs/PROTOCOL.md, "Windows"), draws the window's rows at their places in a list as tall
/// as the whole feed, and moves the window as the user scrolls (one `move` at a time). Rows
/// are drawn, and their actions run, by the code the whole-feed page uses (``GatewayRowsScript``).
enum GatewayWindowScript {
    /// How tall each row of the virtual list is, in CSS pixels.
    static let rowHeight = 96

    /// The script text.
    static let text = #"""
        import { RowCastSocket } from '/client.js';
        import { fillRow, runActions, pageToken } from '/assets/rows.js';

        var ROW = \#(rowHeight);        // each row's height in the virtual list
        var LIMIT = 150;                // rows in the window: the screen and some above and below
        var MARGIN = 50;                // rows kept above the first row on screen
        var root = document.getElementById('feed');
        var feed = root.dataset.feed;
        var sectionsEl = document.getElementById('sections');
        var statusEl = document.getElementById('status');
        var list = null;                // the virtual list, once the first window came
        var items = new Map();          // row id -> <li>
        var state = null;
        var moving = false;
        var counts = { window: 0, 'window-update': 0, 'window-position': 0 };

        runActions(sectionsEl, feed, false);

        function render() {
          if (!list) {
            list = document.createElement('ol');
            list.className = 'rc-rows rc-virtual';
            sectionsEl.replaceChildren(list);
          }
          list.style.height = (state.total * ROW) + 'px';
          var kept = new Set();
          state.rows.forEach(function (entry, index) {
            var item = items.get(entry.row.id);
            if (!item) {
              item = document.createElement('li');
              items.set(entry.row.id, item);
              list.appendChild(item);
            }
            if (item.rcRow !== entry.row) fillRow(item, entry.row);
            item.dataset.sectionId = entry.section;
            item.dataset.index = String(state.offset + index);
            item.style.top = ((state.offset + index) * ROW) + 'px';
            kept.add(entry.row.id);
          });
          items.forEach(function (item, id) {
            if (!kept.has(id)) { item.remove(); items.delete(id); }
          });
          root.dataset.seq = String(state.seq);
          root.dataset.offset = String(state.offset);
          root.dataset.total = String(state.total);
          statusEl.dataset.state = 'live';
          statusEl.textContent = 'live \u00b7 seq ' + state.seq + ' \u00b7 ' + state.total.toLocaleString('en') +
            ' rows \u00b7 showing ' + (state.offset + 1).toLocaleString('en') + '\u2013' +
            (state.offset + state.rows.length).toLocaleString('en');
        }

        // The window's offset for the rows on screen now.
        function wantedOffset() {
          var top = list ? list.getBoundingClientRect().top : 0;
          var first = Math.floor(Math.max(0, -top) / ROW);
          return Math.max(0, Math.min(first - MARGIN, (state ? state.total : 0) - LIMIT));
        }

        function follow() {
          if (!state || moving) return;
          var wanted = wantedOffset();
          if (Math.abs(wanted - state.offset) < MARGIN / 2) return;
          moving = true;
          subscription.move({ offset: wanted, limit: LIMIT });
        }

        var socket = new RowCastSocket(null, {
          token: pageToken,
          onStatus: function (status) {
            if (status !== 'open') { statusEl.dataset.state = status; statusEl.textContent = status + '\u2026'; }
          },
          onError: function (message) { statusEl.textContent = 'error: ' + message.code + ' ' + message.message; moving = false; }
        });
        var subscription = socket.subscribe(feed, {
          window: { offset: 0, limit: LIMIT },
          onChange: function (next, message) {
            state = next;
            counts[message.event] = (counts[message.event] || 0) + 1;
            root.dataset.windowMessages = String(counts.window);
            root.dataset.updateMessages = String(counts['window-update']);
            root.dataset.positionMessages = String(counts['window-position']);
            if (message.event === 'window-update' || message.event === 'window') moving = false;
            render();
            follow();
          }
        });
        window.addEventListener('scroll', follow, { passive: true });
        window.rowcastWindow = subscription;  // for a console (and the browser test) to look at
        """#
}
