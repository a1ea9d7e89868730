/// The script of a large feed's page, served as `/assets/gateway-window.js` (an ES module):
/// a virtual list over the feed's rows. It follows a window of the feed through `/client.js`
/// (docs/PROTOCOL.md, "Windows"), draws the window's rows at their places in a list as tall
/// as the whole feed, and moves the window as the user scrolls (one `move` at a time). Rows
/// are drawn with the same roles as the whole-feed page (``RowPresentation``).
enum GatewayWindowScript {
    /// How tall each row of the virtual list is, in CSS pixels.
    static let rowHeight = 96

    /// The script text.
    static let text = #"""
        import { RowCastSocket } from '/client.js';

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

        \#(RowPresentation.script)

        function text(value) { return typeof value === 'string' ? value : JSON.stringify(value); }

        function field(tag, className, name, value) {
          var element = document.createElement(tag);
          element.className = className;
          element.dataset.field = name;
          element.dataset.value = text(value);
          element.textContent = text(value);
          return element;
        }

        // A row drawn as a cell: the first key of each role takes it; hints are kept hidden.
        function fillRow(item, entry) {
          var row = entry.row, content = row.content || {}, taken = [], keys = {};
          item.rcRow = row;
          item.className = 'rc-row';
          item.dataset.rowId = row.id;
          item.dataset.cell = row.cell || '';
          item.dataset.type = row.type || '';
          item.dataset.sectionId = entry.section;
          item.replaceChildren();
          Object.keys(roles).forEach(function (role) {
            keys[role] = roles[role].filter(function (k) { return k in content && taken.indexOf(k) < 0; })[0];
            if (keys[role]) taken.push(keys[role]);
          });
          if (keys.image) {
            var thumb = document.createElement('div');
            thumb.className = 'rc-thumb';
            thumb.textContent = text(keys.title ? content[keys.title] : row.id).slice(0, 1).toUpperCase();
            item.appendChild(thumb);
          }
          var body = document.createElement('div');
          body.className = 'rc-body';
          if (keys.title) body.appendChild(field('div', 'rc-title', keys.title, content[keys.title]));
          if (keys.subtitle) body.appendChild(field('div', 'rc-subtitle', keys.subtitle, content[keys.subtitle]));
          hints.forEach(function (key) {
            if (!(key in content)) return;
            var hint = field('span', 'rc-hint', key, content[key]);
            hint.hidden = true;
            body.appendChild(hint);
          });
          item.appendChild(body);
          if (keys.badge) item.appendChild(field('div', keys.badge === 'price' ? 'rc-price' : 'rc-badge', keys.badge, content[keys.badge]));
          var actions = document.createElement('div');
          actions.className = 'rc-actions';
          (row.actions || []).forEach(function (action) {
            if (action.role === 'edit' || action.role === 'custom') return;  // forms: the whole-feed page's
            var button = document.createElement('button');
            button.type = 'button';
            button.className = 'rc-action';
            button.dataset.action = action.name;
            button.textContent = action.kind ? action.kind.replace(/_/g, ' ') : action.name;
            actions.appendChild(button);
          });
          item.appendChild(actions);
        }

        // A click on a row's button runs its action through the gateway; the reply is listed.
        function select(id, action) {
          var url = '/feeds/' + encodeURIComponent(feed) + '/rows/' + encodeURIComponent(id) + '/select';
          fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ action: action }) })
            .then(function (response) { return response.json(); })
            .then(function (reply) { showReply(id, action, reply.ok ? reply.event : reply.error); })
            .catch(function (error) { showReply(id, action, String(error)); });
        }

        function showReply(id, action, result) {
          var events = document.getElementById('events');
          var item = document.createElement('li');
          item.className = 'rc-event';
          item.dataset.source = 'reply';
          item.dataset.rowId = id;
          item.textContent = 'reply ' + id + ' ' + action + ' \u2192 ' + text(result);
          events.insertBefore(item, events.firstChild);
          while (events.children.length > 50) events.lastChild.remove();
        }

        sectionsEl.addEventListener('click', function (event) {
          var button = event.target.closest('button.rc-action');
          var item = button && button.closest('li.rc-row');
          if (item) select(item.dataset.rowId, button.dataset.action);
        });

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
            if (item.rcRow !== entry.row) fillRow(item, entry);
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
