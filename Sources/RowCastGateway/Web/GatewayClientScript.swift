/// The gateway's JavaScript client library, served as `/client.js`: an ES module with no
/// dependencies and no build step (docs/PROTOCOL.md, "The JavaScript client"). One
/// `RowCastSocket` speaks `/socket`: several feeds over one WebSocket, each kept whole (a
/// replica, by "Applying a delta") or as a window (by "Windows"), resumed after a reconnect
/// (`since` for a whole feed, the window's place for a window), and `setToken` sends a fresh
/// user token without reconnecting.
enum GatewayClientScript {
    /// The module text.
    static let text = #"""
        // RowCast gateway client: import { RowCastSocket } from '/client.js'.
        // Plain ES2017 module, no dependencies. docs/PROTOCOL.md, "The JavaScript client".

        function fail(text) { throw new Error(text); }

        // Stage 1 (structure) then stage 2 (contents) of a delta on a copy of `sections`
        // (PROTOCOL.md, "Applying a delta"); throws when the delta does not fit.
        export function applyDelta(sections, delta) {
          sections = sections.map(function (s) { return Object.assign({}, s, { rows: s.rows.slice() }); });
          var rows = delta.rows, secs = delta.sections;
          var removals = rows.deleted.map(function (x) { return { id: x.id, at: x.at, moved: false }; })
            .concat(rows.moved.map(function (x) { return { id: x.id, at: x.from, moved: true }; }));
          removals.sort(function (a, b) { return b.at[0] - a.at[0] || b.at[1] - a.at[1]; });
          var movedRows = {};
          removals.forEach(function (x) {
            var section = sections[x.at[0]], row = section && section.rows[x.at[1]];
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
          secs.inserted.map(function (x) { return { at: x.at, section: Object.assign({ id: x.id }, x.section, { rows: (x.rows || []).slice() }) }; })
            .concat(secs.moved.map(function (x) { return { at: x.to, section: movedSections[x.id] }; }))
            .sort(function (a, b) { return a.at - b.at; })
            .forEach(function (x) {
              if (x.at > sections.length) fail('section index ' + x.at + ' is past the end');
              sections.splice(x.at, 0, x.section);
            });
          rows.inserted.map(function (x) { return { at: x.at, row: x.row }; })
            .concat(rows.moved.map(function (x) { return { at: x.to, row: movedRows[x.id] }; }))
            .sort(function (a, b) { return a.at[0] - b.at[0] || a.at[1] - b.at[1]; })
            .forEach(function (x) {
              var section = sections[x.at[0]];
              if (!section || x.at[1] > section.rows.length) fail('row index [' + x.at + '] is past the end');
              section.rows.splice(x.at[1], 0, x.row);
            });
          rows.reconfigured.concat(rows.reloaded).forEach(function (x) {
            var section = sections[x.at[0]], row = section && section.rows[x.at[1]];
            if (!row || row.id !== x.id) fail('row ' + x.id + ' is not at [' + x.at + '] to replace');
            section.rows[x.at[1]] = x.row;
          });
          secs.updated.forEach(function (x) {
            var section = sections[x.at];
            if (!section || section.id !== x.id) fail('section ' + x.id + ' is not at ' + x.at + ' to update');
            sections[x.at] = Object.assign({}, x.section || section, { rows: section.rows });
          });
          return sections;
        }

        // A window-update applied to `rows` ([{section, row}]); a new array. PROTOCOL.md, "Windows".
        export function applyWindowUpdate(rows, update) {
          rows = rows.slice();
          var taken = {};
          update.deleted.map(function (x) { return { at: x.at, id: x.id, moved: false }; })
            .concat(update.moved.map(function (x) { return { at: x.from, id: x.id, moved: true }; }))
            .sort(function (a, b) { return b.at - a.at; })
            .forEach(function (x) {
              var entry = rows[x.at];
              if (!entry || entry.row.id !== x.id) fail('window row ' + x.id + ' is not at ' + x.at);
              rows.splice(x.at, 1);
              if (x.moved) taken[x.id] = entry.row;
            });
          update.inserted.map(function (x) { return { at: x.at, entry: { section: x.section, row: x.row } }; })
            .concat(update.moved.map(function (x) { return { at: x.to, entry: { section: x.section, row: taken[x.id] } }; }))
            .sort(function (a, b) { return a.at - b.at; })
            .forEach(function (x) {
              if (x.at > rows.length) fail('window index ' + x.at + ' is past the end');
              rows.splice(x.at, 0, x.entry);
            });
          update.reloaded.forEach(function (x) {
            var entry = rows[x.at];
            if (!entry || entry.row.id !== x.id) fail('window row ' + x.id + ' is not at ' + x.at + ' to reload');
            rows[x.at] = { section: entry.section, row: x.row };
          });
          return rows;
        }

        // One feed followed over a RowCastSocket: `state` is the replica
        // ({seq, epoch, sections}) or the window ({seq, epoch, offset, limit, total, rows, sections}).
        class Subscription {
          constructor(socket, feed, options) {
            this.socket = socket;
            this.feed = feed;
            this.window = options.window || null;
            this.onChange = options.onChange || function () {};
            this.onEvent = options.onEvent || function () {};
            this.state = null;
          }

          get isWindow() { return this.window !== null; }

          // The subscribe message: a resume point for a whole feed, the window's place for a window.
          subscribeMessage() {
            var message = { type: 'subscribe', feed: this.feed };
            if (this.isWindow) {
              var place = this.state ? { offset: this.state.offset, limit: this.state.limit } : this.window;
              message.window = place;
            } else if (this.state) {
              message.since = this.state.seq;
              if (this.state.epoch !== null) message.epoch = this.state.epoch;
            }
            return message;
          }

          // Moves the window (one message; the answer is one window-update).
          move(window) {
            if (!this.isWindow) fail('feed ' + this.feed + ' is followed whole, not as a window');
            this.window = window;
            this.socket.send({ type: 'move', feed: this.feed, window: window });
          }

          unsubscribe() { this.socket.unsubscribe(this.feed); }

          resync(reason) {
            console.warn('rowcast: ' + this.feed + ': resync: ' + reason);
            if (!this.isWindow) this.state = null;
            this.socket.send(this.subscribeMessage());
          }

          handle(message) {
            var state = this.state;
            switch (message.event) {
              case 'snapshot':
                this.state = { seq: message.seq, epoch: message.epoch, sections: message.sections };
                break;
              case 'delta':
                if (!state) return;
                var fresh = state.epoch === null && state.seq === 0;
                if (!fresh && message.epoch === state.epoch && message.seq <= state.seq) return;
                if (fresh ? message.seq !== 1 : (message.epoch !== state.epoch || message.seq !== state.seq + 1)) {
                  return this.resync('delta seq ' + message.seq + ' does not follow seq ' + state.seq);
                }
                try {
                  this.state = { seq: message.seq, epoch: message.epoch, sections: applyDelta(state.sections, message) };
                } catch (error) { return this.resync(error.message); }
                break;
              case 'position':
                if (state && !(state.epoch === null && state.seq === 0) &&
                    (message.epoch !== state.epoch || message.seq > state.seq)) {
                  return this.resync('the feed is at seq ' + message.seq + ', the replica at ' + state.seq);
                }
                return this.onEvent(message, this);
              case 'window':
                var sections = {};
                message.sections.forEach(function (s) { sections[s.id] = s; });
                this.state = { seq: message.seq, epoch: message.epoch, offset: message.offset, limit: message.limit,
                               total: message.total, rows: message.rows, sections: sections };
                break;
              case 'window-update':
              case 'window-position':
                if (!state) return;
                if (message.base !== state.seq || message.epoch !== state.epoch) {
                  return this.resync('window message of base ' + message.base + ' after seq ' + state.seq);
                }
                var next = Object.assign({}, state, { seq: message.seq, offset: message.offset, limit: message.limit,
                                                       total: message.total });
                if (message.event === 'window-update') {
                  next.sections = Object.assign({}, state.sections);
                  message.sections.forEach(function (s) { next.sections[s.id] = s; });
                  try { next.rows = applyWindowUpdate(state.rows, message); } catch (error) { return this.resync(error.message); }
                }
                this.state = next;
                break;
              default:
                return this.onEvent(message, this);
            }
            this.onChange(this.state, message, this);
          }
        }

        // One WebSocket to the gateway's /socket carrying any number of feeds; reconnects by
        // itself (backing off up to 4 s) and resumes every subscription.
        export class RowCastSocket {
          constructor(url, options) {
            options = options || {};
            if (!url) {
              url = (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/socket';
            }
            this.url = url;
            this.token = options.token || null;
            this.onStatus = options.onStatus || function () {};
            this.onError = options.onError || function (message) { console.warn('rowcast:', message); };
            this.subscriptions = {};
            this.queue = [];
            this.retryMs = 250;
            this.closed = false;
            this.ws = null;
            this.connect();
          }

          connect() {
            var self = this;
            this.onStatus('connecting');
            // With tokens on, the upgrade itself needs one: a browser cannot set headers on it.
            var url = this.url;
            if (this.token) url += (url.indexOf('?') < 0 ? '?' : '&') + 'access_token=' + encodeURIComponent(this.token);
            var ws = this.ws = new WebSocket(url);
            ws.onopen = function () {
              self.retryMs = 250;
              self.onStatus('open');
              if (self.token) ws.send(JSON.stringify({ type: 'token', token: self.token }));
              Object.keys(self.subscriptions).forEach(function (feed) {
                ws.send(JSON.stringify(self.subscriptions[feed].subscribeMessage()));
              });
              self.queue.splice(0).forEach(function (text) { ws.send(text); });
            };
            ws.onmessage = function (event) {
              var message;
              try { message = JSON.parse(event.data); } catch (error) { return; }
              var subscription = message.feed !== undefined ? self.subscriptions[message.feed] : undefined;
              if (message.event === 'error') {
                self.onError(message);
                if (subscription && message.type === 'subscribe') delete self.subscriptions[message.feed];
                return;
              }
              if (subscription) subscription.handle(message);
            };
            ws.onclose = function () {
              self.ws = null;
              if (self.closed) return;
              self.onStatus('reconnecting');
              setTimeout(function () { self.connect(); }, self.retryMs);
              self.retryMs = Math.min(self.retryMs * 2, 4000);
            };
          }

          send(message) {
            var text = JSON.stringify(message);
            if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
            else if (message.type !== 'subscribe') this.queue.push(text);  // subscriptions are sent on open
          }

          // Follows `feed`: whole, or `options.window` ({limit, offset | after | around}).
          // `options.onChange(state, message, subscription)` runs after each change.
          subscribe(feed, options) {
            var subscription = new Subscription(this, feed, options || {});
            this.subscriptions[feed] = subscription;
            this.send(subscription.subscribeMessage());
            return subscription;
          }

          unsubscribe(feed) {
            delete this.subscriptions[feed];
            this.send({ type: 'unsubscribe', feed: feed });
          }

          // A fresh user token for this connection (and its reconnects), without losing its place.
          setToken(token) {
            this.token = token;
            if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: 'token', token: token }));
          }

          close() {
            this.closed = true;
            if (this.ws) this.ws.close();
          }
        }
        """#
}
