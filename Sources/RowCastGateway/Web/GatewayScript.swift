/// The page's script, served as `/assets/gateway.js`: keeps a replica of the feed from the
/// stream by the rules of PROTOCOL.md ("Applying a delta"), draws it as a table view (one
/// element per section and per row, reused by id), animates inserts, deletes, moves and
/// reconfigures, resumes with `since` after a lost connection, and runs a row's action on a
/// click. Plain ES2017, no dependencies.
enum GatewayScript {
    /// The script text.
    static let text = #"""
        (function () {
          'use strict';
          var root = document.getElementById('feed');
          var feed = root.dataset.feed;
          var token = new URLSearchParams(location.search).get('access_token');  // tokens on: ?access_token=
          var sectionsEl = document.getElementById('sections');
          var statusEl = document.getElementById('status');
          var eventsEl = document.getElementById('events');
          var replica = null;
          var socket = null;
          var retryMs = 250;
          var ANIMATION_MS = 350;

          function setStatus(state, text) {
            statusEl.dataset.state = state;
            statusEl.textContent = text;
          }

          function streamURL() {
            var scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
            var url = scheme + '//' + location.host + '/feeds/' + encodeURIComponent(feed) + '/stream';
            if (replica && replica.epoch !== null) {
              url += '?since=' + replica.seq + '&epoch=' + encodeURIComponent(replica.epoch);
            } else if (replica) {
              url += '?since=0';
            }
            if (token) url += (url.indexOf('?') < 0 ? '?' : '&') + 'access_token=' + encodeURIComponent(token);
            return url;
          }

          function connect() {
            socket = new WebSocket(streamURL());
            socket.onopen = function () { retryMs = 250; };
            socket.onmessage = function (message) {
              var event;
              try { event = JSON.parse(message.data); } catch (e) { return resync('a message that is not JSON'); }
              handle(event);
            };
            socket.onclose = function () {
              socket = null;
              setStatus('reconnecting', 'reconnecting\u2026');
              setTimeout(connect, retryMs);
              retryMs = Math.min(retryMs * 2, 4000);
            };
          }

          function resync(reason) {
            console.warn('rowcast: resync: ' + reason);
            replica = null;
            if (socket) socket.close();
          }

          function handle(event) {
            switch (event.event) {
              case 'snapshot': load(event); break;
              case 'delta': applyDelta(event); break;
              case 'position': checkPosition(event); break;
              case 'action': showEvent('stream', event.id, event.action, event.result); break;
              case 'overflow': setStatus('behind', 'fell behind; resuming\u2026'); break;
              case 'unavailable': setStatus('unavailable', 'rowcastd unavailable: ' + event.message); break;
            }
          }

          function showLive() {
            root.dataset.seq = String(replica.seq);
            root.dataset.epoch = replica.epoch === null ? '' : replica.epoch;
            var rows = replica.sections.reduce(function (n, s) { return n + s.rows.length; }, 0);
            setStatus('live', 'live \u00b7 seq ' + replica.seq + ' \u00b7 ' + replica.sections.length + ' sections \u00b7 ' + rows + ' rows');
          }

          function load(snapshot) {
            replica = {
              seq: snapshot.seq, epoch: snapshot.epoch,
              sections: (snapshot.sections || []).map(function (s) { return withRows(s, s.rows || []); })
            };
            render(null, null);
            showLive();
          }

          function withRows(section, rows) {
            return { id: section.id, order: section.order, type: section.type, header: section.header,
                     headerRow: section.headerRow, rows: rows.slice() };
          }

          function checkPosition(position) {
            if (!replica) return;
            if (replica.epoch === null && replica.seq === 0) {
              if (position.seq !== 0) resync('deltas were missed before seq ' + position.seq);
              return;
            }
            if (position.epoch !== replica.epoch || position.seq > replica.seq) {
              resync('the feed is at ' + position.epoch + ' seq ' + position.seq + ', the page at seq ' + replica.seq);
            }
          }

          function applyDelta(delta) {
            if (!replica) return;
            var fresh = replica.epoch === null && replica.seq === 0;
            if (!fresh && delta.epoch === replica.epoch && delta.seq <= replica.seq) return;
            var fits = fresh ? delta.seq === 1 : (delta.epoch === replica.epoch && delta.seq === replica.seq + 1);
            if (!fits) return resync('delta seq ' + delta.seq + ' does not follow seq ' + replica.seq);
            var next;
            try { next = applied(replica, delta); } catch (e) { return resync(e.message); }
            var before = rowTops();
            replica = next;
            render(delta, before);
            showLive();
          }

          function fail(text) { throw new Error(text); }

          // Stage 1 (structure) then stage 2 (contents), on a copy: PROTOCOL.md "Applying a delta".
          function applied(old, delta) {
            var sections = old.sections.map(function (s) { return withRows(s, s.rows); });
            var rows = delta.rows, secs = delta.sections;
            var removals = rows.deleted.map(function (x) { return { id: x.id, at: x.at, moved: false }; })
              .concat(rows.moved.map(function (x) { return { id: x.id, at: x.from, moved: true }; }));
            removals.sort(function (a, b) { return b.at[0] - a.at[0] || b.at[1] - a.at[1]; });
            var movedRows = {};
            removals.forEach(function (x) {
              var section = sections[x.at[0]];
              var row = section && section.rows[x.at[1]];
              if (!row || row.id !== x.id) fail('row ' + x.id + ' is not at [' + x.at + ']');
              section.rows.splice(x.at[1], 1);
              if (x.moved) movedRows[x.id] = row;
            });
            var sectionRemovals = secs.deleted.map(function (x) { return { id: x.id, at: x.at, moved: false }; })
              .concat(secs.moved.map(function (x) { return { id: x.id, at: x.from, moved: true }; }));
            sectionRemovals.sort(function (a, b) { return b.at - a.at; });
            var movedSections = {};
            sectionRemovals.forEach(function (x) {
              var section = sections[x.at];
              if (!section || section.id !== x.id) fail('section ' + x.id + ' is not at ' + x.at);
              sections.splice(x.at, 1);
              if (x.moved) movedSections[x.id] = section;
            });
            var sectionInserts = secs.inserted.map(function (x) {
              var attributes = x.section || { id: x.id };
              return { at: x.at, section: withRows(attributes, x.rows || []) };
            }).concat(secs.moved.map(function (x) { return { at: x.to, section: movedSections[x.id] }; }));
            sectionInserts.sort(function (a, b) { return a.at - b.at; });
            sectionInserts.forEach(function (x) {
              if (x.at > sections.length) fail('section index ' + x.at + ' is past the end');
              sections.splice(x.at, 0, x.section);
            });
            var rowInserts = rows.inserted.map(function (x) { return { at: x.at, row: x.row }; })
              .concat(rows.moved.map(function (x) { return { at: x.to, row: movedRows[x.id] }; }));
            rowInserts.sort(function (a, b) { return a.at[0] - b.at[0] || a.at[1] - b.at[1]; });
            rowInserts.forEach(function (x) {
              var section = sections[x.at[0]];
              if (!section || x.at[1] > section.rows.length) fail('row index [' + x.at + '] is past the end');
              section.rows.splice(x.at[1], 0, x.row);
            });
            rows.reconfigured.concat(rows.reloaded).forEach(function (x) {
              var section = sections[x.at[0]];
              var row = section && section.rows[x.at[1]];
              if (!row || row.id !== x.id) fail('row ' + x.id + ' is not at [' + x.at + '] to replace');
              section.rows[x.at[1]] = x.row;
            });
            secs.updated.forEach(function (x) {
              var section = sections[x.at];
              if (!section || section.id !== x.id) fail('section ' + x.id + ' is not at ' + x.at + ' to update');
              sections[x.at] = withRows(x.section || section, section.rows);
            });
            return { seq: delta.seq, epoch: delta.epoch, sections: sections };
          }

          // Drawing: one <section> per section and one <li> per row, reused by id.

          function text(value) {
            return typeof value === 'string' ? value : JSON.stringify(value);
          }

          function field(tag, className, name, value) {
            var element = document.createElement(tag);
            element.className = className;
            element.dataset.field = name;
            element.dataset.value = text(value);
            element.textContent = text(value);
            return element;
          }

          // A row's content drawn as a cell (RowPresentation's table): the first key of each
          // role that the content has takes that role (a plugin's `title`, a YAML cell's `name`
          // or `label`, ...); hints such as `style` change how it looks; the rest is listed.
          \#(RowPresentation.script)

          function roleKey(content, role, taken) {
            return roles[role].filter(function (k) { return k in content && taken.indexOf(k) < 0; })[0];
          }

          function fillContent(element, row) {
            var content = row.content || {};
            element.replaceChildren();
            var taken = [];
            var keys = {};
            Object.keys(roles).forEach(function (role) {
              keys[role] = roleKey(content, role, taken);
              if (keys[role]) taken.push(keys[role]);
            });
            if (keys.image) {
              var thumb = document.createElement('div');
              thumb.className = 'rc-thumb';
              thumb.dataset.field = keys.image;
              thumb.dataset.value = text(content[keys.image]);
              thumb.title = text(content[keys.image]);
              thumb.textContent = text(keys.title ? content[keys.title] : row.id).slice(0, 1).toUpperCase();
              if (/^https?:\/\//.test(text(content[keys.image]))) {
                thumb.style.backgroundImage = 'url("' + text(content[keys.image]).replace(/["\\]/g, '') + '")';
              }
              element.appendChild(thumb);
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
              taken.push(key);
              if (key === 'style') element.classList.add('rc-style-' + text(content[key]).replace(/[^a-z0-9_-]/gi, ''));
            });
            var extra = Object.keys(content).filter(function (k) { return taken.indexOf(k) < 0; });
            if (extra.length) {
              var list = document.createElement('dl');
              list.className = 'rc-extra';
              extra.forEach(function (key) {
                var term = document.createElement('dt');
                term.textContent = key;
                list.appendChild(term);
                list.appendChild(field('dd', 'rc-value', key, content[key]));
              });
              body.appendChild(list);
            }
            element.appendChild(body);
            if (keys.badge) element.appendChild(field('div', keys.badge === 'price' ? 'rc-price' : 'rc-badge', keys.badge, content[keys.badge]));
          }

          function fillRow(item, row) {
            item.rcRow = row;
            item.className = 'rc-row';
            item.dataset.rowId = row.id;
            item.dataset.cell = row.cell || '';
            item.dataset.type = row.type || '';
            item.style.minHeight = (typeof row.height === 'number' ? row.height : 44) + 'px';
            fillContent(item, row);
            var actions = document.createElement('div');
            actions.className = 'rc-actions';
            (row.actions || []).forEach(function (action) {
              if (action.role === 'edit' || action.role === 'custom') {
                actions.appendChild(editForm(action));
                return;
              }
              var button = document.createElement('button');
              button.type = 'button';
              button.className = 'rc-action';
              button.dataset.action = action.name;
              button.title = action.kind || action.name;
              button.textContent = action.kind ? action.kind.replace(/_/g, ' ') : action.name;
              actions.appendChild(button);
            });
            item.appendChild(actions);
          }

          // An edit action is a small form: its value is typed in, checked by the browser as
          // far as the input type allows, and sent as the select's value (the daemon checks it).
          // A custom action's form may be sent empty: then the select has no value.
          var inputTypes = { email: 'email', url: 'url', number: 'number', integer: 'number' };

          function editForm(action) {
            var form = document.createElement('form');
            form.className = 'rc-edit';
            form.dataset.action = action.name;
            form.dataset.valueType = action.valueType || 'string';
            var input = document.createElement('input');
            input.name = 'value';
            input.required = action.role === 'edit';
            if (action.valueType === 'bool') {
              input.type = 'checkbox';
              input.required = false;
            } else {
              input.type = inputTypes[action.valueType] || 'text';
              if (action.valueType === 'number') input.step = 'any';
              input.placeholder = action.field || action.name;
            }
            input.setAttribute('aria-label', (action.field || action.name) + ' (' + (action.valueType || 'string') + ')');
            var save = document.createElement('button');
            save.type = 'submit';
            save.className = 'rc-save';
            save.textContent = action.kind ? action.kind.replace(/_/g, ' ') : action.name;
            form.append(input, save);
            return form;
          }

          function formValue(form) {
            var input = form.elements.value;
            switch (form.dataset.valueType) {
              case 'bool': return input.checked;
              case 'number': case 'integer': return input.value === '' ? undefined : Number(input.value);
              default: return input.value === '' && !input.required ? undefined : input.value;
            }
          }

          function fillHeader(header, section) {
            header.replaceChildren();
            var row = section.headerRow;
            header.dataset.cell = row ? (row.cell || '') : '';
            var content = row ? (row.content || {}) : {};
            var title = 'title' in content ? content.title : (section.header && section.header.title) || section.id;
            header.appendChild(field('div', 'rc-title', 'title', title));
            if ('subtitle' in content) header.appendChild(field('div', 'rc-subtitle', 'subtitle', content.subtitle));
            var id = document.createElement('span');
            id.className = 'rc-section-id';
            id.textContent = section.id;
            header.appendChild(id);
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
                  fillRow(item, row);
                  if (delta) animate(item, 'rc-inserted');
                } else if (item.rcRow !== row) {
                  fillRow(item, row);
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

          // Actions: a click on a row's button (or the row) runs it through the gateway; an edit
          // form sends its value.

          function showEvent(source, id, action, result) {
            var item = document.createElement('li');
            item.className = 'rc-event';
            item.dataset.source = source;
            item.dataset.rowId = id || '';
            item.dataset.action = action || '';
            item.textContent = (source === 'stream' ? 'event ' : 'reply ') + (id || '') + ' ' + (action || '') + ' \u2192 ' + text(result);
            eventsEl.insertBefore(item, eventsEl.firstChild);
            while (eventsEl.children.length > 50) eventsEl.lastChild.remove();
          }

          function select(id, action, value) {
            var url = '/feeds/' + encodeURIComponent(feed) + '/rows/' + encodeURIComponent(id) + '/select';
            var body = value === undefined ? { action: action } : { action: action, value: value };
            var headers = { 'Content-Type': 'application/json' };
            if (token) headers.Authorization = 'Bearer ' + token;  // a user token the page was opened with
            fetch(url, { method: 'POST', headers: headers, body: JSON.stringify(body) })
              .then(function (response) { return response.json(); })
              .then(function (reply) { showEvent('reply', id, action, reply.ok ? reply.event : reply.error); })
              .catch(function (error) { showEvent('reply', id, action, String(error)); });
          }

          sectionsEl.addEventListener('submit', function (event) {
            var form = event.target.closest('form.rc-edit');
            var item = form && form.closest('li.rc-row');
            event.preventDefault();
            if (!item || item.dataset.leaving) return;
            select(item.dataset.rowId, form.dataset.action, formValue(form));
          });

          sectionsEl.addEventListener('click', function (event) {
            var item = event.target.closest('li.rc-row');
            if (!item || item.dataset.leaving || event.target.closest('form.rc-edit')) return;
            var button = event.target.closest('button.rc-action');
            var actions = item.rcRow ? item.rcRow.actions : null;  // none until the stream drew the row
            var action = button ? button.dataset.action : (actions && actions[0] && actions[0].name);
            if (action) select(item.dataset.rowId, action);
          });

          setStatus('connecting', 'connecting\u2026');
          connect();
        })();
        """#
}
