//! Small page scripts the actions run through WebDriver `execute`. Each only
//! reads the page or does what a user's input would (submit, select, scroll);
//! none leaves anything behind in the DOM.

/// Decides how to submit a field: its form when Enter would not submit it.
pub(crate) const SUBMIT_SCRIPT: &str = r"
const el = arguments[0], f = el.form;
if (!f) return 'enter';
const hasButton = f.querySelector('button:not([type]),button[type=submit],input[type=submit],input[type=image]');
const textFields = Array.from(f.elements).filter((e) => e.tagName === 'INPUT' &&
  !['hidden','checkbox','radio','button','submit','reset','image','file'].includes(e.type)).length;
if (el.tagName === 'TEXTAREA' || (!hasButton && textFields > 1)) { f.requestSubmit(); return 'form'; }
return 'enter';";

/// The value of a text field as the page now holds it (`null` for anything else).
pub(crate) const FIELD_VALUE_SCRIPT: &str = r"
const el = arguments[0];
return (el.tagName === 'INPUT' && el.type !== 'file') || el.tagName === 'TEXTAREA' ? el.value : null;";

/// Finds the option to select by value, then label, then label ignoring case.
pub(crate) const FIND_OPTION_SCRIPT: &str = r"
const [el, want] = arguments;
if (el.tagName !== 'SELECT') return { error: 'not_select' };
const opts = Array.from(el.options);
const label = (o) => (o.label || o.text).replace(/\s+/g, ' ').trim();
const w = want.trim();
const o = opts.find((o) => o.value === want) || opts.find((o) => label(o) === w) ||
  opts.find((o) => label(o).toLowerCase() === w.toLowerCase());
if (!o) return { error: 'missing', options: opts.map(label) };
if (o.disabled) return { error: 'disabled' };
return { option: o, label: label(o) };";

/// Selects an option by script when a WebDriver click did not (custom styling).
pub(crate) const FORCE_OPTION_SCRIPT: &str = r"
const [el, o] = arguments;
if (!o.selected) { o.selected = true;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true })); }";

/// Scrolls the document, or the biggest scrollable box when the document does not scroll.
pub(crate) const SCROLL_SCRIPT: &str = r"
const [kind, x, y] = arguments;
let box = document.scrollingElement || document.documentElement;
if (box.scrollHeight <= box.clientHeight + 1) {
  let best = null, area = 0;
  for (const e of document.querySelectorAll('*')) {
    const s = getComputedStyle(e);
    if (e.scrollHeight > e.clientHeight + 1 && /(auto|scroll)/.test(s.overflowY)) {
      const a = e.clientWidth * e.clientHeight;
      if (a > area) { area = a; best = e; }
    }
  }
  if (best) box = best;
}
const page = box.clientHeight * 0.9;
if (kind === 'down') box.scrollBy(0, page);
else if (kind === 'up') box.scrollBy(0, -page);
else if (kind === 'top') box.scrollTo(0, 0);
else if (kind === 'bottom') box.scrollTo(0, box.scrollHeight);
else box.scrollBy(x, y);";
