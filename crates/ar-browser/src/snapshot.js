// Page snapshot for ar: walks the rendered (flat) tree, computes visibility,
// role and accessible name, and returns outline lines plus THE ELEMENT
// HANDLES of interactive elements. WebDriver serialises each returned element
// as a stable web element reference, so Rust maps handle -> ref without
// writing anything into the page. Read-only: no attribute, no node, no global.
//
// arguments[0] = { maxLines, maxText }
// returns { url, title, lines: [[depth, role, name|null, handle|-1, [[k, v]...], value|null]],
//           handles: [Element...], infos: [{...}], omitted }
const opts = arguments[0] || {};
const MAX_LINES = opts.maxLines || 1500;
const MAX_TEXT = opts.maxText || 200;
const MAX_OPTIONS = 25;
const lines = [];
const handles = [];
const infos = [];
let omitted = 0;
const forms = Array.from(document.forms);
// Text that names a control (its <label>, an aria-labelledby target) is not
// repeated as a text line: the control's name already says it.
const labelTargets = new Set();
for (const e of document.querySelectorAll('[aria-labelledby]')) {
  for (const id of e.getAttribute('aria-labelledby').split(/\s+/)) {
    const t = id && document.getElementById(id);
    if (t) labelTargets.add(t);
  }
}
let quiet = 0;

const INTERACTIVE = new Set(['link', 'button', 'checkbox', 'radio', 'textbox', 'searchbox',
  'combobox', 'listbox', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'clickable']);
const OPENABLE = new Set(['row', 'listitem', 'treeitem', 'gridcell', 'article']);
const CONTAINERS = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary',
  'form', 'dialog', 'alertdialog', 'list', 'listitem', 'table', 'row', 'menu', 'menubar',
  'tablist', 'tabpanel', 'region', 'article', 'alert', 'status', 'search', 'group',
  'radiogroup', 'tree', 'grid', 'toolbar']);
const NAME_FROM_CONTENT = new Set(['link', 'button', 'heading', 'tab', 'menuitem',
  'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'clickable', 'switch',
  'checkbox', 'radio', 'row', 'listitem', 'gridcell', 'article']);
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK',
  'svg', 'SVG', 'CANVAS', 'VIDEO', 'AUDIO', 'OBJECT', 'EMBED']);
const FIELD_TAGS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);
const CLICKABLE_INSIDE = 'a[href],button,input,select,textarea,[role=button],[role=link],' +
  '[role=tab],[role=menuitem],[role=menuitemcheckbox],[role=menuitemradio],[role=checkbox],' +
  '[role=radio],[role=switch],[role=option],[role=treeitem],[contenteditable=""],[contenteditable=true]';

const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
const cut = (s, n) => { n = n || MAX_TEXT; return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; };

function inputType(el) { return (el.getAttribute('type') || 'text').toLowerCase(); }

function implicitRole(el, tag) {
  switch (tag) {
    case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
    case 'BUTTON': case 'SUMMARY': return 'button';
    case 'INPUT': {
      const t = inputType(el);
      switch (t) {
        case 'hidden': return null;
        case 'button': case 'submit': case 'reset': case 'image': case 'file': case 'color':
          return 'button';
        case 'checkbox': return 'checkbox';
        case 'radio': return 'radio';
        case 'range': return 'slider';
        case 'number': return 'spinbutton';
        case 'search': return el.list ? 'combobox' : 'searchbox';
        default: return el.list ? 'combobox' : 'textbox';
      }
    }
    case 'TEXTAREA': return 'textbox';
    case 'SELECT': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
    case 'NAV': return 'navigation';
    case 'MAIN': return 'main';
    case 'HEADER': return el.closest('article,aside,main,nav,section') ? null : 'banner';
    case 'FOOTER': return el.closest('article,aside,main,nav,section') ? null : 'contentinfo';
    case 'ASIDE': return 'complementary';
    case 'FORM': return 'form';
    case 'DIALOG': return 'dialog';
    case 'UL': case 'OL': case 'MENU': return 'list';
    case 'LI': return 'listitem';
    case 'TABLE': return 'table';
    case 'TR': return 'row';
    case 'IMG': return squash(el.getAttribute('alt')) ? 'img' : null;
    case 'SECTION': return (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) ? 'region' : null;
    case 'ARTICLE': return 'article';
    case 'FIELDSET': return 'group';
    case 'IFRAME': return 'iframe';
    case 'SEARCH': return 'search';
  }
  if (el.isContentEditable && (!el.parentElement || !el.parentElement.isContentEditable)) return 'textbox';
  return null;
}

