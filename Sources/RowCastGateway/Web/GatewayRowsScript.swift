/// The row drawing both feed pages share, served as `/assets/rows.js` (an ES module): a row's
/// content drawn as a cell by ``RowPresentation``'s table, its actions as buttons and edit
/// forms, section headers, and the clicks and form submits that run actions through the
/// gateway (with the user token the page was opened with). ``GatewayScript`` (a whole feed)
/// and ``GatewayWindowScript`` (a window of a large one) import it beside `/client.js`.
enum GatewayRowsScript {
    /// The module text.
    static let text = #"""
        // RowCast pages' row drawing. Plain ES2017 module, no dependencies.

        \#(RowPresentation.script)

        // The user token the page was opened with (`?access_token=`), or null.
        export var pageToken = new URLSearchParams(location.search).get('access_token');

        export function text(value) { return typeof value === 'string' ? value : JSON.stringify(value); }

        export function field(tag, className, name, value) {
          var element = document.createElement(tag);
          element.className = className;
          element.dataset.field = name;
          element.dataset.value = text(value);
          element.textContent = text(value);
          return element;
        }

        function roleKey(content, role, taken) {
          return roles[role].filter(function (k) { return k in content && taken.indexOf(k) < 0; })[0];
        }

        // A row's content drawn as a cell: the first key of each role that the content has takes
        // that role (a plugin's `title`, a YAML cell's `name` or `label`, ...); hints such as
        // `style` change how it looks; the rest is listed.
        function fillContent(element, row) {
          var content = row.content || {};
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

        // Draws `row` into the list item `item` (content, then its actions).
        export function fillRow(item, row) {
          item.rcRow = row;
          item.className = 'rc-row';
          item.dataset.rowId = row.id;
          item.dataset.cell = row.cell || '';
          item.dataset.type = row.type || '';
          item.replaceChildren();
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

        // An edit action is a small form: its value is typed in, checked by the browser as far
        // as the input type allows, and sent as the select's value (the daemon checks it). A
        // custom action's form may be sent empty: then the select has no value.
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

        // A section's header, from its header row or its header's title.
        export function fillHeader(header, section) {
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

        // One line of the page's action list: an action event of the stream or a select's reply.
        export function showEvent(source, id, action, result) {
          var events = document.getElementById('events');
          var item = document.createElement('li');
          item.className = 'rc-event';
          item.dataset.source = source;
          item.dataset.rowId = id || '';
          item.dataset.action = action || '';
          item.textContent = (source === 'stream' ? 'event ' : 'reply ') + (id || '') + ' ' + (action || '') + ' \u2192 ' + text(result);
          events.insertBefore(item, events.firstChild);
          while (events.children.length > 50) events.lastChild.remove();
        }

        function select(feed, id, action, value) {
          var url = '/feeds/' + encodeURIComponent(feed) + '/rows/' + encodeURIComponent(id) + '/select';
          var body = value === undefined ? { action: action } : { action: action, value: value };
          var headers = { 'Content-Type': 'application/json' };
          if (pageToken) headers.Authorization = 'Bearer ' + pageToken;
          fetch(url, { method: 'POST', headers: headers, body: JSON.stringify(body) })
            .then(function (response) { return response.json(); })
            .then(function (reply) { showEvent('reply', id, action, reply.ok ? reply.event : reply.error); })
            .catch(function (error) { showEvent('reply', id, action, String(error)); });
        }

        // Runs rows' actions of feed `feed` drawn under `container`: a click on a row's button
        // (or, with `rowClicks`, on the row: its first action), an edit form's submit.
        export function runActions(container, feed, rowClicks) {
          container.addEventListener('submit', function (event) {
            var form = event.target.closest('form.rc-edit');
            var item = form && form.closest('li.rc-row');
            event.preventDefault();
            if (!item || item.dataset.leaving) return;
            select(feed, item.dataset.rowId, form.dataset.action, formValue(form));
          });
          container.addEventListener('click', function (event) {
            var item = event.target.closest('li.rc-row');
            if (!item || item.dataset.leaving || event.target.closest('form.rc-edit')) return;
            var button = event.target.closest('button.rc-action');
            var actions = item.rcRow ? item.rcRow.actions : null;  // none until the script drew the row
            var action = button ? button.dataset.action : (rowClicks && actions && actions[0] && actions[0].name);
            if (action) select(feed, item.dataset.rowId, action);
          });
        }
        """#
}
