// The table view: read-only, large, updated live.
"use strict";
(function () {
  const { el, clear, cardNode, colourWord, follow, nameNode, parts, named, t, tn, tp, tnp } = window.uno;
  const $ = (id) => document.getElementById(id);
  let lastFire = null;
  let fireTimer = null;

  function render(s) {
    document.body.dataset.version = s.version;
    $("title").textContent = s.title;
    $("round").textContent = s.game
      ? t("round {round} · to {target} · game {game}", { round: s.round, target: s.target, game: s.game })
      : t("round {round} · to {target}", { round: s.round, target: s.target });
    cardNode($("top"), s.top, s.top && s.top.startsWith("W") ? s.color : null);
    colourWord($("color"), s.color);
    $("direction").textContent = s.direction === 1 ? t("↻ play goes left") : t("↺ play goes right");

    const banner = $("banner");
    if (s.game_winner) {
      banner.hidden = false;
      const pts = s.scores[s.game_winner];
      parts(banner, ["★ ", ...tnp("{player} wins the game with {n} point!", "{player} wins the game with {n} points!", pts, { player: { name: s.game_winner } })]);
    } else if (s.round_winner) {
      banner.hidden = false;
      const fields = { player: { name: s.round_winner }, round: s.round };
      parts(banner, s.round_points !== null && s.round_points !== undefined
        ? tnp("{player} wins round {round} (+{n} point)", "{player} wins round {round} (+{n} points)", s.round_points, fields)
        : tp("{player} wins round {round}", fields));
    } else {
      banner.hidden = true;
    }

    const aw = s.awaiting;
    if (aw) parts($("who"), ["▶ ", { name: aw.by }]);
    else $("who").textContent = s.game_winner ? t("game over") : t("round over");
    $("doing").textContent = aw ? aw.doing : (s.game_winner ? "" : t("deal the next round"));

    const players = clear($("players"));
    for (const p of s.players) {
      const box = el("div", "player" + (p.awaited ? " awaited" : "") + (p.one_card ? " one" : ""));
      box.dataset.player = p.name;
      const head = parts(el("div", "pname"), [p.awaited ? "▶ " : "", { name: p.name }]);
      if (p.dealer) head.appendChild(el("span", "tag", t("dealer")));
      box.appendChild(head);
      const hand = el("div", "hand");
      // the count big, its word small: "7 cards" said as one (the count is the number)
      const said = tn("{n} card", "{n} cards", p.hand_size);
      const at = said.indexOf(String(p.hand_size));
      hand.appendChild(el("span", "count", p.hand_size));
      hand.appendChild(el("span", "unit", at >= 0 ? said.slice(0, at) + said.slice(at + String(p.hand_size).length) : " " + said));
      box.appendChild(hand);
      if (p.one_card) box.appendChild(el("div", "uno " + (p.uno ? "said" : "unsaid"), p.uno ? t("UNO!") : t("1 card — UNO not said")));
      box.appendChild(el("div", "score", tn("{n} point", "{n} points", p.score)));
      if (p.owes) box.appendChild(el("div", "owes", tn("owes {n} press", "owes {n} presses", p.owes)));
      if (p.owes_text) box.appendChild(el("div", "owes-text", p.owes_text));
      players.appendChild(box);
    }

    const launcher = $("launcher");
    const L = s.launcher;
    if (L) {
      launcher.hidden = false;
      clear(launcher);
      launcher.appendChild(el("span", "label", t("launcher")));
      let state;
      if (!L.connected) state = [t("UNPLUGGED — plug it back in")];
      else if (L.fault) state = [t("FAULT: {fault}", { fault: L.fault })];
      else if (L.armed && L.armed.mode === "until_card") state = tp("armed for {player} · until a card comes out", { player: { name: L.armed.player } });
      else if (L.armed) state = tnp("armed for {player} · {n} press left", "armed for {player} · {n} presses left", L.armed.presses, { player: { name: L.armed.player } });
      else state = [t("disarmed (a press now is a foul)")];
      launcher.appendChild(parts(el("span", "lstate" + (L.fault || !L.connected ? " bad" : "")), state));
      if (L.cards_inside !== null && L.cards_inside !== undefined) launcher.appendChild(el("span", "inside", tn("{n} card inside", "{n} cards inside", L.cards_inside)));
      // TRANSLATORS: the launcher's counters: "3 presses · 5 cards out · 1 foul"
      const counts = [tn("{n} press", "{n} presses", L.presses), tn("{n} card out", "{n} cards out", L.cards_out), tn("{n} foul", "{n} fouls", L.fouls)];
      launcher.appendChild(el("span", "counts", counts.join(" · ")));
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
    table.appendChild(el("caption", null, t("Scores by round")));
    const head = el("tr");
    head.appendChild(el("th", null, t("Round"))).setAttribute("scope", "col");
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
    foot.appendChild(el("th", null, t("Total"))).setAttribute("scope", "row");
    for (const p of s.players) foot.appendChild(el("td", null, String(p.score)));
    clear(box).appendChild(table);
  }

  function showFire(f) {
    const box = $("fire");
    const n = f.cards;
    parts(box, n === 0
      ? ["○ ", ...tp("{player} pressed — no card came out", { player: { name: f.player } })]
      : ["✸ ", ...tnp("{n} card for {player}!", "{n} cards for {player}!", n, { player: { name: f.player } })]);
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
