// The referee display: renders the public state pushed over /ws and sends operator actions.
"use strict";

const SEATS = ["E", "S", "W", "N"];
const I18N = {
  zh: { lang: "English", controls: "操作", login: "登录", start: "开始新一盘", end: "结束本盘", faults: "故障", log: "事件记录",
        linkUp: "已连接", linkDown: "未连接", hand: "第 {n} 盘", noFaults: "无", seat: { E: "东", S: "南", W: "西", N: "北" },
        breakAt: "{wall}家牌墙 第 {count} 墩（{mode}） · 首墩 {first}", leave: "留下", start_at: "从此开始",
        left: "余 {n} 张", nextThrow: "请 {seat} 家掷骰", legend: { first: "首抓", next: "下一张", tail: "补牌", last: "海底", dealt: "已抓", dead: "王牌/保留", indicator: "指示牌" },
        role: { viewer: "观众", operator: "操作员", referee: "裁判" }, wrong: "凭证错误" },
  en: { lang: "中文", controls: "Controls", login: "Log in", start: "Start hand", end: "End hand", faults: "Faults", log: "Event log",
        linkUp: "linked", linkDown: "not linked", hand: "Hand {n}", noFaults: "none", seat: { E: "E", S: "S", W: "W", N: "N" },
        breakAt: "{wall} wall, stack {count} ({mode}) · first stack {first}", leave: "leave", start_at: "start at",
        left: "{n} tiles left", nextThrow: "{seat} to throw", legend: { first: "first dealt", next: "next draw", tail: "replacement", last: "last tile", dealt: "dealt", dead: "dead wall", indicator: "indicator" },
        role: { viewer: "viewer", operator: "operator", referee: "referee" }, wrong: "wrong credential" },
};
let lang = localStorage.getItem("lang") || "zh";
let state = null;
let lastSeq = null;
const logLines = [];
const isPublic = location.pathname.startsWith("/public");
if (isPublic) document.body.classList.add("public");

function t(key, vars) {
  let s = key.split(".").reduce((o, k) => (o ? o[k] : undefined), I18N[lang]);
  if (s === undefined) s = key;
  for (const [k, v] of Object.entries(vars || {})) s = s.replace("{" + k + "}", v);
  return s;
}
const $ = (id) => document.getElementById(id);

function renderStatic() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  $("legend").innerHTML = Object.entries(I18N[lang].legend)
    .map(([k, v]) => `<span><i class="half ${k}"></i>${v}</span>`).join("");
}

function stacksOf(deal) {
  // Mark every half-stack with what it is in the deal plan.
  const marks = {};
  const add = (pos, cls) => { if (pos) (marks[pos] = marks[pos] || new Set()).add(cls); };
  if (!deal) return marks;
  for (const seat of SEATS) for (const p of (deal.hands && deal.hands[seat]) || []) add(p, "dealt");
  add(deal.first_dealt, "first");
  if (deal.live && deal.live.length) add(deal.live[0], "next");
  // The next replacement tile (补牌) is the tail's first; a dead wall's tiles are never live.
  if (deal.tail && deal.tail.length) add(deal.tail[0], "tail");
  for (const p of deal.dead || []) add(p, "dead");
  add(deal.last_live, "last");
  for (const v of Object.values(deal.indicators || {})) {
    for (const p of [].concat(v && v.position ? v.position : v)) if (typeof p === "string") add(p, "indicator");
  }
  return marks;
}

function renderWall(hand) {
  const deal = hand && hand.deal;
  const lengths = (deal && deal.wall_lengths) || (hand && hand.wall_lengths) || { E: 18, S: 18, W: 18, N: 18 };
  const marks = stacksOf(deal);
  const brk = deal && deal.break;
  const wall = $("wall");
  wall.innerHTML = "";
  for (const seat of SEATS) {
    const side = document.createElement("div");
    side.className = "side " + seat;
    side.dataset.wall = seat;
    for (let i = 1; i <= lengths[seat]; i++) {
      const stack = document.createElement("div");
      const id = seat + String(i).padStart(2, "0");
      stack.className = "stack";
      stack.dataset.stack = id;
      if (brk && brk.stack === id) stack.classList.add("break");
      for (const level of ["t", "b"]) {
        const half = document.createElement("div");
        const pos = id + level;
        half.className = "half " + [...(marks[pos] || [])].join(" ");
        half.dataset.pos = pos;
        half.title = pos;
        stack.appendChild(half);
      }
      side.appendChild(stack);
    }
    wall.appendChild(side);
  }
}

