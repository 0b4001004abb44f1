// Elements built from data: every value goes in as a text node or an
// attribute value, never as markup, so nothing the gateway returns can run.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      el.className = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

const SVG = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

// A table from rows: columns are [heading, row => value] pairs.
export function table(caption, columns, rows, attrs) {
  return h(
    'table',
    attrs,
    h('caption', null, caption),
    h('thead', null, h('tr', null, columns.map(([heading]) => h('th', { scope: 'col' }, heading)))),
    h(
      'tbody',
      null,
      rows.length === 0
        ? h('tr', null, h('td', { colspan: columns.length, class: 'empty' }, 'None'))
        : rows.map((row) => h('tr', null, columns.map(([, cell]) => h('td', null, cell(row))))),
    ),
  );
}

export function field(label, control) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 10)}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control);
}

export function formatTime(unixSeconds) {
  if (unixSeconds === null || unixSeconds === undefined) return '';
  return new Date(unixSeconds * 1000).toISOString().replace('.000Z', 'Z');
}

export function usd(value) {
  return value === null || value === undefined ? '' : `$${value}`;
}
