// unolaunch web pages: shared helpers (no external resources; names only as text).
"use strict";

// The page's words: the server puts the catalog of the page's language (the game's, or the
// language this phone chose) in <script type="application/json" id="i18n">. The calls of
// t, tn (a count), tc (with a context: one English word, two translations), tp and tnp
// (with players' names) are what tools/catalogs.py extracts (Babel) for the translators;
// {fields} are filled after translating, so a translator can move them.
const I18N = (function () {
  const node = document.getElementById("i18n");
  let data = {};
  try { data = node ? JSON.parse(node.textContent) : {}; } catch (e) { data = {}; }
  return {
    lang: data.lang || document.documentElement.lang || "en",
    messages: data.messages || {},
    plural: data.plural || null, // the plural form of n = 0..199 (see pluralIndex)
    names: data.names || {},
    game: data.game || data.lang || "en",
  };
})();

function fill(text, fields) {
  if (!fields) return text;
  return text.replace(/\{(\w+)\}/g, (m, k) => (Object.prototype.hasOwnProperty.call(fields, k) ? String(fields[k]) : m));
}

function pluralIndex(n) {
  // The rule of every language depends on n % 100 once n >= 100 (gettext's and CLDR's
  // rules look at n % 10, n % 100 and small numbers), so 0..199 are enough.
  const p = I18N.plural;
  const k = Math.abs(Math.trunc(Number(n) || 0));
  if (!p) return k === 1 ? 0 : 1;
  return p[k < p.length ? k : 100 + (k % 100)];
}

function raw(msgid) { const m = I18N.messages[msgid]; return typeof m === "string" ? m : msgid; }
function rawN(singular, plural, n) {
  const m = I18N.messages[singular];
  if (Array.isArray(m) && m.length) return m[Math.min(pluralIndex(n), m.length - 1)];
  return n === 1 ? singular : plural;
}

function t(msgid, fields) { return fill(raw(msgid), fields); }
function tn(singular, plural, n, fields) { return fill(rawN(singular, plural, n), Object.assign({ n }, fields || {})); }
function tc(context, msgid, fields) {
  const m = I18N.messages[context + "\u0004" + msgid];
  return fill(typeof m === "string" ? m : msgid, fields);
}

// A translated sentence as parts() takes it: a field given as {name: "Ann"} becomes the
// player's name, isolated (a sentence is never glued from halves).
function split(text, fields) {
  const out = [];
  let last = 0;
  text.replace(/\{(\w+)\}/g, (m, k, at) => {
    out.push(text.slice(last, at));
    const v = fields && Object.prototype.hasOwnProperty.call(fields, k) ? fields[k] : m;
    out.push(v && typeof v === "object" ? v : String(v));
    last = at + m.length;
    return m;
  });
  out.push(text.slice(last));
  return out.filter((x) => x !== "");
}
function tp(msgid, fields) { return split(raw(msgid), fields); }
function tnp(singular, plural, n, fields) { return split(rawN(singular, plural, n), Object.assign({ n }, fields || {})); }

// The colours: the letter and the name are data (actions, classes); the label is shown.
const COLOURS = {
  // TRANSLATORS: a colour named alone (the colour to match, a colour button): as "litur" takes it
  r: { name: "red", mark: "●", label: tc("colour", "red") },
  y: { name: "yellow", mark: "▲", label: tc("colour", "yellow") },
  g: { name: "green", mark: "■", label: tc("colour", "green") },
  b: { name: "blue", mark: "◆", label: tc("colour", "blue") },
};
const COLOUR_BY_NAME = { red: "r", yellow: "y", green: "g", blue: "b" };
// Each card's symbol; its words come from the server (state.card_names: the terminal's
// card names in the page's language), these English ones only until the first state.
// TRANSLATORS: the letters printed big on a card for its kind (H2: Hit 2, DA: Discard All,
// W: Wild, H4: Wild Hit 4, AA: Wild Attack-Attack, WC: Wild Customizable, HF: Wild Hit
// Fire, AH: Wild All Hit, IB: Wild Item Box, DD: Wild Dip Into The Deck); two letters.
const KINDS = {
  S: { mark: "⊘" },
  R: { mark: "⇄" },
  // TRANSLATORS: the letters printed big on a card for its kind (two at most; H2: Hit 2)
  H2: { mark: tc("card mark", "H2") },
  DA: { mark: tc("card mark", "DA") },
  TH: { mark: "⇆" },
  "+2": { mark: "+2" },
  "+1": { mark: "+1" },
  W: { mark: tc("card mark", "W") },
  WH4: { mark: tc("card mark", "H4") },
  WAA: { mark: tc("card mark", "AA") },
  WC: { mark: tc("card mark", "WC") },
  WHF: { mark: tc("card mark", "HF") },
  WAH: { mark: tc("card mark", "AH") },
  "W+4": { mark: "+4" },
  WIB: { mark: tc("card mark", "IB") },
  "W+2": { mark: "+2" },
  WDD: { mark: tc("card mark", "DD") },
};
const cardNames = {};
function setCardNames(names) { Object.assign(cardNames, names || {}); }

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function isWild(code) { return code.startsWith("W"); }

function cardParts(code) {
  if (!code) return { colour: null, kind: "?", mark: "?", name: t("no card yet") };
  const name = cardNames[code] || code;
  if (isWild(code)) {
    const k = KINDS[code] || { mark: code };
    return { colour: null, kind: code, mark: k.mark, name };
  }
  const c = COLOURS[code[0]];
  const kind = code.slice(1);
  const k = KINDS[kind] || { mark: kind };
  return { colour: c ? c.name : null, kind, mark: k.mark, name };
}