function renderDice(hand) {
  const box = $("dice");
  box.innerHTML = "";
  for (const th of (hand && hand.throws) || []) {
    const el = document.createElement("div");
    el.className = "throw";
    el.innerHTML = `<div>${t("seat." + th.seat)}</div><div class="dice">${th.dice.map((d) => `<span class="die" data-die="${d}">${d}</span>`).join("")}</div>`;
    box.appendChild(el);
  }
  const deal = hand && hand.deal;
  let text = "";
  if (deal && deal.break) {
    text = t("breakAt", { wall: t("seat." + deal.break.wall), count: deal.break.count, mode: t(deal.break.mode), first: deal.first_dealt })
      + " · " + t("left", { n: (deal.live || []).length });
  } else if (hand && hand.next_thrower && !hand.ended) {
    text = t("nextThrow", { seat: t("seat." + hand.next_thrower) });
  }
  $("break").textContent = text;
  $("deal-error").textContent = (hand && hand.error) || "";
}

function render() {
  if (!state) return;
  $("table-name").textContent = state.table_name || "";
  $("ruleset").textContent = state.ruleset_name_zh || state.ruleset;
  const link = $("link");
  link.textContent = state.link.up ? t("linkUp") : t("linkDown") + (state.link.reason ? "：" + state.link.reason : "");
  link.className = "badge " + (state.link.up ? "up" : "down");
  $("phase").textContent = lang === "zh" ? state.phase_zh : state.phase;
  $("hand-no").textContent = state.hand ? t("hand", { n: state.hand.hand_no }) : "";
  renderWall(state.hand);
  renderDice(state.hand);
  const faults = $("faults");
  faults.innerHTML = state.faults.length ? "" : `<li class="none">${t("noFaults")}</li>`;
  for (const f of state.faults) {
    const li = document.createElement("li");
    li.textContent = lang === "zh"
      ? `${f.name_zh || f.code}（${f.where || ""}）：${f.remedy_zh || ""}`
      : `${f.name_en || f.code} (${f.where || ""}): ${f.remedy_en || ""}`;
    faults.appendChild(li);
  }
  const ol = $("log");
  ol.innerHTML = "";
  for (const line of logLines.slice(-60).reverse()) {
    const li = document.createElement("li");
    li.value = line.seq;
    li.dataset.seq = line.seq;
    li.textContent = line.text;
    ol.appendChild(li);
  }
}

function onMessage(msg) {
  if (msg.type === "snapshot") {
    state = msg.state;
    logLines.length = 0;
    logLines.push(...state.log);
    lastSeq = msg.seq;
  } else if (msg.type === "event") {
    if (lastSeq !== null && msg.seq <= lastSeq) return;
    lastSeq = msg.seq;
    if (msg.state) {
      state = msg.state;
      // The state's log tail is authoritative for text; keep lines we had that are older.
      const known = new Set(logLines.map((l) => l.seq));
      for (const l of state.log) if (!known.has(l.seq)) logLines.push(l);
      logLines.sort((a, b) => a.seq - b.seq);
    }
  }
  window.__lastSeq = lastSeq;
  render();
}

let retry = 0;
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = lastSeq === null ? "" : `?since=${lastSeq}`;
  const ws = new WebSocket(`${proto}://${location.host}/ws${q}`);
  ws.onopen = () => { retry = 0; document.body.dataset.connected = "1"; };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    document.body.dataset.connected = "0";
    setTimeout(connect, Math.min(200 * 2 ** retry++, 3000));
  };
}

async function act(path) {
  const token = sessionStorage.getItem("token") || "";
  const res = await fetch(path, { method: "POST", headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" }, body: "{}" });
  const body = await res.json().catch(() => ({}));
  $("action-msg").textContent = res.ok ? "✓" : (body.detail || body.error || res.status);
}

$("login").addEventListener("submit", async (e) => {
  e.preventDefault();
  sessionStorage.setItem("token", $("token").value);
  const res = await fetch("/api/whoami", { headers: { Authorization: "Bearer " + $("token").value } });
  const body = await res.json().catch(() => ({}));
  $("role").textContent = res.ok ? t("role." + body.role) : t("wrong");
});
$("start-hand").addEventListener("click", () => act("/api/hand/start"));
$("end-hand").addEventListener("click", () => act("/api/hand/end"));
$("lang").addEventListener("click", () => { lang = lang === "zh" ? "en" : "zh"; localStorage.setItem("lang", lang); renderStatic(); render(); });

renderStatic();
connect();