// Text of a subtree, skipping form controls and one node (the labelled control).
function textExcluding(node, skip) {
  let s = '';
  for (const c of node.childNodes) {
    if (c.nodeType === 3) s += c.data;
    else if (c.nodeType === 1 && c !== skip && !FIELD_TAGS.has(c.tagName) && !SKIP_TAGS.has(c.tagName)) {
      s += ' ' + textExcluding(c, skip) + ' ';
    }
  }
  return s;
}

// Text of a subtree without its links, buttons and fields: what a row says
// about itself ("report.csv 47 KB"), not the "Delete" button in its last cell.
function ownText(node) {
  let s = '';
  for (const c of node.childNodes) {
    if (c.nodeType === 3) s += c.data;
    else if (c.nodeType === 1 && !SKIP_TAGS.has(c.tagName) && !c.matches(CLICKABLE_INSIDE)) {
      s += ' ' + ownText(c) + ' ';
    }
  }
  return s;
}

function contentName(el) {
  if (OPENABLE.has(el.getAttribute('role') || implicitRole(el, el.tagName) || '')) {
    return squash(ownText(el));
  }
  // A menu item's submenu, nested inside it, is not part of its name.
  const nested = el.querySelector('[role=menu],[role=listbox]');
  if (nested) return squash(textExcluding(el, nested));
  let text = squash(el.innerText !== undefined ? el.innerText : el.textContent);
  if (text) return text;
  const inner = el.querySelector('img[alt],[aria-label],svg title');
  if (inner) return squash(inner.getAttribute('alt') || inner.getAttribute('aria-label') || inner.textContent);
  return '';
}

