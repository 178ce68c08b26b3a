// A player's view: the moves the terminal accepts, as buttons, for this player only.
"use strict";
(function () {
  const { el, clear, cardNode, colourWord, follow, isWild, parts, named, COLOURS, KINDS, t, tn, tp, tnp, langQuery, languageButtons } = window.uno;
  const $ = (id) => document.getElementById(id);
  const secret = decodeURIComponent(location.pathname.split("/").pop() || "");
  let me = null;
  let state = null;
  let pick = null; // the card being chosen: {mode, colour, code, named, target, uno, discarded}
  let pickKey = "";
  let drawn = ""; // what the moves were last drawn for (a redraw would lose typing/focus)
  const draft = {}; // the round-end answers typed so far
  let foulAsk = false; // the "press anyway?" question is open

  // The answer to this phone's last action: ✓ for done, ⚠ for a foul, ✗ for refused,
  // the rule id small after the words. It belongs to the turn it was given in (the state
  // just after the action): when the game moves on to another turn or round it goes away,
  // so that it never speaks of an old one.
  let saidKey = null;
  let offline = false; // the message says the table could not be reached
  function say(text, ok, rule) {
    const m = clear($("message"));
    m.hidden = !text;
    saidKey = text ? pickKey : null;
    offline = false;
    if (!text) return;
    m.appendChild(document.createTextNode(text));
    if (rule) m.appendChild(el("small", "rule", " " + rule));
    m.className = "message " + (ok === true ? "ok" : ok === "warn" ? "warn" : "bad");
  }

  // Actions go out one after the other, none lost; the same action twice while the first
  // is on its way (a double tap) goes once. Each carries the version of the game it was
  // made at ("at"): a move made before the game moved on is refused, nothing recorded.
  let chain = Promise.resolve();
  const pending = new Set();
  function send(action) {
    const body = Object.assign({ by: me, at: state ? state.at : undefined }, action);
    const key = JSON.stringify(body);
    if (pending.has(key)) return chain;
    pending.add(key);
    chain = chain.then(() => post(body)).finally(() => pending.delete(key));
    return chain;
  }

  function post(body) {
    return fetch("/api/action" + langQuery(), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + secret },
      body: JSON.stringify(body),
      cache: "no-store",
    })
      .then((r) => r.json().then((reply) => ({ status: r.status, reply })))
      // the state after the action first: the answer belongs to the turn it leads to
      .then((answer) => Promise.resolve(live ? live.refresh().catch(() => null) : null).then(() => answer))
      .then(({ status, reply }) => {
        if (status >= 200 && status < 300) {
          pick = null;
          const o = reply.outcome;
          if (o === "foul") say("⚠ " + reply.said, "warn", "ATK-26");
          else if (o === "ignored" || o === "fault") say("✗ " + reply.said, false);
          else if (o === "pressed") say("… " + reply.said, "warn");
          else say("✓ " + (reply.said || (reply.effects || []).join("; ")), true);
        } else if (status === 401 || (status === 403 && /secret/.test(reply.error || ""))) {
          linkRefused();
        } else {
          say("✗ " + (reply.error || t("refused ({status})", { status })), false, reply.rule);
        }
      })
      .catch(() => { say("✗ " + t("no connection to the table: try again when your phone is back on the Wi-Fi"), false); offline = true; })
      .finally(() => { drawn = ""; render(); });
  }

  function button(parent, label, onClick, cls) {
    const b = el("button", cls || "btn", label);
    b.type = "button";
    b.addEventListener("click", onClick);
    parent.appendChild(b);
    return b;
  }

  function myPlayer() { return state.players.find((p) => p.name === me) || null; }

  function colourButtons(parent, chosen, onPick) {
    const row = el("div", "row");
    for (const [letter, c] of Object.entries(COLOURS)) {
      const b = button(row, c.mark + " " + c.label, () => onPick(c.name), "btn colour c-" + c.name + (chosen === c.name ? " chosen" : ""));
      b.dataset.colour = c.name;
      b.setAttribute("aria-pressed", chosen === c.name ? "true" : "false");
      void letter;
    }
    parent.appendChild(row);
  }

  function playerButtons(parent, chosen, onPick) {
    const row = el("div", "row");
    for (const p of state.players) {
      if (p.name === me) continue;
      const b = button(row, p.name, () => onPick(p.name), "btn target" + (chosen === p.name ? " chosen" : ""));
      b.dataset.target = p.name;
    }
    parent.appendChild(row);
  }

  // The card picker: colour, then symbol; a wild then asks for its colour (and target).
  function picker(parent, mode) {
    if (!pick || pick.mode !== mode) {
      // open on the colour to match (a wild's tab when none is named yet)
      const match = { red: "r", yellow: "y", green: "g", blue: "b" }[state.color] || "r";
      const colour = mode === "play" && state.deck.some((c) => c[0] === match) ? match : "r";
      pick = { mode, colour, code: null, named: null, target: null, uno: false, discarded: null };
    }
    const tabs = el("div", "row tabs");
    const letters = ["r", "y", "g", "b"].filter((l) => state.deck.some((c) => c[0] === l));
    if (state.deck.some(isWild)) letters.push("W");
    for (const l of letters) {
      const label = l === "W" ? "★ " + t("wild") : COLOURS[l].mark + " " + COLOURS[l].label;
      const b = button(tabs, label, () => { pick.colour = l; pick.code = null; render(); }, "btn tab c-" + (l === "W" ? "wild" : COLOURS[l].name) + (pick.colour === l ? " chosen" : ""));
      b.dataset.tab = l;
    }
    parent.appendChild(tabs);
    const cards = el("div", "row cards");
    for (const code of state.deck) {
      if ((pick.colour === "W") !== isWild(code) || (pick.colour !== "W" && code[0] !== pick.colour)) continue;
      const b = el("button", "pickcard" + (pick.code === code ? " chosen" : ""));
      b.type = "button";
      cardNode(b, code, null);
      b.classList.add("pickcard");
      if (pick.code === code) b.classList.add("chosen");
      // cards that cannot be played now are dimmed (still tappable: the table says why)
      if (mode === "play" && state.playable && !state.playable.includes(code)) b.classList.add("unplayable");
      b.dataset.card = code;
      b.addEventListener("click", () => { pick.code = code; pick.named = null; pick.target = null; pick.discarded = null; render(); });
      cards.appendChild(b);
    }
    parent.appendChild(cards);
    if (!pick.code) return;
    const code = pick.code;
    const name = window.uno.cardParts(code).name;
    const box = el("div", "confirm");
    const action = {};
    let ready = true;
    if (mode === "play") {
      action.play = code;
      // a wild names its colour with it; a Wild Item Box names none (MK-13: the card it
      // turns up gives the colour; a Bob-omb asks for one after)
      if (isWild(code) && code !== "WIB") {
        box.appendChild(el("div", "ask", t("Name the colour:")));
        colourButtons(box, pick.named, (c) => { pick.named = c; render(); });
        if (pick.named) action.color = pick.named; else ready = false;
      }
      if (code === "WAA" || code.endsWith("TH")) {
        box.appendChild(el("div", "ask", code === "WAA" ? t("Who is attacked?") : t("Trade hands with:")));
        playerButtons(box, pick.target, (t) => { pick.target = t; render(); });
        if (pick.target) action.target = pick.target; else ready = false;
      }
      const mine = myPlayer();
      if (code.endsWith("DA") && mine && mine.hand_size > 1) {
        // one sentence per colour: the colour's word takes the sentence's case and gender
        const asked = {
          r: t("How many other red cards went with it (ATK-12)?"),
          y: t("How many other yellow cards went with it (ATK-12)?"),
          g: t("How many other green cards went with it (ATK-12)?"),
          b: t("How many other blue cards went with it (ATK-12)?"),
        }[code[0]];
        box.appendChild(el("div", "ask", asked));
        const row = el("div", "row");
        for (let n = 0; n <= Math.min(mine.hand_size - 1, 12); n++) {
          const b = button(row, String(n), () => { pick.discarded = n; render(); }, "btn small" + (pick.discarded === n ? " chosen" : ""));
          b.dataset.discarded = n;
        }
        box.appendChild(row);
        if (pick.discarded === null) ready = false; else action.discarded = Array(pick.discarded).fill("?");
      }
      if (mine && mine.hand_size === 2) {
        const b = button(box, pick.uno ? "✓ " + t("saying UNO!") : t("say UNO! with it"), () => { pick.uno = !pick.uno; render(); }, "btn uno" + (pick.uno ? " chosen" : ""));
        b.setAttribute("aria-pressed", pick.uno ? "true" : "false");
        if (pick.uno) action.uno = true;
      }
      const go = button(box, t("Play {card}", { card: name }), () => send(action), "btn go");
      go.id = "go";
      go.disabled = !ready;
    } else {
      action.choose = {};
      action.choose[mode] = code;
      const what = { top: t("This is the start card: {card}", { card: name }), turned: t("The Item Box turned up: {card}", { card: name }), give: t("Give: {card}", { card: name }) }[mode];
      const go = button(box, what, () => send(action), "btn go");
      go.id = "go";
    }
    parent.appendChild(box);
  }

  function pressControls(parent) {
    const L = state.launcher;
    if (L && L.working && L.kind === "sim") {
      button(parent, t("Press the launcher"), () => send({ press: true }), "btn go press").id = "press";
    } else if (L && L.working) {
      parent.appendChild(el("p", "hint", t("Press the launcher's button: it is armed for you.")));
    } else {
      parent.appendChild(el("p", "ask", L ? t("The launcher is out of order: press it by hand — how many cards came out?") : t("Press it by hand — how many cards came out?")));
      const row = el("div", "row");
      for (let n = 0; n <= 8; n++) button(row, String(n), () => send({ press: true, cards: n }), "btn small").dataset.cards = n;
      parent.appendChild(row);
    }
  }

  function revealForm(parent) {
    parent.appendChild(el("p", "ask", t("You went out! The cards (r5 g7 wild) or the points (37) left in each hand:")));
    const form = el("form", "reveal");
    const inputs = {};
    for (const p of state.players) {
      if (p.name === me) continue;
      const label = parts(el("label"), tnp("{player} ({n} card)", "{player} ({n} cards)", p.hand_size, { player: { name: p.name } }));
      const input = el("input");
      input.name = p.name;
      input.required = true;
      input.autocomplete = "off";
      input.placeholder = t("e.g. 37 or r5 g7 wild");
      input.value = draft[p.name] || "";
      input.addEventListener("input", () => { draft[p.name] = input.value; });
      label.appendChild(input);
      form.appendChild(label);
      inputs[p.name] = input;
    }
    const go = el("button", "btn go", t("Score the round"));
    go.type = "submit";
    form.appendChild(go);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const left = {};
      for (const [name, input] of Object.entries(inputs)) left[name] = input.value;
      send({ reveal: left });
    });
    parent.appendChild(form);
  }

  function render() {
    if (!state || !me) return;
    const s = state;
    document.body.dataset.version = s.version;
    cardNode($("top"), s.top, s.top && isWild(s.top) ? s.color : null);
    colourWord($("color"), s.color);
    const aw = s.awaiting;
    const mine = !!aw && aw.by === me;
    const key = [s.version >= 0 ? "" : "", aw ? aw.by + ":" + aw.choice + ":" + aw.verbs.join(",") : "none", s.round].join("|");
    if (key !== pickKey) {
      if (pickKey) pick = null;
      for (const k of Object.keys(draft)) delete draft[k];
      pickKey = key;
    }
    if (saidKey !== null && saidKey !== pickKey) say(""); // about a turn that is over
    const mineNow = myPlayer();
    if (mineNow) {
      // TRANSLATORS: the phone's line about its player: "You: 7 cards · 40 points · you owe 2 presses"
      const line = [t("You: {cards}", { cards: tn("{n} card", "{n} cards", mineNow.hand_size) }), tn("{n} point", "{n} points", mineNow.score)];
      if (mineNow.owes) line.push(tn("you owe {n} press", "you owe {n} presses", mineNow.owes));
      $("hand").textContent = line.join(" · ");
    }
    const st = $("status");
    if (s.game_winner) parts(st, ["★ ", ...tp("{player} wins the game!", { player: { name: s.game_winner } })]);
    else if (!aw && s.round_winner) parts(st, tp("{player} wins the round. Next: deal round {round}", { player: { name: s.round_winner }, round: s.round + 1 }));
    else if (!aw) parts(st, [t("Next: deal round {round}", { round: s.round + 1 })]);
    else parts(st, mine ? [t("Your move: {doing}", { doing: aw.doing })] : tp("Waiting for {player}: {doing}", { player: { name: aw.by }, doing: aw.doing }));
    document.body.classList.toggle("my-move", mine);
    // what the terminal's screen says to the table (ATK-3's load reminder), and its last line
    const names = s.players.map((p) => p.name);
    $("reminder").hidden = !s.reminder;
    named($("reminder"), s.reminder ? "☞ " + s.reminder : "", names);
    $("notice").hidden = !s.notice;
    named($("notice"), s.notice ? t("Last: {line}", { line: s.notice }) : "", names);

    const L0 = s.launcher;
    const sig = JSON.stringify([aw, s.uno_catchable, s.round, s.round_over, s.game_winner, s.players_can_act,
      s.players.map((p) => [p.name, p.hand_size, p.owes]), L0 && [L0.kind, L0.working], s.playable, pick, foulAsk]);
    if (sig === drawn) return; // nothing the moves depend on changed: keep what is typed
    drawn = sig;
    const A = clear($("actions"));
    const X = clear($("extra"));
    if (!s.players_can_act) { A.appendChild(el("p", "hint", t("The bots play this game: watch the table view."))); return; }
    if (s.game_winner) return;
    if (!aw) {
      button(A, t("Deal round {round}", { round: s.round + 1 }), () => send({ deal: true }), "btn go").id = "deal";
      return;
    }
    if (mine) {
      const choice = aw.choice;
      if (!choice) {
        if (aw.verbs.includes("play")) picker(A, "play");
        const row = el("div", "row");
        if (aw.verbs.includes("press")) pressControls(row);
        if (aw.verbs.includes("draw")) button(row, t("Draw a card"), () => send({ draw: true }), "btn").id = "draw";
        if (aw.verbs.includes("pass")) button(row, t("Pass"), () => send({ pass: true }), "btn").id = "pass";
        A.appendChild(row);
      } else if (choice === "press" || choice === "until") {
        const owe = myPlayer();
        A.appendChild(el("p", "ask", choice === "until" ? t("Press until a card comes out.") : tn("You owe {n} press.", "You owe {n} presses.", owe ? owe.owes : 0)));
        pressControls(A);
      } else if (choice === "color") {
        A.appendChild(el("p", "ask", t("Name the colour:")));
        colourButtons(A, null, (c) => send({ choose: { color: c } }));
      } else if (choice === "target") {
        A.appendChild(el("p", "ask", t("Choose a player:")));
        playerButtons(A, null, (t) => send({ choose: { target: t } }));
      } else if (choice === "top" || choice === "turned" || choice === "give") {
        A.appendChild(el("p", "ask", { top: t("You dealt: which card was turned up to start the pile?"), turned: t("Which card did the Item Box turn up?"), give: t("Which card do you give?") }[choice]));
        picker(A, choice);
      } else if (choice === "challenge") {
        const row = el("div", "row");
        button(row, t("Challenge"), () => send({ challenge: true }), "btn").id = "challenge";
        button(row, t("Accept"), () => send({ accept: true }), "btn").id = "accept";
        A.appendChild(row);
      } else if (choice === "won") {
        A.appendChild(el("p", "ask", t("Did the challenge succeed?")));
        const row = el("div", "row");
        button(row, t("Yes, it succeeded"), () => send({ choose: { won: true } }), "btn");
        button(row, t("No"), () => send({ choose: { won: false } }), "btn");
        A.appendChild(row);
      } else if (choice === "reveal") {
        revealForm(A);
      }
    } else {
      A.appendChild(parts(el("p", "hint"), tp("Not your move: {player} is to {doing}.", { player: { name: aw.by }, doing: aw.doing })));
    }
    if (s.uno_catchable === me) {
      // COM-6: UNO said late, before anyone catches it or the next player begins
      button(X, t("Say UNO! (one card left)"), () => send({ uno: true }), "btn go uno").id = "say-uno";
    }
    if (s.uno_catchable && s.uno_catchable !== me) {
      const who = s.uno_catchable;
      parts(button(X, "", () => send({ catch: who }), "btn catch"), tp("Catch {player}: one card, no UNO!", { player: { name: who } })).id = "catch";
    }
    const L = s.launcher;
    const pressNow = mine && (aw.verbs.includes("press"));
    if (L && L.kind === "sim" && L.working && !pressNow) {
      // A press nobody owes is a foul (ATK-26): possible, as at a real table, but behind
      // a question, never a big button under every idle phone.
      if (!foulAsk) {
        button(X, t("Press the launcher's button anyway…"), () => { foulAsk = true; drawn = ""; render(); }, "btn link").id = "foul";
      } else {
        X.appendChild(el("p", "ask", t("Nobody asked you to press: a press now is a foul (ATK-26). Press anyway?")));
        const row = el("div", "row");
        button(row, t("Yes, press it (a foul)"), () => { foulAsk = false; send({ press: true }); }, "btn warn").id = "foul-yes";
        button(row, t("No"), () => { foulAsk = false; drawn = ""; render(); }, "btn").id = "foul-no";
        X.appendChild(row);
      }
    }
  }

  // A secret the table no longer takes (new links were made, another game started):
  // said full size, with what to do, in place of buttons that would only be refused.
  let live = null;
  function linkRefused() {
    if (live) live.stop();
    me = null;
    if ($("langs")) clear($("langs")); // nothing to tap on a page that cannot play
    const main = clear($("main"));
    main.className = "refused";
    main.id = "refused";
    main.appendChild(el("h1", null, t("This link does not work any more")));
    main.appendChild(el("p", null, t("The table made new links for this game (or started another game), so this page cannot play.")));
    const what = el("p");
    what.appendChild(el("strong", null, t("What to do:")));
    what.appendChild(document.createTextNode(" "));
    what.appendChild(document.createTextNode(t("ask the table for your new link — the terminal prints each player's link and QR code — and scan yours again.")));
    main.appendChild(what);
    document.title = t("This link does not work · unolaunch");
  }

  function checkMe() {
    return fetch("/api/me" + langQuery(), { headers: { Authorization: "Bearer " + secret }, cache: "no-store" })
      .then((r) => r.json().then((j) => ({ status: r.status, j })))
      .then(({ status, j }) => {
        if (status === 401 || status === 403) { linkRefused(); return; }
        if (status !== 200) { say("✗ " + (j.error || t("the table did not answer")), false); return; }
        if (me === j.player) return;
        me = j.player;
        $("me").textContent = me;
        document.title = t("{player} · unolaunch", { player: me });
        // the stream (re)opened: the table is back, so "no connection" is no longer true
        if (!live) live = follow((s) => { state = s; render(); }, () => { if (offline) say(""); if (me) checkMe(); });
      })
      .catch(() => say("✗ " + t("cannot reach the table"), false));
  }
  languageButtons($("langs"));
  checkMe();
  void KINDS;
})();