// A card as a block: its colour, the colour's shape, the symbol and the words.
function cardNode(node, code, named) {
  const p = cardParts(code);
  const colour = p.colour || named || null;
  node.className = node.className.replace(/\bc-\w+\b/g, "").trim();
  node.classList.add("card", "c-" + (p.colour || (code ? "wild" : "none")));
  clear(node);
  const shape = colour ? COLOURS[COLOUR_BY_NAME[colour]].mark : "★";
  // The shape and the symbol are pictures of the words beside them: a screen reader
  // reads the words, which are also what a button is named by (its visible text).
  const corner = node.appendChild(el("span", "corner", shape));
  const mark = node.appendChild(el("span", "mark", p.mark));
  corner.setAttribute("aria-hidden", "true");
  mark.setAttribute("aria-hidden", "true");
  node.appendChild(el("span", "name", p.name));
  const label = named ? COLOURS[COLOUR_BY_NAME[named]].label : "";
  if (!p.colour && named) node.appendChild(el("span", "named c-" + named, "→ " + label.toUpperCase()));
  if (node.tagName !== "BUTTON") {
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", code ? (named && !p.colour ? t("{card}, colour {colour}", { card: p.name, colour: label }) : p.name) : t("no card yet"));
  }
  node.dataset.code = code || "";
  return node;
}

// A player's name as its own piece of text: a right-to-left name never reorders the
// words around it (issue 23: "armed for 2 · שלום presses left").
function nameNode(name) {
  return el("bdi", "name-of", name);
}

// Text with names in it: ["armed for ", {name: "Ann"}, " · 1 press left"].
function parts(node, list) {
  clear(node);
  for (const part of list) {
    if (part && typeof part === "object") node.appendChild(nameNode(part.name));
    else if (part) node.appendChild(document.createTextNode(String(part)));
  }
  return node;
}

// Text from the table (a log line, a notice) with the players' names in it isolated.
function named(node, text, names) {
  const list = [];
  const sorted = (names || []).filter(Boolean).slice().sort((a, b) => b.length - a.length);
  let rest = String(text || "");
  while (rest) {
    let at = -1;
    let who = null;
    for (const n of sorted) {
      const i = rest.indexOf(n);
      if (i >= 0 && (at < 0 || i < at)) { at = i; who = n; }
    }
    if (who === null) { list.push(rest); break; }
    list.push(rest.slice(0, at), { name: who });
    rest = rest.slice(at + who.length);
  }
  return parts(node, list);
}

function colourWord(node, colour) {
  clear(node);
  node.className = "colour-word" + (colour ? " t-" + colour : "");
  if (!colour) { node.textContent = "—"; return; }
  const c = COLOURS[COLOUR_BY_NAME[colour]];
  node.textContent = c.mark + " " + c.label.toUpperCase();
}

// The API answers in the page's language (server-made words: card names, what the awaited
// player does, refusals); the game's log stays in the game's language (docs/web.md).
function langQuery() { return "?lang=" + encodeURIComponent(I18N.lang); }

// A phone's language button: one button per other language, named in that language; the
// choice is kept for this phone (a cookie for its own link's path) and the page reloads
// in it. The table view has none: it follows the game.
function languageButtons(parent) {
  const box = el("nav", "langs");
  box.setAttribute("aria-label", t("Language"));
  for (const [code, name] of Object.entries(I18N.names)) {
    if (code === I18N.lang) continue;
    const b = el("button", "btn lang", name);
    b.type = "button";
    b.lang = code;
    b.dataset.lang = code;
    b.addEventListener("click", () => {
      document.cookie = "unolaunch_lang=" + code + "; path=" + location.pathname + "; max-age=31536000; samesite=strict";
      location.reload();
    });
    if (box.firstChild) box.appendChild(document.createTextNode(" "));
    box.appendChild(b);
  }
  parent.appendChild(box);
  return box;
}

// Live state: server-sent events (the browser reconnects by itself and the server sends
// the whole state at once on every connection), with a poll if the stream is refused.
function follow(onState, onOpen) {
  const live = document.getElementById("live");
  let source = null;
  function status(text, ok) {
    if (!live) return;
    live.textContent = text;
    live.classList.toggle("ok", ok);
  }
  function start() {
    source = new EventSource("/api/events" + langQuery());
    source.onopen = () => { status(t("live"), true); if (onOpen) onOpen(); };
    source.onmessage = (ev) => {
      status(t("live"), true);
      try { const st = JSON.parse(ev.data); setCardNames(st.card_names); onState(st); } catch (e) { console.error(e); }
    };
    source.onerror = () => status(t("reconnecting…"), false);
  }
  start();
  return {
    stop() { if (source) source.close(); status(t("not connected"), false); },
    refresh() {
      return fetch("/api/state" + langQuery(), { cache: "no-store" }).then((r) => r.json()).then((st) => { setCardNames(st.card_names); onState(st); });
    },
  };
}

window.uno = {
  el, clear, cardNode, colourWord, cardParts, follow, isWild, nameNode, parts, named, COLOURS, COLOUR_BY_NAME, KINDS,
  t, tn, tc, tp, tnp, I18N, setCardNames, langQuery, languageButtons,
};