function accessibleName(el, role, tag) {
  let v = el.getAttribute('aria-labelledby');
  if (v) {
    const root = el.getRootNode();
    const t = squash(v.split(/\s+/).map((id) => {
      const r = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      return r ? (r.innerText || r.textContent) : '';
    }).join(' '));
    if (t) return t;
  }
  v = squash(el.getAttribute('aria-label'));
  if (v) return v;
  if (tag === 'INPUT') {
    const t = inputType(el);
    if (t === 'submit' || t === 'reset' || t === 'button') {
      return squash(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
    }
    if (t === 'image') return squash(el.getAttribute('alt') || el.value || 'Submit');
  }
  if (FIELD_TAGS.has(tag) && el.labels && el.labels.length) {
    const t = squash(Array.from(el.labels).map((l) => textExcluding(l, el)).join(' '));
    if (t) return t;
  }
  if (tag === 'IMG' || tag === 'AREA') return squash(el.getAttribute('alt'));
  if (tag === 'FIELDSET') {
    const legend = el.querySelector(':scope > legend');
    if (legend) return squash(legend.textContent);
  }
  if (NAME_FROM_CONTENT.has(role) && !FIELD_TAGS.has(tag)) {
    const t = contentName(el);
    if (t) return t;
  }
  v = squash(el.getAttribute('placeholder'));
  if (v) return v;
  v = squash(el.getAttribute('title'));
  if (v) return v;
  return '';
}

// The open dialog holding an element (a modal's footer buttons sit outside
// its <form>), numbered in document order. A popup menu (a menu laid over the
// page, as a menu bar's, a context menu or a dropdown opens it) is one too:
// like a dialog it stands between a person and the page until it is closed,
// where a menu in the page's flow (a sidebar's navigation) does not.
const dialogs = [];
const isPopupMenu = (m) => {
  const position = getComputedStyle(m).position;
  return position === 'absolute' || position === 'fixed';
};
function dialogOf(el) {
  let d = el.closest('dialog,[role=dialog],[role=alertdialog],[aria-modal=true]');
  if (!d) {
    const menu = el.closest('[role=menu]');
    if (menu && isPopupMenu(menu)) d = menu;
  }
  if (!d) return null;
  let i = dialogs.indexOf(d);
  if (i < 0) { i = dialogs.length; dialogs.push(d); }
  return i;
}

// The repeated container of an element: the nearest ancestor-or-self that
// has a sibling of the same kind (tag and class), i.e. a row, item or card of
// a list. Elements in rows of one list share the list's number.
const groups = new Map();
const kindOf = (e) => e.tagName + '.' + (typeof e.className === 'string' ? e.className : '');
function groupOf(el) {
  let node = el;
  for (let up = 0; node && node.parentElement && up < 8; up++, node = node.parentElement) {
    const parent = node.parentElement;
    if (parent.children.length < 2) continue;
    const kind = kindOf(node);
    let same = 0;
    for (const sibling of parent.children) if (kindOf(sibling) === kind && ++same > 1) break;
    if (same > 1) {
      if (!groups.has(parent)) groups.set(parent, groups.size);
      return groups.get(parent);
    }
  }
  return null;
}

// Same document: "#frag"; same directory: relative; same site: absolute path;
// elsewhere: the full URL. (The full URL is always in the element info.)
const here = new URL(location.href);
const hereDir = here.pathname.slice(0, here.pathname.lastIndexOf('/') + 1);
function shortUrl(href) {
  if (!href || href.startsWith('javascript:')) return null;
  let u;
  try { u = new URL(href); } catch (e) { return href; }
  const sameSite = u.protocol === here.protocol && u.host === here.host;
  if (!sameSite) return href;
  if (u.pathname === here.pathname && u.search === here.search && u.hash) return u.hash;
  const tail = u.search + u.hash;
  if (hereDir.length > 1 && u.pathname.startsWith(hereDir) && u.pathname.length > hereDir.length) {
    return u.pathname.slice(hereDir.length) + tail;
  }
  return u.pathname + tail;
}

function describe(el, role, tag, name) {
  const attrs = [];
  let value = null;
  const info = { role, name, tag: tag.toLowerCase(), href: null, type: null, fieldName: null,
    value: null, checked: null, disabled: false, required: false, options: [], form: null,
    dialog: dialogOf(el), group: groupOf(el) };
  if (tag === 'A' || tag === 'AREA') {
    info.href = el.href || null;
    const u = shortUrl(el.href);
    if (u) attrs.push(['url', cut(u, 120)]);
  }
  if (FIELD_TAGS.has(tag) || tag === 'BUTTON') {
    // A button's type says whether it submits its form (`submit`) or only
    // does something in the page (`button`).
    if (tag === 'BUTTON') info.type = el.type || 'submit';
    info.fieldName = el.getAttribute('name');
    info.disabled = !!el.disabled;
    info.required = !!el.required;
    if (el.form) { const i = forms.indexOf(el.form); info.form = i >= 0 ? i : null; }
  } else if (el.getAttribute('aria-disabled') === 'true') {
    info.disabled = true;
  }
  if (tag === 'INPUT') {
    const t = inputType(el);
    info.type = t;
    if (t === 'checkbox' || t === 'radio') {
      info.checked = !!el.checked;
      if (el.checked) attrs.push(['checked', '']);
      info.value = el.value;
    } else if (role === 'textbox' || role === 'searchbox' || role === 'spinbutton' ||
               role === 'combobox' || role === 'slider') {
      if (t !== 'text' && t !== 'search') attrs.push(['type', t]);
      if (t === 'password') { if (el.value) value = '\u2022\u2022\u2022\u2022'; }
      else { info.value = el.value; if (el.value) value = cut(squash(el.value), 100); }
    }
  } else if (tag === 'TEXTAREA') {
    info.value = el.value;
    if (el.value) value = cut(squash(el.value), 100);
  } else if (tag === 'SELECT') {
    for (const o of el.options) {
      info.options.push({ value: o.value, label: squash(o.label || o.text), selected: o.selected });
    }
    const chosen = Array.from(el.selectedOptions).map((o) => squash(o.label || o.text));
    info.value = el.value;
    if (chosen.length) value = cut(chosen.join(', '), 100);
  } else if (el.isContentEditable) {
    info.value = el.innerText;
    const t = squash(el.innerText);
    if (t) value = cut(t, 100);
  }
  const checked = el.getAttribute('aria-checked');
  if (checked !== null && tag !== 'INPUT') {
    info.checked = checked === 'true';
    if (checked === 'true') attrs.push(['checked', '']);
  }
  if (info.disabled) attrs.push(['disabled', '']);
  if (info.required) attrs.push(['required', '']);
  if (el.getAttribute('aria-expanded') === 'true') attrs.push(['expanded', '']);
  if (el.getAttribute('aria-pressed') === 'true') attrs.push(['pressed', '']);
  if (el.getAttribute('aria-selected') === 'true') attrs.push(['selected', '']);
  // A tab's "checked" is whether it is the selected one: the panel it shows.
  if (role === 'tab' && el.hasAttribute('aria-selected')) {
    info.checked = el.getAttribute('aria-selected') === 'true';
  }
  return { attrs, value, info };
}

// --- the walk -----------------------------------------------------------
let pending = '';
let pendingDepth = 0;

function push(line) {
  // A product image beside its link repeats the link's name: keep one line.
  const prev = lines[lines.length - 1];
  if (prev && prev[0] === line[0] && line[2] && prev[2] === line[2]) {
    if (line[1] === 'img') return true;
    if (prev[1] === 'img' && line[3] >= 0) lines.pop();
  }
  if (lines.length >= MAX_LINES) { omitted++; return false; }
  lines.push(line);
  return true;
}

function flush() {
  const t = squash(pending);
  pending = '';
  if (t) push([pendingDepth, 'text', null, -1, [], cut(t)]);
}

function addText(s, depth) {
  if (!pending.trim()) pendingDepth = depth;
  pending += s;
}

function children(node) {
  if (node.shadowRoot) return node.shadowRoot.childNodes;
  if (node.tagName === 'SLOT') {
    const assigned = node.assignedNodes({ flatten: true });
    if (assigned.length) return assigned;
  }
  return node.childNodes;
}

function walkChildren(node, depth) {
  for (const c of children(node)) walk(c, depth);
}

function isBlock(display) {
  return !display.startsWith('inline') && display !== 'contents';
}

function hasInteractiveInside(el) {
  return !!el.querySelector(CLICKABLE_INSIDE);
}

function emitElement(el, role, tag, depth) {
  const name = accessibleName(el, role, tag);
  const { attrs, value, info } = describe(el, role, tag, name);
  const index = handles.length;
  if (!push([depth, role, name ? cut(name, 100) : null, index, attrs, value])) return;
  handles.push(el);
  infos.push(info);
  if (tag === 'SELECT') {
    let shown = 0;
    for (const o of info.options) {
      if (shown++ >= MAX_OPTIONS) {
        push([depth + 1, 'note', null, -1, [], (info.options.length - MAX_OPTIONS) + ' more options']);
        break;
      }
      push([depth + 1, 'option', cut(o.label, 80), -1, o.selected ? [['selected', '']] : [], null]);
    }
  }
}

function walk(node, depth) {
  if (node.nodeType === 3) {
    if (quiet) return;
    const parent = node.parentElement;
    if (node.data.trim() && (!parent || getComputedStyle(parent).visibility !== 'hidden')) {
      addText(node.data, depth);
    } else if (node.data.length) {
      addText(' ', depth);
    }
    return;
  }
  if (node.nodeType === 11) { walkChildren(node, depth); return; }
  if (node.nodeType !== 1) return;
  const el = node;
  const tag = el.tagName;
  if (SKIP_TAGS.has(tag)) return;
  if (tag === 'BR') { addText(' ', depth); return; }
  if (el.getAttribute('aria-hidden') === 'true' || el.hidden) return;
  if (tag === 'INPUT' && inputType(el) === 'hidden') return;
  if (el.checkVisibility && !el.checkVisibility()) return;
  const style = getComputedStyle(el);
  if (style.display === 'none') return;
  const invisible = style.visibility === 'hidden' || style.visibility === 'collapse';

  const explicit = (el.getAttribute('role') || '').split(/\s+/)[0].toLowerCase();
  let role = explicit && explicit !== 'presentation' && explicit !== 'none' && explicit !== 'generic'
    ? explicit : implicitRole(el, tag);
  if (!role && !invisible && style.cursor === 'pointer' && tag !== 'LABEL' &&
      !(el.parentElement && getComputedStyle(el.parentElement).cursor === 'pointer') &&
      !hasInteractiveInside(el) && squash(el.innerText)) {
    role = 'clickable';
  }
  const block = isBlock(style.display);

  if (tag === 'LABEL' && el.control && !invisible) {
    const control = el.control;
    const controlShown = !control.checkVisibility || control.checkVisibility();
    if (!controlShown && control.type !== 'hidden') {
      // A styled checkbox/radio: the input is hidden, the label is what a user clicks.
      flush();
      const role = implicitRole(control, control.tagName) || 'clickable';
      const name = squash(textExcluding(el, control));
      const attrs = control.checked ? [['checked', '']] : [];
      if (push([depth, role, name ? cut(name, 100) : null, handles.length, attrs, null])) {
        handles.push(el);
        infos.push({ role, name, tag: 'label', href: null, type: control.type || null,
          fieldName: control.getAttribute('name'), value: control.value, checked: !!control.checked,
          disabled: !!control.disabled, required: !!control.required, options: [],
          form: control.form ? forms.indexOf(control.form) : null,
          dialog: dialogOf(el), group: groupOf(el) });
      }
      return;
    }
  }
  // Text that names a control is said once, by the control; a control that
  // names another (a tab labelling its tab panel) is still a control.
  if ((tag === 'LABEL' && el.control) || (labelTargets.has(el) && !INTERACTIVE.has(role))) {
    quiet++;
    walkChildren(el, depth);
    quiet--;
    return;
  }

  // A row, list item or tree item that reacts to the pointer (a file list
  // whose rows open on click or double-click) is something to act on, even
  // with buttons of its own inside.
  if (role && OPENABLE.has(role) && !invisible && style.cursor === 'pointer' &&
      !(el.parentElement && getComputedStyle(el.parentElement).cursor === 'pointer')) {
    flush();
    emitElement(el, role, tag, depth);
    walkChildren(el, depth + 1);
    flush();
    return;
  }
  if (role && INTERACTIVE.has(role) && !invisible) {
    flush();
    emitElement(el, role, tag, depth);
    if (hasInteractiveInside(el) && !FIELD_TAGS.has(tag)) walkChildren(el, depth + 1);
    flush();
    return;
  }
  if (role === 'heading' && !invisible) {
    flush();
    const level = (tag.length === 2 && tag[0] === 'H') ? tag[1] : (el.getAttribute('aria-level') || '2');
    if (hasInteractiveInside(el)) {
      push([depth, 'heading', null, -1, [['level', level]], null]);
      walkChildren(el, depth + 1);
      flush();
    } else {
      const name = accessibleName(el, role, tag);
      if (name) push([depth, 'heading', cut(name), -1, [['level', level]], null]);
    }
    return;
  }
  if ((role === 'img' || role === 'iframe') && !invisible) {
    flush();
    const name = role === 'img' ? squash(el.getAttribute('alt')) : squash(el.getAttribute('title') || el.getAttribute('name'));
    if (role === 'iframe') push([depth, 'iframe', name ? cut(name, 80) : null, -1, [['url', cut(shortUrl(el.src) || '', 120)]], null]);
    else if (name) push([depth, 'img', cut(name, 80), -1, [], null]);
    return;
  }
  if (role && CONTAINERS.has(role)) {
    flush();
    const at = lines.length;
    const name = (role === 'form' || role === 'region' || role === 'dialog' || role === 'group' ||
      role === 'navigation') ? accessibleName(el, role, tag) : '';
    if (!push([depth, role, name ? cut(name, 80) : null, -1, [], null])) return;
    walkChildren(el, depth + 1);
    flush();
    collapse(at, role);
    return;
  }
  if (tag === 'TD' || tag === 'TH') {
    flush();
    walkChildren(el, depth);
    flush();
    return;
  }
  if (block) flush();
  walkChildren(el, depth);
  if (block) flush();
}

// Drops empty containers; inlines single-child list items and text-only rows.
function collapse(at, role) {
  if (at >= lines.length) return;
  const kids = lines.length - at - 1;
  if (kids === 0) { lines.length = at; return; }
  const head = lines[at];
  if (role === 'listitem' && kids === 1) {
    const only = lines[at + 1];
    if (only[1] === 'text') { head[5] = only[5]; lines.length = at + 1; }
    else { only[0] = head[0]; lines.splice(at, 1); }
    return;
  }
  if (role === 'row') {
    const cells = lines.slice(at + 1);
    if (cells.every((l) => l[1] === 'text' && l[0] === head[0] + 1)) {
      head[5] = cut(cells.map((l) => l[5]).join(' | '), MAX_TEXT * 2);
      lines.length = at + 1;
    }
  }
}

walk(document.body || document.documentElement, 0);
flush();
return { url: location.href, title: document.title, lines, handles, infos, omitted };
