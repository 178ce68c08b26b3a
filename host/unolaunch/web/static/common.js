// unolaunch web pages: shared helpers (no external resources; names only as text).
"use strict";

const COLOURS = {
  r: { name: "red", mark: "●" },
  y: { name: "yellow", mark: "▲" },
  g: { name: "green", mark: "■" },
  b: { name: "blue", mark: "◆" },
};
const COLOUR_BY_NAME = { red: "r", yellow: "y", green: "g", blue: "b" };
const KINDS = {
  S: { mark: "⊘", name: "Skip" },
  R: { mark: "⇄", name: "Reverse" },
  H2: { mark: "H2", name: "Hit 2" },
  DA: { mark: "DA", name: "Discard All" },
  TH: { mark: "⇆", name: "Trade Hands" },
  "+2": { mark: "+2", name: "Draw Two" },
  "+1": { mark: "+1", name: "Draw One" },
  W: { mark: "W", name: "Wild" },
  WH4: { mark: "H4", name: "Wild Hit 4" },
  WAA: { mark: "AA", name: "Wild Attack-Attack" },
  WC: { mark: "WC", name: "Wild Customizable" },
  WHF: { mark: "HF", name: "Wild Hit Fire" },
  WAH: { mark: "AH", name: "Wild All Hit" },
  "W+4": { mark: "+4", name: "Wild Draw Four" },
  WIB: { mark: "IB", name: "Wild Item Box" },
  "W+2": { mark: "+2", name: "Wild Draw 2" },
  WDD: { mark: "DD", name: "Wild Dip Into The Deck" },
};

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
  if (!code) return { colour: null, kind: "?", mark: "?", name: "no card yet" };
  if (isWild(code)) {
    const k = KINDS[code] || { mark: code, name: code };
    return { colour: null, kind: code, mark: k.mark, name: k.name };
  }
  const c = COLOURS[code[0]];
  const kind = code.slice(1);
  const k = KINDS[kind] || { mark: kind, name: kind };
  return { colour: c ? c.name : null, kind, mark: k.mark, name: (c ? c.name + " " : "") + k.name };
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
  if (!p.colour && named) node.appendChild(el("span", "named c-" + named, "→ " + named.toUpperCase()));
  if (node.tagName !== "BUTTON") {
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", code ? p.name + (named && !p.colour ? ", colour " + named : "") : "no card yet");
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
  node.textContent = COLOURS[COLOUR_BY_NAME[colour]].mark + " " + colour.toUpperCase();
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
    source = new EventSource("/api/events");
    source.onopen = () => { status("live", true); if (onOpen) onOpen(); };
    source.onmessage = (ev) => {
      status("live", true);
      try { onState(JSON.parse(ev.data)); } catch (e) { console.error(e); }
    };
    source.onerror = () => status("reconnecting…", false);
  }
  start();
  return {
    stop() { if (source) source.close(); status("not connected", false); },
    refresh() {
      return fetch("/api/state", { cache: "no-store" }).then((r) => r.json()).then(onState);
    },
  };
}

window.uno = { el, clear, cardNode, colourWord, cardParts, follow, isWild, nameNode, parts, named, COLOURS, COLOUR_BY_NAME, KINDS };
