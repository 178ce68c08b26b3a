// The table view: read-only, large, updated live.
"use strict";
(function () {
  const { el, clear, cardNode, colourWord, follow, nameNode, parts, named } = window.uno;
  const $ = (id) => document.getElementById(id);
  let lastFire = null;
  let fireTimer = null;

  function render(s) {
    document.body.dataset.version = s.version;
    $("title").textContent = s.title;
    $("round").textContent = "round " + s.round + " · to " + s.target + (s.game ? " · game " + s.game : "");
    cardNode($("top"), s.top, s.top && s.top.startsWith("W") ? s.color : null);
    colourWord($("color"), s.color);
    $("direction").textContent = s.direction === 1 ? "↻ play goes left" : "↺ play goes right";

    const banner = $("banner");
    if (s.game_winner) {
      banner.hidden = false;
      parts(banner, ["★ ", { name: s.game_winner }, " wins the game with " + s.scores[s.game_winner] + " points!"]);
    } else if (s.round_winner) {
      banner.hidden = false;
      const pts = s.round_points !== null && s.round_points !== undefined ? " (+" + s.round_points + " points)" : "";
      parts(banner, [{ name: s.round_winner }, " wins round " + s.round + pts]);
    } else {
      banner.hidden = true;
    }

    const aw = s.awaiting;
    if (aw) parts($("who"), ["▶ ", { name: aw.by }]);
    else $("who").textContent = s.game_winner ? "game over" : "round over";
    $("doing").textContent = aw ? aw.doing : (s.game_winner ? "" : "deal the next round");

    const players = clear($("players"));
    for (const p of s.players) {
      const box = el("div", "player" + (p.awaited ? " awaited" : "") + (p.one_card ? " one" : ""));
      box.dataset.player = p.name;
      const head = parts(el("div", "pname"), [p.awaited ? "▶ " : "", { name: p.name }]);
      if (p.dealer) head.appendChild(el("span", "tag", "dealer"));
      box.appendChild(head);
      const hand = el("div", "hand");
      hand.appendChild(el("span", "count", p.hand_size));
      hand.appendChild(el("span", "unit", p.hand_size === 1 ? " card" : " cards"));
      box.appendChild(hand);
      if (p.one_card) box.appendChild(el("div", "uno " + (p.uno ? "said" : "unsaid"), p.uno ? "UNO!" : "1 card — UNO not said"));
      box.appendChild(el("div", "score", p.score + " points"));
      if (p.owes) box.appendChild(el("div", "owes", "owes " + p.owes + " press" + (p.owes === 1 ? "" : "es")));
      if (p.owes_text) box.appendChild(el("div", "owes-text", p.owes_text));
      players.appendChild(box);
    }

    const launcher = $("launcher");
    const L = s.launcher;
    if (L) {
      launcher.hidden = false;
      clear(launcher);
      launcher.appendChild(el("span", "label", "launcher"));
      let state;
      if (!L.connected) state = ["UNPLUGGED — plug it back in"];
      else if (L.fault) state = ["FAULT: " + L.fault];
      else if (L.armed) state = ["armed for ", { name: L.armed.player }, " · " + (L.armed.mode === "until_card" ? "until a card comes out" : L.armed.presses + " press" + (L.armed.presses === 1 ? "" : "es") + " left")];
      else state = ["disarmed (a press now is a foul)"];
      launcher.appendChild(parts(el("span", "lstate" + (L.fault || !L.connected ? " bad" : "")), state));
      if (L.cards_inside !== null && L.cards_inside !== undefined) launcher.appendChild(el("span", "inside", L.cards_inside + " cards inside"));
      launcher.appendChild(el("span", "counts", L.presses + (L.presses === 1 ? " press · " : " presses · ") + L.cards_out + " cards out · " + L.fouls + (L.fouls === 1 ? " foul" : " fouls")));
    } else {
      launcher.hidden = true;
    }

    const names = s.players.map((p) => p.name);
    const warning = $("warning");
    warning.hidden = !s.warning;
    named(warning, s.warning ? "⚠ " + s.warning : "", names);

    // A press is news only to a page that saw the state before it: opening or reloading
    // the page shows the game as it is, not the last press again.
    if (s.fire && lastFire !== null && s.fire.seq !== lastFire) showFire(s.fire);
    lastFire = s.fire ? s.fire.seq : 0;

    const reminder = $("reminder");
    reminder.hidden = !s.reminder;
    named(reminder, s.reminder ? "☞ " + s.reminder : "", names);

    const log = clear($("log"));
    for (const line of (s.log || []).slice(-6).reverse()) log.appendChild(named(el("li"), line, names));

    roundsTable(s);
  }

  // Who won which round, with how many points: what a family looks at between rounds.
  function roundsTable(s) {
    const box = $("rounds");
    const rounds = s.rounds || [];
    box.hidden = rounds.length === 0;
    if (!rounds.length) return;
    const table = el("table", "rounds-table");
    table.appendChild(el("caption", null, "Scores by round"));
    const head = el("tr");
    head.appendChild(el("th", null, "Round")).setAttribute("scope", "col");
    for (const p of s.players) {
      const th = head.appendChild(el("th"));
      th.setAttribute("scope", "col");
      th.appendChild(nameNode(p.name));
    }
    table.appendChild(el("thead")).appendChild(head);
    const body = table.appendChild(el("tbody"));
    for (const r of rounds) {
      const row = body.appendChild(el("tr"));
      row.dataset.round = r.round;
      const th = row.appendChild(el("th", null, String(r.round)));
      th.setAttribute("scope", "row");
      for (const p of s.players) row.appendChild(el("td", p.name === r.winner ? "won" : null, p.name === r.winner ? "★ +" + r.points : "—"));
    }
    const foot = table.appendChild(el("tfoot")).appendChild(el("tr"));
    foot.appendChild(el("th", null, "Total")).setAttribute("scope", "row");
    for (const p of s.players) foot.appendChild(el("td", null, String(p.score)));
    clear(box).appendChild(table);
  }

  function showFire(f) {
    const box = $("fire");
    const n = f.cards;
    parts(box, n === 0
      ? ["○ ", { name: f.player }, " pressed — no card came out"]
      : ["✸ " + n + " card" + (n === 1 ? "" : "s") + " for ", { name: f.player }, "!"]);
    box.dataset.seq = f.seq;
    box.hidden = false;
    box.classList.remove("pop");
    void box.offsetWidth;
    box.classList.add("pop");
    clearTimeout(fireTimer);
    fireTimer = setTimeout(() => { box.hidden = true; }, 3500);
  }

  follow(render);
})();
