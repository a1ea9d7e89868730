/// The whole-feed page's script, served as `/assets/gateway.js` (an ES module): follows the
/// feed whole through `/client.js` (a replica kept by PROTOCOL.md's "Applying a delta",
/// resumed with `since`), draws it as a table view (one element per section and per row,
/// reused by id, rows drawn by `/assets/rows.js`), and animates inserts, deletes, moves and
/// reconfigures.
enum GatewayScript {
    /// The script text.
    static let text = #"""
        import { RowCastSocket } from '/client.js';
        import { fillRow, fillHeader, showEvent, runActions, pageToken } from '/assets/rows.js';

        var root = document.getElementById('feed');
        var feed = root.dataset.feed;
        var sectionsEl = document.getElementById('sections');
        var statusEl = document.getElementById('status');
        var ANIMATION_MS = 350;
        var replica = null;

        function setStatus(state, text) {
          statusEl.dataset.state = state;
          statusEl.textContent = text;
        }

        function showLive() {
          root.dataset.seq = String(replica.seq);
          root.dataset.epoch = replica.epoch === null ? '' : replica.epoch;
          var rows = replica.sections.reduce(function (n, s) { return n + s.rows.length; }, 0);
          setStatus('live', 'live \u00b7 seq ' + replica.seq + ' \u00b7 ' + replica.sections.length + ' sections \u00b7 ' + rows + ' rows');
        }

        function drawRow(item, row) {
          fillRow(item, row);
          item.style.minHeight = (typeof row.height === 'number' ? row.height : 44) + 'px';
        }

        function makeSection(section) {
          var element = document.createElement('section');
          element.className = 'rc-section';
          element.dataset.sectionId = section.id;
          var header = document.createElement('header');
          header.className = 'rc-header';
          element.appendChild(header);
          var list = document.createElement('ol');
          list.className = 'rc-rows';
          element.appendChild(list);
          return element;
        }

        function rowTops() {
          var tops = {};
          sectionsEl.querySelectorAll('li.rc-row:not([data-leaving])').forEach(function (item) {
            tops[item.dataset.rowId] = item.getBoundingClientRect().top;
          });
          return tops;
        }

        function animate(item, className) {
          item.classList.remove(className);
          void item.offsetWidth;
          item.classList.add(className);
        }

        function leave(element) {
          element.dataset.leaving = '1';
          element.classList.add('rc-leaving');
          setTimeout(function () { element.remove(); }, ANIMATION_MS);
        }

        // Brings the page to `replica`; `delta` (null for a snapshot) says what to animate,
        // `before` where the rows were.
        function render(delta, before) {
          var inserted = {}, moved = {}, changed = {};
          if (delta) {
            delta.rows.inserted.forEach(function (x) { inserted[x.id] = true; });
            delta.sections.inserted.forEach(function (x) { (x.rows || []).forEach(function (r) { inserted[r.id] = true; }); });
            delta.rows.moved.forEach(function (x) { moved[x.id] = true; });
            delta.rows.reconfigured.concat(delta.rows.reloaded).forEach(function (x) { changed[x.id] = true; });
          }
          var sectionEls = {}, rowEls = {};
          sectionsEl.querySelectorAll(':scope > section.rc-section:not([data-leaving])').forEach(function (e) { sectionEls[e.dataset.sectionId] = e; });
          sectionsEl.querySelectorAll('li.rc-row:not([data-leaving])').forEach(function (e) { rowEls[e.dataset.rowId] = e; });
          var keptSections = {}, keptRows = {};
          var previousSection = null;
          replica.sections.forEach(function (section) {
            var sectionEl = sectionEls[section.id] || makeSection(section);
            keptSections[section.id] = true;
            fillHeader(sectionEl.querySelector('header'), section);
            var wanted = previousSection ? previousSection.nextSibling : sectionsEl.firstChild;
            if (sectionEl !== wanted) sectionsEl.insertBefore(sectionEl, wanted);
            previousSection = sectionEl;
            var list = sectionEl.querySelector('ol');
            var previousRow = null;
            section.rows.forEach(function (row) {
              var item = rowEls[row.id];
              if (!item) {
                item = document.createElement('li');
                drawRow(item, row);
                if (delta) animate(item, 'rc-inserted');
              } else if (item.rcRow !== row) {
                drawRow(item, row);
                if (changed[row.id]) animate(item, 'rc-reconfigured');
              }
              keptRows[row.id] = true;
              var wantedRow = previousRow ? previousRow.nextSibling : list.firstChild;
              if (item !== wantedRow) list.insertBefore(item, wantedRow);
              previousRow = item;
            });
          });
          Object.keys(rowEls).forEach(function (id) {
            if (keptRows[id]) return;
            if (delta) leave(rowEls[id]); else rowEls[id].remove();
          });
          Object.keys(sectionEls).forEach(function (id) {
            if (keptSections[id]) return;
            if (delta) leave(sectionEls[id]); else sectionEls[id].remove();
          });
          if (!delta || !before) return;
          Object.keys(moved).forEach(function (id) {
            var item = rowEls[id];
            if (!item || !(id in before)) return;
            var dy = before[id] - item.getBoundingClientRect().top;
            animate(item, 'rc-moved');
            if (!dy) return;
            item.style.transition = 'none';
            item.style.transform = 'translateY(' + dy + 'px)';
            requestAnimationFrame(function () {
              requestAnimationFrame(function () {
                item.style.transition = '';
                item.style.transform = '';
              });
            });
          });
        }

        runActions(sectionsEl, feed, true);

        var socket = new RowCastSocket(null, {
          token: pageToken,
          onStatus: function (status) {
            if (status !== 'open') setStatus(status, status + '\u2026');
          },
          onError: function (message) { setStatus('error', 'error: ' + message.code + ' ' + message.message); }
        });
        socket.subscribe(feed, {
          onChange: function (next, message) {
            var delta = message.event === 'delta' ? message : null;
            var before = delta ? rowTops() : null;  // the page still shows the replica before it
            replica = next;
            render(delta, before);
            showLive();
          },
          onEvent: function (message) {
            switch (message.event) {
              case 'action': showEvent('stream', message.id, message.action, message.result); break;
              case 'overflow': setStatus('behind', 'fell behind; resuming\u2026'); break;
              case 'unavailable': setStatus('unavailable', 'rowcastd unavailable: ' + message.message); break;
            }
          }
        });
        window.rowcastSocket = socket;  // for a console to look at
        """#
}
