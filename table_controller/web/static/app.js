// The referee display: one script for the Table, Win, Penalties, Score sheet and Public pages.
// It renders the state pushed over /ws (public) or /ws/referee (after a referee logs in) and sends
// actions with the credential; the server decides what each role may see and do.
"use strict";

const SEATS = ["E", "S", "W", "N"];
const I18N = {
  zh: { lang: "English", pageTitle: "自动麻将机 · 裁判显示", navLabel: "页面", wall: "牌墙", list: "、", colon: "：", controls: "操作", login: "登录", logout: "退出", pin: "凭证 / PIN", pinEmpty: "请先输入凭证",
        pinChange: "更改凭证", pinOld: "原凭证", pinNew: "新凭证（至少6位）", pinAgain: "再输入一次", pinSubmit: "更改",
        pinDiffer: "两次输入的新凭证不一致，凭证未更改",
        pinDone: "凭证已更改：旧凭证已失效，用旧凭证登录的其他设备已退出",
        pinChanged: "裁判凭证已更改，本页已退出：请用新凭证重新登录",
        loggedOut: "已退出：本页已清空，不显示暗牌、不能裁决；再次使用须重新输入凭证",
        logoutPending: "还有操作没有得到回应：{what}。退出后本页无法再核对是否已记录（可在记录中查看）。仍要退出？", start: "开始新一盘", end: "结束本盘", faults: "故障", log: "事件记录",
        nav: { table: "牌桌", win: "和牌", penalties: "罚分", scoresheet: "成绩表", public: "公开", replay: "回放" },
        ov: { left: "余 {n} 张", turn: "出牌", draw: "荒牌", over: "本盘结束", waiting: "等待开局" },
        rp: { title: "牌谱回放", hand: "盘", play: "播放", pause: "暂停", start: "开局：第 0 步（按 ▶ 逐步回放）", step: "第 {k}/{n} 步 · {text}",
              first: "回到开局", prev: "上一步", next: "下一步", last: "最后一步", progress: "回放进度",
              none: "本轮尚无牌谱", hint: "只含公开信息：打出、吃碰杠（暗杠背面朝上）、补花、立直、裁判的裁决；不含任何暗牌。", replay: "回放" },
        linkUp: "已连接", linkDown: "牌桌连接中断", serviceLost: "显示与服务断开，正在重连…（所示为断开前的状态）", serviceQuiet: "{n} 秒没有收到服务的消息：网络可能已断，正在重连…（所示为断开前的状态）", hand: "第 {n} 盘", round: "{w}风圈", noFaults: "无", seat: { E: "东", S: "南", W: "西", N: "北" },
        breakAt: "{wall}家牌墙 第 {count} 墩（{mode}） · 首抓 {first}", leave: "留下", start_at: "从此开始",
        tileAt: "{wall}家第 {n} 墩{level}", top: "上", bottom: "下",
        left: "余 {n} 张", lastWarn: "⚠ 仅余 {n} 张，海底将至", mustWin: "⚠ 仅余 {left} 张：后{n}张必胡，听牌的牌出现时必须和", nextThrow: "请 {seat} 家掷骰",
        legend: { first: "首抓", next: "下一张", tail: "补牌", last: "海底", dealt: "已抓", dead: "王牌/保留", indicator: "指示牌", handend: "马牌/钓鱼" },
        role: { viewer: "观众", operator: "操作员", referee: "裁判", demo: "演示（代裁判）" },
        act: { penalty: "罚分", win_read: "读牌", win_confirm: "确认和牌", session_start: "开始计时", session_end: "结束计时",
               undo: "撤销", camera_confirm: "确认识牌", camera_dismiss: "判为不是牌", exhaustive: "查叫", round_start: "新一轮", clock_pause: "暂停计时",
               clock_resume: "继续计时", appeal: "申诉", appeal_ruling: "申诉裁决", corrected: "（原读 {was}）",
               play_correct: "更正", voided: "作废", inserted: "补录", before: "前", after: "后", substitute: "换人",
               hand_start: "开始新一盘", hand_end: "结束本盘", play: "录入", dice: "骰子", action: "操作" },
        fix: { title: "更正牌谱", hint: "记错的行牌（牌、座位、副露）在本盘内更正，或作废；漏记的行牌在某条之前或之后补录；原记录保留，可撤销。", target: "要更正的记录",
               seat: "座位（不改留空）", tiles: "牌（不改留空）", from: "来自（不改留空）", void: "作废（未发生）", reason: "更正理由",
               submit: "更正", none: "本盘尚无可更正的行牌", needReason: "请填写更正理由（永久记录）",
               needWhat: "请给出更正的内容（座位、牌、来自），或勾选作废",
               mode: "做法", modeFix: "更正或作废这条", modeBefore: "在这条之前补录漏记的行牌", modeAfter: "在这条之后补录漏记的行牌",
               modeReplace: "这条改为另一种行牌（原条作废）", play: "补录的行牌", needSeat: "请选择补录行牌的座位",
               needTiles: "请给出补录行牌的牌", needFrom: "吃碰杠请选择来自哪家", insertedMark: "（补录）",
               kinds: { discard: "打出", flower: "补花", chow: "吃", pung: "碰", claim_kong: "明杠（杠别家的牌）",
                        concealed_kong: "暗杠", added_kong: "补杠" } }, wrong: "凭证错误", dealer: "庄", pos: "{n}号位",
        abandonAsk: "第 {n} 盘还在进行：中止这一盘、同一庄家重打？（记为中止）",
        drawAsk: "牌墙还剩 {left} 张，无人和牌：结束第 {n} 盘，记为荒牌？",
        redrawAsk: "第 {n} 盘以和牌结束，但没有已确认的和牌：改记为荒牌？（和牌成立请先在和牌页确认和牌）",
        abortive: { nine_terminals: "九种九牌流局", four_winds: "四风连打流局", four_riichi: "四家立直流局",
                    four_kongs: "四杠散了流局", three_rons: "三家和流局", shown: "牌局显示可{name}",
                    ask: "以{name}结束第 {n} 盘？同一庄家续庄，本场加一，立直棒留在桌上" },
        turn: { first_discard: "首打", discard: "出牌", claim: "吃碰" }, secs: "{n} 秒", overdue: "超时 {n} 秒",
        session: "比赛剩余 {t}", sessionPaused: "⏸ 计时暂停（剩余 {t}）", sessionWarn: "⚠ 比赛剩余 {t}", sessionOver: "比赛时间到", sessionEnded: "比赛已结束", noSession: "未计时",
        said: { turnOver: "{who}{what}超时", sessionWarn: "比赛剩余不到 {n} 分钟", fault: "牌桌故障：{f}" },
        stopped: "停和", won: "和", out: "已和离场", flowers: "花", discards: "弃牌", double: "倍打", honbaN: "{n}本场",
        potN: "供托 {n}", potTaken: "供托 +{n}", heldTip: "持点（起点 {start}）",
        fuN: "{n}符", honbaPay: "{n}本场 +{p}", byRecord: "牌谱已记录立直，和牌自动计入",
        levels: { mangan: "满贯", haneman: "跳满", baiman: "倍满", sanbaiman: "三倍满", yakuman: "役满", "kazoe yakuman": "累计役满",
                  "kazoe sanbaiman": "累计三倍满", "2x yakuman": "两倍役满", "3x yakuman": "三倍役满", "4x yakuman": "四倍役满",
                  "5x yakuman": "五倍役满", "6x yakuman": "六倍役满", "kiriage mangan": "切上满贯", "nagashi mangan": "流局满贯" },
        win: { title: "和牌", fan: "番种", value: "{u}数", count: "次数", total: "合计", payments: "各家付分", read: "读牌（仅裁判可见）",
               book: "本规则番种表",
               seat: "和牌方", kind: "方式", discard: "点和", self: "自摸", rob: "抢杠和", kongrep: "杠上开花", discarder: "点炮方",
               concealed: "手牌（不含和牌张）", tile: "和牌张", melds: "副露", meldsBad: "✗ 副露看不懂：{part}（如 碰 555z 南；吃 123m 北；暗杠 7777s）", meldsHint: "碰 555z 南；吃 123m 北；暗杠 7777s", needTile: "请填写和牌张，如 5s", tileBad: "和牌张填一张牌，如 5s（看不懂：{tile}）", flowers: "花牌", last: "海底（最后一张）", submit: "读牌 / 更正", camera: "摄像头读牌", confirm: "确认和牌",
               false: "判诈和", falseAsk: "判 {who} 诈和？", none: "本盘尚无和牌", by: "和牌：{seat}", valid: "和牌成立", invalid: "和牌不成立：{r}", confirmed: "✓ 裁判已确认",
               manual: "裁判计分：本规则由裁判给分", options: "计分选项（记录与摄像头无从得知）", points: "每家付分", special: "特殊和牌（名称）",
               wildcard: "百搭/癞子/鬼牌", horses: "马牌（开马）", riichi: "立直", ippatsu: "一发", dora: "宝牌指示牌",
               ura: "里宝牌指示牌", honba: "本场", first: "天和/地和（首巡）", horseOrigin: "一炮多响：马从点炮方数起",
               horsesRead: "马牌：{list}（中马 {n} 张）", stepsTotal: "合计 {n} {u}", each: "每家 {n}", paid: "{seat} {n}",
               shareTimes: "{name}：{seats} {n} × {v} = {m}", shareIs: "{seats} {name} {v}", sep: "；", pending: "待裁判确认", ruled: "已判{r}，本盘停和", correction: "（已更正）", all: "本盘已确认的和牌", noneYet: "尚无",
               more: "本规则一盘可有多家和牌：可读下一家和牌后再确认。" },
        draw: { title: "荒牌查叫（仅裁判可见）", hint: "荒牌后，仍在牌局中的各家亮出手牌（副露按记录）；日麻流局：不亮牌（不听）者留空。", submit: "查叫", camera: "摄像头查叫",
                result: "查叫", pigs: "花猪：{s}", ready: "有叫：{s}", notReady: "无叫：{s}", refunds: "退税：{s}", none: "无",
                tenpai: "听牌：{s}", noten: "不听：{s}" },
        pen: { rule: "判罚", seat: "受罚方", code: "罚则", amount: "罚分", victim: "受损方", note: "备注", submit: "判罚", undoReason: "撤销理由",
               undo: "撤销上一次裁判操作", actions: "裁判记录", when: "时间", who: "操作人", what: "内容", points: "分", catalogue: "罚则目录",
               name: "罚则", text: "规则原文", warning: "警告", stops: "停和", each: "付每家 {n}", victim_: "付受损方 {n}", dead: "扣 {n}", tsumo: "满贯罚符 {n}：闲家付庄家 {h}、其余各 {q}；庄家付各家 {h}", standing: "从终局分扣 {n}",
               escal: "依次 {list}，以此类推", choose: "裁判定 {min}–{max}（每 {step}）", scored: "按所报{u}数罚给各家（和多少罚多少）", fan: "{u}", undone: "已撤销：{r}", last: "可撤销：#{n} {name}", nothing: "无可撤销操作",
               needReason: "请填写撤销理由（永久记录）", noActions: "尚无裁判操作", source: "出处：{s}" },
        fd: { count: "定庄：请{who}掷骰（点数从1号位起逆时针数）；不掷则1号位坐庄", highest: "定庄：请{who}各掷一次，点大者坐庄",
              chosen: "定庄：{n}号位坐庄" },
        next: { timeUp: "比赛时间到：本盘为最后一盘。", timeUpAfter: "比赛时间到，不再开始新一盘：请裁判在成绩表页结束比赛。", ended: "裁判已结束本局比赛。裁判在成绩表页开始新一轮。", over: "本局 {n} 盘已打完，比赛结束。裁判在成绩表页开始新一轮。", overAny: "本局已打完，比赛结束。裁判在成绩表页开始新一轮。", bust: "{who}点数为负，被击飞，比赛结束。裁判在成绩表页开始新一轮。",
                swap: "换位：下一盘前，{moves}。", move: "{who} 坐到 {chair} 号位" },
        ap: { title: "申诉", hint: "选手对裁判裁决的书面申诉（本局比赛结束后限时提出），及仲裁委员会的裁决。", who: "申诉选手", target: "针对裁决 #",
              optional: "可不填", text: "申诉内容", submit: "记录申诉", none: "无申诉", waiting: "待仲裁委员会裁决", upheld: "支持申诉",
              dismissed: "驳回申诉", note: "裁决理由", uphold: "支持", dismiss: "驳回", needNote: "请填写仲裁委员会的裁决理由",
              about: "针对 #{n} {what}", item: "#{seq} {who}：{text}" },
        sheet: { pause: "暂停计时", resume: "继续计时", pauseWhy: "暂停原因（如牌桌故障）", title: "比赛成绩记录表", csv: "导出 CSV", fill: "填入", offer: "赛事编排 第 {n} 轮（{table}）：{names}", print: "打印（签名）", sign: "选手签名", refSign: "裁判员签名",
                 printed: "{table} · {round} · 打印于 {at}", record: "本盘牌谱", rescored: "现行规则：{n}", rescoredVoid: "现行规则不成和",
                 rescoredTip: "规则或计分程序已改：按现行规则重算与确认时不同。记分以裁判确认为准，是否更正由裁判长决定", pot: "桌上供托：立直棒 {n} 根（归下一位和牌者）", rounds: "轮次", roundOpt: "第 {n} 轮", playing: "进行中",
                 closed: "已结束", held: "持点（起点 {start}）", standing: "罚点（从终局分扣除）",
                 res: { win: "和牌", win_pending: "和牌（待确认）", draw: "荒牌", abandoned: "中止", abortive: "流局", playing: "进行中", penalty: "罚分" },
                 chair1: "1号位", chair2: "2号位", chair3: "3号位", chair4: "4号位", records: "本轮牌谱", newRound: "开始新一轮", roundNo: "轮次", id: "编号（可不填）", startRound: "开始这一轮",
                 newRoundHint: "本轮结束后录入下一轮四位选手：本轮成绩表即为最终，新一轮先掷骰定庄（见牌桌页；不掷则1号位坐庄），从第 1 盘开始。第一盘前可用同一轮次更正选手。", start: "开始比赛计时", minutes: "时长（分钟）", minutesDefault: "{n} 分钟（本规则）", minutesAria: "比赛时长（分钟）", end: "结束比赛", hand: "盘", round: "圈风", dealer: "庄家", result: "结果",
                 fan: "{u}", total: "合计", tp: "标准分", tpState: "标准分（{s}）", final: "最终", prov: "暂定", pen: "罚", kong: "杠", chase: "追牌", follow: "跟庄", draw: "查叫", stack: "盘面", hung: "盘外挂分",
                 sub: "换人（替补）", subHint: "选手伤病、中途离场弃权或被取消比赛资格时，由替补选手坐入该号位，从下一盘起上场；进行中的一盘须由原选手打完。成绩表逐盘注明上场选手。",
                 subChair: "号位", subName: "替补选手", subReason: "理由（伤病、弃权、取消资格…）", subSubmit: "换人", satFrom: "{n}（第{a}盘起）",
                 satSpan: "{n}（第{a}-{b}盘）" },
        dice: { seat: "掷骰方", values: "点数", submit: "录入骰子", keyed: "录入", firstDealer: "定庄：按骰子键，或掷骰后在此录入点数（掷骰方为号位）。", bad: "请录入 {m} 颗骰子的点数，每颗 1 至 6，如 3 5", none: "本桌不报骰子：掷骰后请录入 {m} 颗骰子的点数。",
                fewer: "本桌电子骰 {n} 颗，本规则须 {m} 颗：掷骰后请录入。", retry: "骰子无效：重掷，或录入掷出的点数。" },
        key: { title: "录入牌局", seat: "座位", tiles: "牌", tilesHint: "5m · 345s · 7777p", from: "来自", dealDone: "配牌完成", discard: "打出",
               flower: "补花", chow: "吃", pung: "碰", kong: "明杠", concealed: "暗杠", added: "加杠", needTile: "请填写牌，如 5m",
               oneTile: "{what}只填一张牌", sameTiles: "{what}填一张牌（或同样的 {n} 张）", threeTiles: "吃须填三张牌，如 345s",
               missing: "定缺", riichi: "立直", riichiVoid: "立直不成立", riichiVoidWhy: "立直宣言牌放铳：立直不成立，立直棒不放", keys: "键盘：先打 e s w n 选东南西北家；5m 回车即打出（花牌为补花）；碰、明杠不必填牌",
               said: "{seat}家{what} {tiles}", saidFrom: "{seat}家{what} {tiles}（{from}家打出）",
               claimFirst: "{seat}家若先吃碰杠了{from}家的牌，请先录入（打 {key} 再按吃、碰或明杠），再按回车录入这张" },
        suit: { m: "万", p: "筒", s: "条" }, missingBadge: "缺{suit}", sealed: "封胡", sealedWhy: "放给{seat}家碰三次，本盘不能和牌",
        ok: "✓ 已记录", repeat: "✓ 已记录（重复的操作，未再记录）", lost: "✗ {what}：没有收到回应，正在向服务核对是否已记录（不会重复记录）", needRef: "需要裁判权限",
        taken: "✓ {what}：已记录 #{seq}（回应在网络中丢失，已向服务核对）", notTaken: "✗ {what}：没有记录（没有送到服务）。需要的话请再按一次",
        waitFirst: "✗ 还有操作没有回应（{what}）：等它有了结果再{act}，以免作用在别的裁决上",
        pend: { sending: "⏳ {what}：发送中…（{n} 秒）", asking: "⏳ {what}：没有收到回应，正在向服务核对是否已记录…",
                offline: "⚠ {what}：网络不通，不知道是否已记录；网络恢复后自动核对（已 {n} 秒）" },
        hl: { title: "牌桌链路", up: "链路正常", down: "链路中断", rtt: "往返 {n} 毫秒", counters: "重发 {r} · 校验错 {c} · 否认 {k} · 重连 {x}",
              heard: "{n} 秒前收到心跳", camera: "摄像头：" },
        cam: { title: "摄像头待确认", none: "无", confirm: "确认", correct: "更正为", dismiss: "不是牌",
               hint: "每次确认或更正，摄像头都会记住这副牌的样子；硬币、手机、反光等误认的东西按“不是牌”，摄像头不再等它，也不学它。", view: "摄像头画面", seen: "{where} {kind}（置信度 {c}）",
               earlier: "第 {n} 盘（已结束，牌已不在桌上，请按图判断）：",
               stale: "画面停在摄像头出故障之前，不是桌面现状",
               zone: { discard: "弃牌区", meld: "副露区", flower: "花牌区", centre: "中央" } } },
  en: { lang: "中文", pageTitle: "Automatic mahjong table · referee display", navLabel: "pages", wall: "the wall", list: ", ", colon: ": ", controls: "Controls", login: "Log in", logout: "Log out", pin: "token / PIN", pinEmpty: "type the token / PIN first",
        pinChange: "Change PIN", pinOld: "current PIN", pinNew: "new PIN (6+)", pinAgain: "new PIN again", pinSubmit: "Change",
        pinDiffer: "The two new PINs differ; nothing changed",
        pinDone: "PIN changed: the old one no longer works, and devices logged in with it were logged out",
        pinChanged: "The referee's PIN was changed: this page was logged out; log in with the new PIN",
        loggedOut: "Logged out: this page was cleared; no concealed tile, no ruling until the token is typed again",
        logoutPending: "Still without an answer: {what}. Logged out, this page can no longer ask whether it was recorded "
          + "(the record shows it). Log out anyway?", start: "Start hand", end: "End hand", faults: "Faults", log: "Event log",
        nav: { table: "Table", win: "Win", penalties: "Penalties", scoresheet: "Score sheet", public: "Public", replay: "Replay" },
        ov: { left: "{n} tiles left", turn: "to play", draw: "drawn hand", over: "hand over", waiting: "waiting for the hand" },
        rp: { title: "Hand replay", hand: "Hand", play: "Play", pause: "Pause", start: "Start: step 0 (▶ steps through the hand)", step: "step {k}/{n} · {text}",
              first: "To the start", prev: "Previous step", next: "Next step", last: "To the end", progress: "Replay step",
              none: "no hand records in this round yet", hint: "Public information only: discards, calls (concealed kongs face down), flowers, riichi, the referee's rulings; no concealed tile.", replay: "Replay" },
        linkUp: "linked", linkDown: "table link down", serviceLost: "the display lost the service: reconnecting… (showing the state before)", serviceQuiet: "nothing from the service for {n} s: the network may be down, reconnecting… (showing the state before)", hand: "Hand {n}", round: "{w} round", noFaults: "none", seat: { E: "E", S: "S", W: "W", N: "N" },
        breakAt: "{wall} wall, stack {count} ({mode}) · first tile {first}", leave: "leave", start_at: "start at",
        tileAt: "{wall} wall stack {n} {level}", top: "top", bottom: "bottom",
        left: "{n} tiles left", lastWarn: "⚠ {n} tiles left: last tile soon", mustWin: "⚠ {left} tiles left: the last {n} must be won on by a ready hand", nextThrow: "{seat} to throw",
        legend: { first: "first dealt", next: "next draw", tail: "replacement", last: "last tile", dealt: "dealt", dead: "dead wall", indicator: "indicator", handend: "horses / fishing" },
        role: { viewer: "viewer", operator: "operator", referee: "referee", demo: "demo (as referee)" },
        act: { penalty: "Penalty", win_read: "Hand read", win_confirm: "Win confirmed", session_start: "Clock started",
               session_end: "Session ended", undo: "Undo", camera_confirm: "Camera tile ruled", camera_dismiss: "Ruled not a tile", exhaustive: "Draw checked",
               round_start: "New round", clock_pause: "Clock paused", clock_resume: "Clock resumed", appeal: "Appeal",
               appeal_ruling: "Appeal ruling", corrected: " (read as {was})", play_correct: "Correction", voided: "void",
               inserted: "inserted", before: "before", after: "after", substitute: "Substitution",
               hand_start: "New hand", hand_end: "End hand", play: "Play keyed", dice: "Dice", action: "Action" }, wrong: "wrong credential", dealer: "dealer", pos: "chair {n}",
        abandonAsk: "Hand {n} is still in play: stop it and have the same dealer deal again? (recorded as abandoned)",
        drawAsk: "{left} tiles are still in the wall and nobody has won: end hand {n} as a draw?",
        redrawAsk: "Hand {n} ended as a win with no confirmed win: record it as a draw instead? (if the win stands, confirm it on the Win page first)",
        abortive: { nine_terminals: "Nine terminals (九種九牌)", four_winds: "Four winds (四風連打)",
                    four_riichi: "Four riichi (四家立直)", four_kongs: "Four kongs (四開槓)", three_rons: "Triple ron (三家和)",
                    shown: "The record shows: {name}",
                    ask: "End hand {n} as an abortive draw, {name}? The dealer deals again, honba +1, riichi sticks stay" },
        turn: { first_discard: "first discard", discard: "discard", claim: "claim" }, secs: "{n} s", overdue: "over by {n} s",
        session: "Session: {t} left", sessionPaused: "⏸ Clock paused ({t} left)", sessionWarn: "⚠ Session: {t} left", sessionOver: "Time is up", sessionEnded: "Session ended", noSession: "no clock",
        said: { turnOver: "{who}: {what} time is up", sessionWarn: "Less than {n} minutes left in the session", fault: "Table fault: {f}" },
        stopped: "no win", won: "won", out: "won, out", flowers: "flowers", discards: "discards", double: "doubled (dealer kept the deal)", honbaN: "{n} honba",
        potN: "{n} riichi sticks on the table", potTaken: "sticks +{n}", heldTip: "points held (from {start})",
        fuN: "{n} fu", honbaPay: "{n} honba +{p}", byRecord: "riichi keyed in the record: the read counts it",
        levels: { mangan: "mangan", haneman: "haneman", baiman: "baiman", sanbaiman: "sanbaiman", yakuman: "yakuman",
                  "kazoe yakuman": "kazoe yakuman", "kazoe sanbaiman": "kazoe sanbaiman", "2x yakuman": "double yakuman",
                  "3x yakuman": "triple yakuman", "4x yakuman": "4x yakuman", "5x yakuman": "5x yakuman", "6x yakuman": "6x yakuman",
                  "kiriage mangan": "kiriage mangan", "nagashi mangan": "nagashi mangan" },
        win: { title: "Win", fan: "Fan", value: "Value", count: "Count", total: "Total", payments: "Payments", read: "Hand as read (referee only)",
               book: "This ruleset's fan table",
               seat: "Winner", kind: "How", discard: "discard", self: "self-draw", rob: "robbed kong", kongrep: "kong replacement", discarder: "Discarder",
               concealed: "Concealed (without the winning tile)", tile: "Winning tile", melds: "Melds", meldsBad: "✗ melds not understood: {part} (e.g. pung 555z S; chow 123m N; kong! 7777s)", meldsHint: "pung 555z S; chow 123m N; kong! 7777s", needTile: "Enter the winning tile, e.g. 5s", tileBad: "The winning tile: one tile, e.g. 5s (not understood: {tile})", flowers: "Flowers", last: "Last tile", submit: "Read / correct", camera: "Read from the camera", confirm: "Confirm win",
               false: "False win", falseAsk: "Rule a false win against {who}?", none: "No win this hand", by: "{seat} wins", valid: "valid win", invalid: "not a win: {r}", confirmed: "✓ confirmed by the referee",
               manual: "Scored by the referee: this ruleset's points come from you", options: "Scoring options (neither the record nor the camera knows them)",
               points: "Each payer pays", special: "Special hand (name)", wildcard: "Wildcard (百搭/癞子/鬼牌)", horses: "Horses (买马) turned up",
               riichi: "Riichi", ippatsu: "Ippatsu", dora: "Dora indicators", ura: "Ura-dora indicators", honba: "Honba",
               first: "Won in the first go-round (天和/地和)", horseOrigin: "Several winners: horses counted from the discarder",
               horsesRead: "Horses: {list} ({n} on the winner)", stepsTotal: "Total {n} {u}", each: "{n} each", paid: "{seat} {n}",
               shareTimes: "{name}: {seats} {n} × {v} = {m}", shareIs: "{seats} {name} {v}", sep: "; ", pending: "awaiting the referee", ruled: "ruled {r}: no win this hand", correction: " (corrected)", all: "Wins confirmed this hand", noneYet: "none yet",
               more: "This ruleset allows more than one winner a hand: read the next winner, then confirm." },
        draw: { title: "Draw: checking the hands (referee only)", hint: "After a draw the seats still playing show their hands (melds as recorded); riichi: leave a seat that does not show (noten) empty.",
                submit: "Check the hands", camera: "Check from the camera", result: "Draw settlement", pigs: "three suits: {s}",
                ready: "ready: {s}", notReady: "not ready: {s}", refunds: "kong money back: {s}", none: "none",
                tenpai: "tenpai: {s}", noten: "noten: {s}" },
        key: { title: "Key plays", seat: "Seat", tiles: "Tiles", tilesHint: "5m · 345s · 7777p", from: "From", dealDone: "Deal done", discard: "Discard",
               flower: "Flower", chow: "Chow", pung: "Pung", kong: "Exposed kong", concealed: "Concealed kong", added: "Added kong", needTile: "Enter the tile, e.g. 5m",
               oneTile: "{what}: one tile only", sameTiles: "{what}: one tile (or {n} of the same)",
               threeTiles: "Chow: three tiles, e.g. 345s",
               missing: "Missing suit (定缺)", riichi: "Riichi", riichiVoid: "Riichi void", riichiVoidWhy: "Ron on the riichi declaration tile: the riichi never stood, no stick put down",
               keys: "Keyboard: e s w n first picks the seat; 5m Enter discards (a flower: laid out); pung and exposed kong need no tile",
               said: "{seat} {what} {tiles}", saidFrom: "{seat} {what} {tiles} (from {from})",
               claimFirst: "if {seat} claimed {from}'s tile first, key that claim ({key}, then chow, pung or kong), then Enter for this discard" },
        suit: { m: "characters", p: "dots", s: "bamboo" }, missingBadge: "no {suit}", sealed: "sealed (封胡)", sealedWhy: "fed {seat} three pungs: may not win this hand",
        dice: { seat: "Thrower", values: "Dice", submit: "Key the dice", keyed: "keyed", firstDealer: "Choosing the first dealer: press the dice key, or throw and key the dice here (the thrower by chair).", bad: "Key {m} dice of 1 to 6, e.g. 3 5", none: "This table reports no dice: throw, then key the {m} dice.",
                fewer: "This table's dice unit throws {n}, the ruleset {m}: throw, then key the dice.", retry: "Unusable throw: throw again, or key the dice thrown." },
        fix: { title: "Correct the record", hint: "A play recorded wrong (tile, seat, meld) in this hand is put right, or voided; a play never keyed is inserted before or after another; the original stays in the log, and an undo takes it back.",
               target: "Play to correct", seat: "Seat (blank: as is)", tiles: "Tiles (blank: as is)", from: "From (blank: as is)",
               void: "Void (never happened)", reason: "Reason", submit: "Correct", none: "No play to correct in this hand",
               needReason: "Give the reason for the correction (it stays in the record)",
               needWhat: "Give what to correct (seat, tiles, from), or tick void",
               mode: "How", modeFix: "Correct or void this play", modeBefore: "Insert a missed play before this one",
               modeAfter: "Insert a missed play after this one", modeReplace: "This play was another kind (voided, replaced)",
               play: "Play to insert", needSeat: "Choose the seat of the play to insert",
               needTiles: "Give the tiles of the play to insert", needFrom: "A claim: choose whose discard it took", insertedMark: " (inserted)",
               kinds: { discard: "Discard", flower: "Flower", chow: "Chow", pung: "Pung", claim_kong: "Kong of a discard",
                        concealed_kong: "Concealed kong", added_kong: "Added kong" } },
        pen: { rule: "Rule a penalty", seat: "Offender", code: "Penalty", amount: "Points", victim: "Harmed seat", note: "Note", submit: "Rule", undoReason: "Reason to undo",
               undo: "Undo the last referee action", actions: "Referee record", when: "When", who: "Who", what: "What", points: "Pts", catalogue: "Catalogue",
               name: "Penalty", text: "Rule text", warning: "warning", stops: "no win", each: "{n} to each", victim_: "{n} to the harmed", dead: "−{n}", tsumo: "{n} as a tsumo lost: {h} to the dealer, {q} to each other; a dealer {h} to each", standing: "−{n} off the standing",
               escal: "{list}, and so on", choose: "referee: {min}–{max} (step {step})", scored: "the declared hand's worth to each ({u} given)", fan: "{u}", undone: "undone: {r}", last: "undoable: #{n} {name}", nothing: "nothing to undo",
               needReason: "Give the reason for the undo (it stays in the record)", noActions: "no referee action yet", source: "Source: {s}" },
        fd: { count: "First dealer: {who} throws (the total counts chairs from chair 1); without a throw chair 1 deals",
              highest: "First dealer: {who} throw once each, the highest deals", chosen: "First dealer: chair {n}" },
        next: { timeUp: "Time is up: this hand is the last.", timeUpAfter: "Time is up, no further hand: the referee ends the session on the Score sheet page.", ended: "The referee ended the session: the referee starts the next round on the Score sheet page.",
                over: "The session's {n} hands are played: the referee starts the next round on the Score sheet page.",
                overAny: "The session is over: the referee starts the next round on the Score sheet page.",
                bust: "{who} below zero (bust): the session is over. The referee starts the next round on the Score sheet page.",
                swap: "Seat swap before the next hand: {moves}.", move: "{who} moves to chair {chair}" },
        ap: { title: "Appeals", hint: "Players' written appeals against a referee's rulings (within the time after the session), and the arbitration committee's decisions.",
              who: "Appellant", target: "Against ruling #", optional: "optional", text: "Appeal", submit: "Record appeal", none: "no appeals",
              waiting: "awaiting the committee", upheld: "upheld", dismissed: "dismissed", note: "reasons", uphold: "Uphold",
              dismiss: "Dismiss", needNote: "Give the committee's reasons", about: "against #{n} {what}", item: "#{seq} {who}: {text}" },
        sheet: { res: { win: "win", win_pending: "win (to be confirmed)", draw: "draw", abandoned: "abandoned", abortive: "abortive draw", playing: "playing", penalty: "penalties" },
                 chair1: "chair 1", chair2: "chair 2", chair3: "chair 3", chair4: "chair 4",
                 pause: "Pause the clock", resume: "Restart the clock", pauseWhy: "why (a table jam …)", title: "Score sheet", csv: "Export CSV", fill: "Fill in", offer: "Tournament seating, round {n} ({table}): {names}", print: "Print (for signatures)", sign: "Player's signature", refSign: "Referee's signature",
                 printed: "{table} · {round} · printed {at}", record: "this hand's record", rescored: "today's rules: {n}", rescoredVoid: "no win under today's rules",
                 rescoredTip: "The ruleset or the scorer changed: scored today this win differs from what was confirmed. The sheet keeps the confirmed figures; the head referee decides", pot: "On the table: {n} riichi sticks (to the next winner)", rounds: "Round", roundOpt: "Round {n}", playing: "playing",
                 closed: "closed", held: "Points held (from {start})", standing: "Penalties off the standing", records: "This round's records", newRound: "Start a new round", roundNo: "Round", id: "reg. no. (optional)", startRound: "Start this round",
                 newRoundHint: "After this round, key the next round's four players: this sheet becomes final, the new round first throws for its dealer (see the Table page; without a throw chair 1 deals), then starts at hand 1. Before its first hand, the same round number corrects the players.", start: "Start session clock", minutes: "minutes", minutesDefault: "{n} min (the ruleset's)", minutesAria: "session length (minutes)", end: "End session", hand: "Hand", round: "Wind", dealer: "Dealer", result: "Result",
                 fan: "{U}", total: "Total", tp: "Table points", tpState: "Table points ({s})", final: "final", prov: "provisional", pen: "pen.", kong: "kong", chase: "chase", follow: "follow the dealer", draw: "draw check", stack: "stack", hung: "held outside",
                 sub: "Substitute (替补)", subHint: "A player taken ill, gone for good or disqualified: a substitute takes the chair from the next hand; the hand in play is finished by the player who began it. The sheet names who sat each hand.",
                 subChair: "Chair", subName: "Substitute", subReason: "reason (ill, withdrew, disqualified …)", subSubmit: "Substitute", satFrom: "{n} (from hand {a})",
                 satSpan: "{n} (hands {a}-{b})" },
        ok: "✓ recorded", repeat: "✓ recorded (a repeat: not recorded again)", lost: "✗ {what}: no answer; asking the service whether it was recorded (it will not be recorded twice)", needRef: "needs the referee role" ,
        taken: "✓ {what}: recorded #{seq} (its answer was lost on the network; checked with the service)", notTaken: "✗ {what}: not recorded (it never reached the service). Press again if still wanted",
        waitFirst: "✗ an action has no answer yet ({what}): wait for it before {act}, or it may act on another ruling",
        pend: { sending: "⏳ {what}: sending… ({n} s)", asking: "⏳ {what}: no answer; asking the service whether it was recorded…",
                offline: "⚠ {what}: network down, not known whether it was recorded; checked once it is back ({n} s)" },
        hl: { title: "Table link", up: "link up", down: "link down", rtt: "round trip {n} ms", counters: "retransmits {r} · CRC errors {c} · NAKs {k} · reconnects {x}",
              heard: "heartbeat {n} s ago", camera: "Camera: " },
        cam: { title: "Camera: to confirm", none: "none", confirm: "Confirm", correct: "Correct to", dismiss: "Not a tile",
               hint: "Each confirmation or correction teaches the camera this set's tiles; a coin, a phone or a glare spot read as a tile: press Not a tile, and the camera neither waits for it nor learns it.", view: "Camera view", seen: "{where} {kind} (confidence {c})",
               earlier: "hand {n} (over: the tile is off the table, judge by the picture): ",
               stale: "The picture is from before the camera failed, not the table now",
               zone: { discard: "discards", meld: "melds", flower: "flowers", centre: "centre" } } },
};
const PAGES = { "/": "table", "/win": "win", "/penalties": "penalties", "/scoresheet": "scoresheet", "/public": "public",
  "/replay": "replay", "/overlay": "overlay" };
const page = PAGES[location.pathname.replace(/\/$/, "") || "/"] || "table";
const params = new URLSearchParams(location.search);
const delay = Number(params.get("delay") || 0);
// the address's ?lang=en (OBS's overlay has no button to press: the page hides it), else the button's last choice
let lang = ["zh", "en"].includes(params.get("lang")) ? params.get("lang") : localStorage.getItem("lang") || "zh";
let state = null;
let lastSeq = null;
let logId = null; // the log the page's numbers are of (its snapshot says): a service back on another sends a snapshot
/** The service's `now` in the last message that had one, and the tablet's steady clock then (`steady`, ms): the
 *  timers count from it. The offset to the tablet's wall clock it was, kept until the next event, took a step of
 *  that clock (NTP's first sync on the kiosk's Pi) into every countdown: a turn showed 超时 3590 秒 an hour on. */
let clockAnchor = null;
let ws = null;
let role = "viewer";
let who = null; // the login's answer: the holder's name, or why it was refused
let reasked = false; // a 4403 was answered by asking whoami again (once until the next snapshot)
const logLines = [];
const LOG_KEEP = 200;
window.__dice = [];

document.body.classList.add("page-" + page);
// the pages shown to the hall and on air: the public view only, never a login (a referee's tablet left
// on /public must not put the referee's channel on a screen)
const onAir = page === "public" || page === "overlay";
if (onAir) document.body.classList.add("public");

function t(key, vars) {
  let s = key.split(".").reduce((o, k) => (o ? o[k] : undefined), I18N[lang]);
  if (s === undefined) s = key;
  // {u}: the ruleset's unit (倍 推倒胡, 张 南宁 ...), {U} capitalised: the pages said 番 for every ruleset's count
  const u = unitWord();
  for (const [k, v] of Object.entries({ u, U: u.charAt(0).toUpperCase() + u.slice(1), ...vars })) s = s.split("{" + k + "}").join(v);
  return s;
}
const $ = (id) => document.getElementById(id);
/** The unit a win's total counts in, in the page's language (the state's `ruleset_unit`; 番 / fan before one). */
const unitWord = () => (lang === "zh" ? state && state.ruleset_unit : state && state.ruleset_unit_en) || (lang === "zh" ? "番" : "fan");
/** 方式's 抢杠 in the ruleset's own word where its fan table names it (`renderFanBook`): 抢杠胡 (推倒胡, 鸡平胡),
 *  抢杠和 (国标). Before, every table's form said 抢杠和 beside a 推倒胡 fan table and payment line saying 抢杠胡.
 *  Written after the static text too, which would put the generic word back. */
let robKongWord = null;
function robKongLabel() {
  const option = document.querySelector("#win-form select[name=win] option[value=rob_kong]");
  if (option) option.textContent = robKongWord && lang === "zh" ? robKongWord : t("win.rob");
}
/** A seat's 立直 badge on its panel; 立直不成立 once a confirmed win was a ron on its declaration tile (`wins[].riichi_void`):
 *  the badge said 立直 still, though the sheet had no stick from it. */
const riichiBadge = (w) => ((state.wins || []).some((x) => x.riichi_void === w)
  ? `<span class="stopped" data-testid="riichi-${w}" title="${esc(t("key.riichiVoidWhy"))}">${t("key.riichiVoid")}</span>`
  : `<span class="missing" data-testid="riichi-${w}">${t("key.riichi")}</span>`);
/** A win's total with its unit (8 倍, 30 番, 5 fan): the banners and the wins list read the same number in a
 *  推倒胡 倍, an MCR 番 and a 南宁 张, and said only the number. */
const totalWithUnit = (total) => (total == null ? "" : `${total} ${unitWord()}`);
const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const serverNow = () => (clockAnchor ? clockAnchor.now + (steady() - clockAnchor.at) / 1000 : Date.now() / 1000);
/** Milliseconds on the tablet's steady clock, for durations: its wall clock steps (NTP, a hand-set time), and a step
 *  back stopped the silence watchdog until the clock caught up (a dead socket went unnoticed). */
const steady = () => performance.now();
/** Who did it, in the page's language ("demo" stands in for the referee in `tablectl demo`). */
const roleName = (by) => { const n = t("role." + by); return n.startsWith("role.") ? String(by || "") : n; };
const token = () => sessionStorage.getItem("token") || "";

// ---- tiles: Chinese names from the glossary's codes -------------------------------------------
const NUM = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
const SUIT = { m: "万", p: "筒", s: "条" };
const HON = ["东", "南", "西", "北", "白", "发", "中"];
const FLO = ["春", "夏", "秋", "冬", "梅", "兰", "菊", "竹"];
function tileName(c) {
  if (c === "back") return "🀫";
  const m = /^(10|[1-9])([mpszf])$/.exec(c || "");
  if (!m) return c;
  const r = Number(m[1]);
  if (m[2] === "z") return HON[r - 1];
  if (m[2] === "f") return FLO[r - 1];
  return NUM[r - 1] + SUIT[m[2]];
}
function tileHtml(c, extra) { return `<span class="tile ${c === "back" ? "back" : ""} ${extra || ""}" data-tile="${esc(c)}">${esc(tileName(c))}</span>`; }

function showRole() {
  // who is logged in, in the page's language (裁判 / referee)
  if (!who) return;
  $("role").textContent = who.error !== undefined ? (who.error || t("wrong")) : t("role." + role) + (who.name ? " " + who.name : "");
}

// ---- static text ------------------------------------------------------------------------------
function renderStatic() {
  showRole();
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  // the switch's word is in the other language (English / 中文): a screen reader reads it in that one's voice
  $("lang").lang = lang === "zh" ? "en" : "zh-CN";
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  robKongLabel();
  document.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  // a name for a control without a label of its own (a second input in a label, ◀ ▶), keys joined by spaces
  document.querySelectorAll("[data-i18n-aria]").forEach((el) => {
    el.setAttribute("aria-label", el.dataset.i18nAria.split(" ").map((k) => t(k)).join(" "));
  });
  document.querySelectorAll("#nav a").forEach((a) => a.classList.toggle("current", a.dataset.page === page));
  $("legend").innerHTML = Object.entries(I18N[lang].legend).map(([k, v]) => `<span><i class="half ${k}"></i>${v}</span>`).join("");
  document.querySelectorAll("select.seat-select").forEach((sel) => {
    const keep = sel.value;
    sel.innerHTML = (sel.classList.contains("optional") ? `<option value="">—</option>` : "")
      + SEATS.map((s) => `<option value="${s}">${t("seat." + s)}</option>`).join("");
    if (keep) sel.value = keep;
  });
}

// ---- the wall ---------------------------------------------------------------------------------
function stacksOf(deal, now, ended) {
  // now: the wall after the draws counted from play (hand.wall_now), when there has been play
  const marks = {};
  const add = (pos, cls) => { if (pos) (marks[pos] = marks[pos] || new Set()).add(cls); };
  if (!deal) return marks;
  for (const seat of SEATS) for (const p of (deal.hands && deal.hands[seat]) || []) add(p, "dealt");
  add(deal.first_dealt, "first");
  const live = now ? now.live_drawn : 0, tail = now ? now.tail_drawn : 0;
  for (const p of (deal.live || []).slice(0, live)) add(p, "dealt");
  for (const p of (deal.tail || []).slice(0, tail)) add(p, "dealt");
  add(now ? now.next_draw : (deal.live || [])[0], "next");
  add(now ? now.next_replacement : (deal.tail || [])[0], "tail");
  for (const p of (now && now.dead) || deal.dead || []) add(p, "dead"); // 留牌 moves with the 海底 (state._wall_now)
  add(now ? now.last_live : deal.last_live, "last");
  // 买马 / 钓鱼: once a win is read or the hand has ended, the tiles the referee turns up from the tail
  if (ended) for (const p of (now && now.hand_end) || (deal.hand_end && deal.hand_end.positions) || []) add(p, "handend");
  for (const v of Object.values((now && now.indicators) || deal.indicators || {})) { // riichi: one more per kong
    for (const p of [].concat(v && v.position ? v.position : v)) if (typeof p === "string") add(p, "indicator");
  }
  return marks;
}
let wallKey = null;
function renderWall(hand) {
  const deal = hand && hand.deal;
  // 买马 / 钓鱼 are turned up once a win is read (the referee keys them in that read, before 结束本盘) or the hand
  // has ended: before, they were marked only after 结束本盘, when the read carrying them was already confirmed
  const win = state && state.win;
  const over = !!(hand && (hand.ended || (win && (win.confirmed || (win.result && win.result.valid && !(state.stopped || {})[win.seat])))));
  const key = JSON.stringify([hand && hand.hand_no, deal && deal.first_dealt, hand && hand.wall_lengths, hand && hand.wall_now, over]);
  if (key === wallKey) return; // the wall only changes with a new hand or a new break
  wallKey = key;
  const lengths = (deal && deal.wall_lengths) || (hand && hand.wall_lengths) || { E: 18, S: 18, W: 18, N: 18 };
  const marks = stacksOf(deal, hand && hand.wall_now, over);
  const brk = deal && deal.break;
  const parts = [];
  for (const seat of SEATS) {
    parts.push(`<div class="side ${seat}" data-wall="${seat}">`);
    for (let i = 1; i <= lengths[seat]; i++) {
      const id = seat + String(i).padStart(2, "0");
      parts.push(`<div class="stack${brk && brk.stack === id ? " break" : ""}" data-stack="${id}">`);
      for (const level of ["t", "b"]) parts.push(`<div class="half ${[...(marks[id + level] || [])].join(" ")}" data-pos="${id + level}" title="${esc(tileAt(id + level))}"></div>`);
      parts.push("</div>");
    }
    parts.push("</div>");
  }
  $("wall").innerHTML = parts.join("");
}

function renderFirstDealer() {
  // 定庄 before the round's first hand: the throws by chair, then the chair chosen (or who throws)
  const fd = state.next_hand && state.next_hand.first_dealer;
  if (!fd) return false;
  $("dice").innerHTML = (fd.throws || []).map((th) => `<div class="throw${th.ignored ? " ignored" : ""}"><div>${esc(t("pos", { n: th.chair }))}${
    th.keyed ? ` <small>(${t("dice.keyed")})</small>` : ""}</div><div class="dice">${
    th.dice.map((d) => `<span class="die" data-die="${d}">${d}</span>`).join("")}</div></div>`).join("");
  const chairs = (fd.waiting || []).map((c) => t("pos", { n: c })).join(lang === "zh" ? "、" : ", ");
  $("break").textContent = fd.chosen ? t("fd.chosen", { n: fd.position }) : t(fd.method === "highest" ? "fd.highest" : "fd.count", { who: chairs });
  $("last-warn").textContent = "";
  $("deal-error").textContent = fd.note || "";
  return true;
}

/** A wall position (walls.md: "S12t", the top tile of stack 12 of S's wall) in words: 南家第 12 墩上. */
function tileAt(code) {
  const m = /^([ESWN])(\d+)([tb])$/.exec(String(code || ""));
  if (!m) return String(code || "");
  return t("tileAt", { wall: t("seat." + m[1]), n: Number(m[2]), level: t(m[3] === "t" ? "top" : "bottom"), code });
}

function renderDice(hand) {
  if (!hand && renderFirstDealer()) { renderDiceForm(hand); renderPlayForm(hand); return; }
  const throws = (hand && hand.throws) || [];
  $("dice").innerHTML = throws.map((th) => `<div class="throw"><div>${t("seat." + th.seat)}${th.keyed ? ` <small>(${t("dice.keyed")})</small>` : ""}</div><div class="dice">${
    th.dice.map((d) => `<span class="die" data-die="${d}">${d}</span>`).join("")}</div></div>`).join("");
  const deal = hand && hand.deal;
  let text = "";
  let warn = "";
  if (deal && deal.break) {
    const left = hand.tiles_left != null ? hand.tiles_left : (deal.live || []).length;
    text = t("breakAt", { wall: t("seat." + deal.break.wall), count: deal.break.count, mode: t(deal.break.mode),
                          first: tileAt(deal.first_dealt) })
      + " · " + t("left", { n: left });
    if (left <= 8 && !hand.ended) warn = t("lastWarn", { n: left });
    // 后4张必胡 (四川, 血流): the rule holds from now on; the table cannot see who is ready, the referee can
    const must = hand.wall_now && hand.wall_now.must_win;
    if (must && !hand.ended) warn = t("mustWin", { n: must, left });
  } else if (hand && hand.next_thrower && !hand.ended) {
    text = t("nextThrow", { seat: t("seat." + hand.next_thrower) });
  }
  // each part of the line whole ("首抓 南家第 12 墩上" was cut after 南 in the narrow centre)
  $("break").innerHTML = text.split(" · ").map((part) => `<span class="nowrap">${esc(part)}</span>`).join(" · ");
  $("last-warn").textContent = warn;
  $("deal-error").textContent = (hand && hand.error) || "";
  // the board read a keyed throw otherwise (state._apply_throw): the keyed throw stands; the operator and referee
  // are told, to check the dice on the table (written only when the words change: an alert is said as it changes)
  const dispute = hand && hand.dice_dispute;
  const disputed = dispute ? (lang === "en" && dispute.text_en ? dispute.text_en : dispute.text) : "";
  if ($("dice-dispute").textContent !== disputed) $("dice-dispute").textContent = disputed;
  renderDiceForm(hand);
  renderPlayForm(hand);
}

function lastDiscarder(hand, wonToo) {
  // the seat whose discard lies last on the table (a claim takes it); `wonToo`: a discard won on counts
  // (血战 takes it from the pool, and a second winner on it, 一炮多响, names the same discarder)
  let best = null;
  for (const w of SEATS) {
    const pool = (hand.discards || {})[w] || [];
    const last = pool[pool.length - 1];
    if (last && (!last.claimed || (wonToo && last.won_by)) && (!best || last.seq > best.seq)) best = { seat: w, seq: last.seq };
  }
  return best && best.seat;
}

const followed = { turn: null, from: null, thrower: null }; // what the forms last took from the state
// A seat picked after a play is keyed but before the page shows that play is a pick for the state the
// play makes: the new turns the operator's plays bring, however many are on their way, must not put the
// seat back (seen: E's discard keyed, N picked for the pung, the discard's update came and the pung went
// in for S, whose turn it now was; keying on ahead, each queued play's turn moved it again).
const ownPlay = { sending: false, seq: null };  // the operator's last play: in flight, or its event's seq
const aheadPick = { seat: false, from: false };
const pickedForNext = { seat: false, from: false };  // picked (select or letter) since the last play pressed
function behindOwn() {
  // plays pressed and not yet answered, or answered and not yet shown
  return queued > 0 || ownPlay.sending || (ownPlay.seq !== null && (lastSeq === null || lastSeq < ownPlay.seq));
}
function pickedAhead(name) {
  pickedForNext[name] = true;
  aheadPick[name] = behindOwn();
}
function follow(select, name, value) {
  // a new turn (or discard) moves the select unless the operator is in it, or picked it while the page
  // was behind their plays: that pick holds until the update that catches up
  if (aheadPick[name]) {
    if (!behindOwn()) aheadPick[name] = false;
    return;
  }
  if (document.activeElement !== select) select.value = value;
}
function pressedPick(select, name, follows) {
  // a play pressed: the select's value, or null where it follows and nothing was picked for it (a pick
  // is for one play): it goes to the turn, or the last discard, as they stand when it is sent
  const value = follows && !pickedForNext[name] ? null : select.value;
  pickedForNext[name] = false;
  aheadPick[name] = false;
  return value;
}
function renderPlayForm(hand) {
  // keying what happened on the table, for a table without a camera (or what the camera missed)
  const f = $("play-form");
  const open = !!(hand && hand.deal && !hand.ended);
  f.hidden = !open;
  if (!open) return;
  // The seat follows the turn and "from" the last discard, but only when they move: an update that
  // is not a new turn (a penalty, the clock, the camera) must not put back a seat the operator
  // picked, or the next key goes to the turn's seat instead (seen: 缺筒 keyed for E, not S).
  const turn = hand.turn && hand.turn.seat;
  const turnKey = turn && `${hand.hand_no}:${turn}:${hand.turn.since}`;  // a turn is its seat and its start
  if (turn && turnKey !== followed.turn) {
    followed.turn = turnKey;
    follow(f.seat, "seat", turn);
  }
  const from = lastDiscarder(hand);
  const pool = from && hand.discards[from];
  const fromKey = from && `${hand.hand_no}:${from}:${pool[pool.length - 1].seq}`;
  if (from && fromKey !== followed.from) {
    followed.from = fromKey;
    follow(f.from, "from", from);
  }
  // what the ruleset plays with: no 吃 under 四川, 推倒胡, 南宁; no 补花 where the set has no flowers (a hand
  // folded from a log older than these flags has them undefined: shown, as before)
  $("play-form").querySelector('[data-play="chow"]').hidden = hand.chows === false;
  $("play-form").querySelector('[data-play="flower"]').hidden = hand.flowers_in_set === false;
  // the page has caught up with the operator's plays: a pick made ahead of them has held through that update,
  // and the next new turn moves the select again. An own play that moves no turn (定缺, 立直) left the pick
  // held on, and the next turn (another device's play, the camera's) was taken for the catching up: not followed
  if (!behindOwn()) aheadPick.seat = aheadPick.from = false;
  // 血战: a seat that has won is out: it plays no more, and no discard of its is left to claim (a seat typed
  // ahead of the tiles still sends: refused, saying why)
  const out = hand.out || [];
  for (const select of [f.seat, f.from]) {
    for (const o of select.options) o.disabled = out.includes(o.value);
  }
  $("missing-keys").hidden = !hand.missing_suit;  // 定缺: rulesets where each seat gives up a suit
  $("riichi-keys").hidden = !hand.riichi_declarations;  // 立直: keyed with the seat's discard
  renderAbortive(hand);
}
function renderAbortive(hand) {
  // 途中流局 (riichi): a button per abortive draw the ruleset has; one the record shows is marked and said
  const box = $("abortive-keys"), kinds = hand.abortive_draws || [], shown = hand.abortive_shown || [];
  box.hidden = !kinds.length || !!hand.ended;
  const sig = kinds.join() + "|" + shown.join() + "|" + lang;
  if (box.dataset.sig === sig) return;
  box.dataset.sig = sig;
  box.innerHTML = kinds.map((k) => `<button type="button" data-abortive="${esc(k)}" data-testid="abortive-${esc(k)}"${
    shown.includes(k) ? ` class="shown" title="${esc(t("abortive.shown", { name: t("abortive." + k) }))}"` : ""}>${
    esc(t("abortive." + k))}</button>`).join("");
}

function claimedTile(from) {
  // the tile a pung or exposed kong takes: the newest discard of 来自, while it lies unclaimed
  const pool = (state && state.hand && (state.hand.discards || {})[from]) || [];
  const last = pool[pool.length - 1];
  return last && !last.claimed ? last.tile : null;
}

function typedTiles(text) {
  // 牌 as typed: 5M with caps lock on is 5m (before: 请填写牌, the suit letter not read)
  return parseTiles(String(text || "").toLowerCase());
}
function playBody(kind, seat, from, typed) {
  let tiles = typedTiles(typed);
  // 碰 and 明杠 with 牌 empty: the claimed tile is on the table (the record takes no other), not typed again
  if (!tiles.length && (kind === "pung" || kind === "kong") && claimedTile(from)) tiles = [claimedTile(from)];
  if (kind === "deal_done") return { type: "deal_done" };
  if (kind.startsWith("missing:")) return { type: "missing", seat, suit: kind.slice(8) };
  if (kind === "riichi") return { type: "riichi", seat };
  if (!tiles.length) return null;
  const t0 = tiles[0];
  // what was typed must be the play: before, 碰 on "567m" keyed a pung of 5m and 打出 "5m 6m" a 5m
  const what = t("key." + kind);
  if ((kind === "discard" || kind === "flower") && tiles.length > 1) return { problem: t("key.oneTile", { what }) };
  const n = kind === "pung" ? 3 : 4;
  if (kind !== "chow" && !(tiles.every((x) => x === t0) && (tiles.length === 1 || tiles.length === n))) {
    return { problem: t("key.sameTiles", { what, n }) };
  }
  if (kind === "chow" && tiles.length !== 3) return { problem: t("key.threeTiles") };
  if (kind === "discard" || kind === "flower") return { type: kind, seat, tile: t0 };
  const four = [t0, t0, t0, t0];
  if (kind === "chow") return { type: "claim", kind: "chow", seat, from, tiles };
  if (kind === "pung") return { type: "claim", kind: "pung", seat, from, tiles: [t0, t0, t0] };
  if (kind === "kong") return { type: "claim", kind: "kong", seat, from, tiles: four };
  return { type: "kong", seat, tiles: four, concealed: kind === "concealed", added: kind === "added" };
}

/** The chairs still to throw for the round's first dealer (定庄), before its first hand; [] once chosen or dealt. */
function firstDealerThrowers(hand) {
  const fd = !hand && state && state.next_hand && state.next_hand.first_dealer;
  return fd && !fd.chosen ? fd.waiting || [] : [];
}
function renderDiceForm(hand) {
  // keyed dice: offered while the hand waits for its break, and for the 定庄 throw before the round's first hand
  // (keyed by chair: E is 1号位 then); explained where the table cannot throw the ruleset's dice. Before, a table
  // whose dice report nothing had no way to key the 定庄 throw (the form came with the first hand)
  const f = $("dice-form");
  const choosing = firstDealerThrowers(hand);
  const waiting = !!choosing.length || !!(hand && !hand.ended && !hand.deal && hand.next_thrower);
  f.hidden = !waiting;
  if (!waiting) return;
  // refused now (the walls not up, as the table says): shown disabled with the API's own words
  // (state.dice_refused, from the function POST /api/dice refuses with); before, it was offered and answered 409
  const refused = !choosing.length && state && state.dice_refused;
  for (const el of f.elements) el.disabled = !!refused;
  const next = choosing.length ? SEATS[choosing[0] - 1] : hand.next_thrower;
  const thrower = choosing.length ? `fd:${state.round}:${choosing.join()}:${(state.next_hand.first_dealer.throws || []).length}`
    : `${hand.hand_no}:${hand.next_thrower}:${(hand.throws || []).length}`;
  if (thrower !== followed.thrower) {  // as the play form's seat: only when the thrower changes
    followed.thrower = thrower;
    if (document.activeElement !== f.seat) f.seat.value = next;
  }
  if (choosing.length) { $("dice-hint").textContent = t("dice.firstDealer"); return; }
  const m = hand.dice_count;
  let hint = "";
  if (refused) hint = lang === "en" && refused.text_en ? refused.text_en : refused.text;
  else if (hand.error) hint = t("dice.retry");
  else if (hand.table_dice === 0) hint = t("dice.none", { m });
  else if (hand.table_dice && m && hand.table_dice !== m) hint = t("dice.fewer", { n: hand.table_dice, m });
  $("dice-hint").textContent = hint;
}

// ---- seats, discards, timers ------------------------------------------------------------------
function seatsOf(s) {
  // wind -> the player holding it this hand (抽签号位: the chair drawn, until a 换位 moves them;
  // before the first hand chair 1 is E)
  return (s.hand && s.hand.seats) || { E: 1, S: 2, W: 3, N: 4 };
}
function sealedFor(hand, w) {
  // 南宁 封胡: the seat w fed three pungs (w may not win this hand)
  const pair = (hand.sealed || []).find((p) => p[0] === w);
  return pair ? pair[1] : null;
}
/** A chair's points as the players count them: held points (持点) where the ruleset starts everyone at
 *  `start_points` (riichi, 25000), else the sheet's total from 0. Before, a riichi table showed −1000 for a
 *  declarer holding 24000, and the 立直 refusal named the held points (南家只有-23000点) the page never showed. */
function heldPoints(sheet, pos) {
  const total = ((sheet && sheet.totals) || {})[pos] ?? 0;
  return sheet && sheet.start_points != null ? sheet.start_points + total : total;
}
function heldAttr(sheet) {
  return sheet && sheet.start_points != null ? ` title="${esc(t("heldTip", { start: sheet.start_points }))}"` : "";
}
/** The ruling that put a seat out of winning (`stopped`: its Chinese name), in the page's language: the penalty's
 *  English name from the record (the English page's tooltip said 多张、少张（相公）). */
function stoppedWhy(w, zh) {
  if (lang === "zh") return zh;
  const a = (state.actions || []).slice().reverse().find((x) => x.type === "referee.penalty" && x.seat === w && x.name_zh === zh && !x.undone);
  return (a && a.name_en) || zh;
}
function renderSeats() {
  const s = state;
  const seats = seatsOf(s);
  const hand = s.hand || {};
  const stopped = s.stopped || {};
  $("seats").innerHTML = SEATS.map((w) => {
    const pos = String(seats[w]);
    const name = (s.sitting || s.players)[pos] || t("pos", { n: pos });
    const discards = ((hand.discards || {})[w] || []).map((d) => tileHtml(d.tile, d.claimed ? "claimed" : "")).join("");
    const melds = ((hand.melds || {})[w] || []).map((m) => `<span class="meld">${m.tiles.map((x) => tileHtml(x)).join("")}</span>`).join("");
    const flowers = ((hand.flowers || {})[w] || []).map((x) => tileHtml(x, "flower")).join("");
    return `<div class="seat" data-seat="${w}">
      <div class="seat-head"><span class="wind">${t("seat." + w)}</span><span class="name">${esc(name)}</span>
        ${w === "E" ? `<span class="dealer">${t("dealer")}</span>` : ""}
        ${(hand.missing || {})[w] ? `<span class="missing" data-testid="missing-${w}">${t("missingBadge", { suit: t("suit." + hand.missing[w]) })}</span>` : ""}
        ${(hand.riichi || {})[w] ? riichiBadge(w) : ""}
        ${sealedFor(hand, w) ? `<span class="stopped" data-testid="sealed-${w}" title="${esc(t("sealedWhy", { seat: t("seat." + sealedFor(hand, w)) }))}">${t("sealed")}</span>` : ""}
        ${stopped[w] ? `<span class="stopped" title="${esc(stoppedWhy(w, stopped[w]))}">${t("stopped")}</span>` : ""}
        ${(hand.winners || []).includes(w) ? `<span class="won" data-testid="won-${w}">${t((hand.out || []).includes(w) ? "out" : "won")}</span>` : ""}
        <span class="score" data-testid="score-${w}"${heldAttr(s.scoresheet)}>${heldPoints(s.scoresheet, pos)}</span>
        <span class="timer" data-timer="${w}"></span><span class="timer" data-claim="${w}"></span></div>
      <div class="melds">${melds}${flowers}</div>
      <div class="discards" aria-label="${t("discards")}">${discards}</div></div>`;
  }).join("");
  renderTimers();
}
// ---- the broadcast overlay (/overlay?delay=S: OBS's browser source, 1920×1080, transparent) ---------
/** The newest line of play or ruling in the log (not the link's, the camera's or the service's own). */
function lastPlay(s) {
  // the last play or ruling (a throw, a hand's start and end): never the table's own reports (a button pressed, the
  // tiles counted after a build) nor the display's (a PIN changed), which took the broadcast's line
  const line = [...(s.log || [])].reverse().find((l) => /^(play|referee|operator)\.|^table\.dice$/.test(l.type || ""));
  return line ? said(line) : "";
}
function said(line) {
  // a log or record line in the page's language (the service gives both: `text`, `text_en`)
  return lang === "en" && line.text_en ? line.text_en : line.text;
}
function renderOverlay() {
  // the players by who sits the hand (`sitting`): a substitute (替补) by name, as on the Table page; the broadcast
  // named the player the substitute replaced, and so did the 座位 of the operator's keying form
  const s = state;
  const hand = s.hand || {};
  const seats = seatsOf(s);
  const turn = hand.turn && !hand.ended ? hand.turn.seat : null;
  const info = [s.table_name || ""];
  if (hand.hand_no) info.push(t("round", { w: t("seat." + hand.prevalent_wind) }), t("hand", { n: hand.hand_no }));  // "S round · Hand 5", as the Table page
  if (hand.hand_no && !hand.ended && hand.tiles_left != null) info.push(t("ov.left", { n: hand.tiles_left }));
  if (hand.ended) info.push(t("ov.over"));
  if (!hand.hand_no) info.push(t("ov.waiting"));
  $("ov-info").textContent = info.filter(Boolean).join(" · ");
  $("ov-last").textContent = lastPlay(s);
  $("ov-seats").innerHTML = SEATS.map((w) => {
    const pos = String(seats[w]);
    const melds = ((hand.melds || {})[w] || []).map((m) => `<span class="meld">${m.tiles.map((x) => tileHtml(x)).join("")}</span>`).join("");
    const flowers = ((hand.flowers || {})[w] || []).map((x) => tileHtml(x, "flower")).join("");
    const discards = ((hand.discards || {})[w] || []).map((d) => tileHtml(d.tile, d.claimed ? "claimed" : "")).join("");
    return `<div class="ov-seat${w === turn ? " turn" : ""}" data-seat="${w}" data-testid="ov-seat-${w}">
      <div class="ov-head"><span class="wind">${t("seat." + w)}</span><span class="name">${esc((s.sitting || s.players)[pos] || t("pos", { n: pos }))}</span>
        ${w === "E" ? `<span class="dealer">${t("dealer")}</span>` : ""}${w === turn ? `<span class="ov-turn">${t("ov.turn")}</span>` : ""}
        <span class="score" data-testid="ov-score-${w}">${heldPoints(s.scoresheet, pos)}</span></div>
      <div class="ov-melds">${melds}${flowers}</div><div class="ov-discards">${discards}</div></div>`;
  }).join("");
  const win = s.win && s.win.result && s.win.result.valid ? s.win : null;
  $("ov-win").hidden = !win;
  if (win) {
    const r = win.result;
    $("ov-win").innerHTML = `<strong>${t("win.by", { seat: t("seat." + win.seat) + " " + esc((s.sitting || s.players)[String(seats[win.seat])] || "") })}</strong>
      ${(r.fans || []).map((f) => `<span>${esc(lang === "en" && f.name_en ? f.name_en : f.name)} ${f.value * f.count}</span>`).join("")}
      <strong>${t("win.total")} ${totalWithUnit(r.total)}</strong>`;
  }
}
function fmtMin(sec) {
  const s = Math.max(0, Math.round(sec));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(r).padStart(2, "0");
}
/** Seconds an overdue turn's timer blinks (three blinks) before it stays red: it blinked without end, and a blink past
 *  5 s with no way to stop it fails WCAG 2.2.2; counted on the table's clock, so a seat drawn again still stops. */
const OVERDUE_BLINK_S = 3;
function renderTimers() {
  if (!state) return;
  const now = serverNow();
  const hand = state.hand || {};
  document.querySelectorAll("[data-timer], [data-claim]").forEach((el) => { el.textContent = ""; el.className = "timer"; });
  // the referee's pauses of the session clock (a jam, a ruling) hold the turn too, and give its time back
  // (timers.turn_status): before, the seat whose turn a 10-minute jam stopped read 超时 585 秒 at the restart
  // (one still on when the referee ended the session ends with it)
  const sess = state.session;
  const pauses = ((sess && sess.pauses) || []).map((p) => ({ at: p.at, until: p.until ?? sess.ended_at ?? null }));
  const held = pauses.some((p) => p.until == null);
  const show = (turn, attr, label) => {
    if (!turn || turn.limit_s == null || hand.ended) return;
    const stood = pauses.reduce((sum, p) => sum + Math.max(0, Math.min(p.until ?? now, now) - Math.max(p.at, turn.since)), 0);
    const left = turn.since + turn.limit_s + stood - now;
    if (attr === "data-timer" && left <= 0 && !held) {  // the turn's time run out: said once (not its seconds over)
      sayOnce("turn", [`${hand.hand_no}:${turn.seat}:${turn.since}`], () => t("said.turnOver", {
        who: t("seat." + turn.seat) + " " + ((state.sitting || state.players)[String(seatsOf(state)[turn.seat])] || ""), what: label }));
    }
    const el = document.querySelector(`[${attr}="${turn.seat}"]`);
    if (!el) return;
    if (attr === "data-claim" && left <= 0) return; // the claim window has simply closed
    const warnAt = Math.min(5, turn.limit_s / 3);
    // run out: it blinks for its first OVERDUE_BLINK_S, then stays red and counts on (超时 N 秒)
    el.className = "timer " + (held ? "paused" : left <= 0 ? (-left < OVERDUE_BLINK_S ? "overdue blink" : "overdue")
      : left <= warnAt ? "warning" : "ok");
    el.textContent = (held ? "⏸ " : "") + label + " " + (left > 0 ? t("secs", { n: Math.ceil(left) }) : t("overdue", { n: Math.floor(-left) }));
  };
  show(hand.turn, "data-timer", t("turn." + ((hand.turn && hand.turn.kind) || "discard")));
  if (hand.claim) SEATS.filter((w) => w !== hand.claim.seat).forEach((w) => show({ ...hand.claim, seat: w }, "data-claim", t("turn.claim")));
  const box = $("session");
  const running = !!(sess && !sess.ended_at);
  $("clock-controls").hidden = !running;
  $("session-start").hidden = running;  // a press while it runs would start it afresh (refused by the service)
  $("session-minutes").hidden = running;
  // the ruleset's length shown as the field's hint; a ruleset without one (四川, 广东 …) needs the minutes typed
  const given = state.timers && state.timers.session_minutes;
  const hint = given ? t("sheet.minutesDefault", { n: given }) : t("sheet.minutes");
  if ($("session-minutes").placeholder !== hint) $("session-minutes").placeholder = hint;
  $("clock-pause").hidden = !running || !!sess.paused_since;
  $("clock-resume").hidden = !running || !sess.paused_since;
  $("clock-reason").hidden = !running || !!sess.paused_since;
  box.className = "badge clock";
  if (!sess) { box.textContent = t("noSession"); return; }
  if (sess.ended_at) { box.textContent = t("sessionEnded"); return; }
  // the time the referee stopped the clock (a table jam) is added back: paused_s ended, and the one still on
  const left = sessionLeft();
  renderNextNotice();
  if (sess.paused_since) { box.textContent = t("sessionPaused", { t: fmtMin(left) }); box.classList.add("paused"); return; }
  const warned = (sess.warnings_min || []).filter((w) => left <= w * 60);
  // the warnings (15, 5 minutes) and the end said once each: the nearest only, for a page opened late
  const levels = [...warned.map((w) => `${sess.started_at}:${w}`), ...(left <= 0 ? [`${sess.started_at}:over`] : [])];
  if (levels.length) {
    // time up on the Table page is said by its notice (比赛时间到：本盘为最后一盘), not twice
    const noticed = () => left <= 0 && $("next-notice").checkVisibility() && $("next-notice").textContent;
    sayOnce("clock", levels, () => (noticed() ? "" : left <= 0 ? t("sessionOver") : t("said.sessionWarn", { n: Math.min(...warned) })), left <= 0);
  }
  if (left <= 0) { box.textContent = t("sessionOver"); box.classList.add("over"); }
  else if (warned.length) { box.textContent = t("sessionWarn", { t: fmtMin(left) }); box.classList.add("warning"); box.dataset.warning = Math.min(...warned); }
  else box.textContent = t("session", { t: fmtMin(left) });
}
setInterval(renderTimers, 250);

// ---- win --------------------------------------------------------------------------------------
function renderWin() {
  const win = state.win;
  const seats = seatsOf(state);
  const nameOf = (w) => `${t("seat." + w)} ${esc((state.sitting || state.players)[String(seats[w])] || "")}`;
  syncWinForm();
  // no win yet: no empty fan table, 合计 and 各家付分 under "本盘尚无和牌"
  for (const id of ["fan-table", "payments-title", "payments"]) $(id).hidden = !win;
  renderHorses(win, nameOf);
  if (!win) {
    $("win-summary").textContent = t("win.none");
    $("fans").innerHTML = ""; $("fan-total").textContent = ""; $("payments").innerHTML = ""; $("win-tiles").innerHTML = "";
    $("win-steps").innerHTML = ""; $("win-steps").hidden = true;
    return;
  }
  const r = win.result || {};
  $("win-summary").innerHTML = `<strong>${t("win.by", { seat: nameOf(win.seat) })}</strong>${win.correction ? t("win.correction") : ""} · `
    + (r.valid ? t("win.valid") + riichiCount(r) : t("win.invalid", { r: esc(r.message || r.reason || "") }))
    + ` · ${winStatus(win, "win-status")}`;
  $("fans").innerHTML = (r.fans || []).map((f) => `<tr><td>${esc(lang === "en" && f.name_en ? f.name_en : f.name)}</td><td>${f.value}</td><td>${f.count}</td></tr>`).join("");
  $("fan-total").textContent = r.total != null ? r.total : "";
  $("win-steps").innerHTML = stepsLine(r);  // names escaped (nm); under 合计: from the total to one payer's amount
  $("win-steps").hidden = !$("win-steps").innerHTML;
  $("payments").innerHTML = SEATS.map((w) => {
    const v = (r.payments || {})[w] || 0;
    return `<div class="pay ${v > 0 ? "plus" : v < 0 ? "minus" : ""}"><span>${nameOf(w)}</span><strong>${v > 0 ? "+" : ""}${v}</strong></div>`;
  }).join("");
  const h = win.hand; // only on the referee's channel
  $("win-tiles").innerHTML = h ? [
    (h.melds || []).map((m) => `<span class="meld">${m.tiles.map((x) => tileHtml(x)).join("")}</span>`).join(""),
    (h.concealed || []).map((x) => tileHtml(x)).join(""), tileHtml(h.win_tile, "winning"),
    (h.flowers || []).map((x) => tileHtml(x, "flower")).join("")].join(" ") : "";
  // a confirmed win while others may still win (血战, 一炮多响): the form is the next winner's, not the read again
  // nor after the read was ruled 诈和 (its seat 停和): the form is for the seat that wins next
  if (h && !$("win-form").dataset.filled && !(win.confirmed && state.further_win) && !(state.stopped || {})[win.seat]) fillWinForm(h);
}
function stepsLine(r) {
  // How 合计 becomes what each seat pays, from the scorer's `steps` (自摸 ×2, 硬胡 ×2, 爆胡 封顶, 底分 ...) and `shares`
  // (a payer paying otherwise: 包三家, 封胡, 国标's 底分): before, a 推倒胡 鸡胡 自摸 read 合计 2 and each seat paid 8,
  // 自摸 ×2 shown nowhere and 硬胡 in the fan table as a 番型. "" where the payment is the total (河北) or none is said.
  const steps = r.steps || [], shares = r.shares || [];
  if (!r.valid || (!steps.length && !shares.length)) return "";
  const u = unitWord();
  const nm = (s) => esc(lang === "en" ? s.name_en : s.name);
  let x = r.total;
  const parts = [t("win.stepsTotal", { n: r.total, u })];
  for (const s of steps) {
    if (s.op === "×") { x *= s.value; parts.push(`× ${nm(s)} ${s.value}`); }
    else if (s.op === "+") { x += s.value; parts.push(`+ ${nm(s)} ${s.value}`); }
    else if (s.op === "封顶" || s.op === "=") { x = s.op === "=" ? s.value : Math.min(x, s.value); parts.push(`→ ${nm(s)} ${s.value} ${u}`); }
    else if (s.op === "2^") { parts.push(`→ 2^${x}`); x = 2 ** x; }
  }
  const payers = SEATS.filter((w) => ((r.payments || {})[w] || 0) < 0);
  const plain = payers.filter((w) => !shares.some((s) => s.seat === w));
  const seatList = (ws) => ws.map((w) => t("seat." + w)).join(lang === "zh" ? "、" : ", ");
  const amount = plain.length > 1 ? t("win.each", { n: x }) : plain.length ? t("win.paid", { seat: seatList(plain), n: x }) : String(x);
  const groups = [];  // shares of one name, op and value together: 国标 点和's two others each 底分 8
  for (const s of shares) {
    const g = groups.find((o) => o.name === s.name && o.op === s.op && o.value === s.value);
    if (g) g.seats.push(s.seat); else groups.push({ ...s, seats: [s.seat] });
  }
  return [`${parts.join(" ")} = ${amount}`, ...groups.map((g) => g.op === "×"
    ? t("win.shareTimes", { name: nm(g), seats: seatList(g.seats), n: x, v: g.value, m: x * g.value })
    : t("win.shareIs", { seats: seatList(g.seats), name: nm(g), v: g.value }))].join(t("win.sep"));
}
function renderHorses(win, nameOf) {
  // 买马: the seat each horse named (the scorer's `horses`), and on the referee's page the tile: the payments count
  // each horse once more, and before, the page showed the sums only (the konger's -72 of a 24 抢杠胡, unexplained)
  const seats = (win && win.result && win.result.valid && win.result.horses) || [];
  const tiles = (win && win.hand && win.hand.options && win.hand.options.horses) || [];
  $("win-horses").hidden = !seats.length;
  $("win-horses").innerHTML = seats.length ? t("win.horsesRead", {  // nameOf escapes the names
    list: seats.map((w, i) => (tiles[i] ? esc(lang === "zh" ? tileName(tiles[i]) : tiles[i]) + "→" : "") + nameOf(w)).join(" · "),
    n: seats.filter((w) => w === win.seat).length }) : "";
}
/** What riichi's points come from besides the 番 listed (the `mahjong` library's count): the 符, the limit
 *  reached (满贯 …) and the 本场 paid. Before, the page showed the 番 and the payments only: 2 番 at −2600 is
 *  40 符, or 30 符 with 2 本场, and the referee could not tell which was counted. */
function riichiCount(r) {
  if (!r.fu) return "";
  const parts = [t("fuN", { n: r.fu })];
  const level = r.level ? t("levels." + r.level) : "";
  if (level) parts.push(esc(level.startsWith("levels.") ? r.level : level));
  if (r.honba) parts.push(t("honbaPay", { n: r.honba, p: r.honba * 300 }));
  return ` · <span data-testid="win-count">${parts.join(" · ")}</span>`;
}
function renderWins() {
  // every win the referee confirmed this hand (一炮多响, 血战), the 查叫 at a draw, and the 查叫 form
  const seats = seatsOf(state);
  const nameOf = (w) => `${t("seat." + w)} ${esc((state.sitting || state.players)[String(seats[w])] || "")}`;
  const pays = (p) => SEATS.filter((w) => (p || {})[w]).map((w) => `${t("seat." + w)} ${p[w] > 0 ? "+" : ""}${p[w]}`).join(" · ");
  const wins = state.wins || [];
  // riichi: the 供托 the hand's first winner took off the table (the sheet's row, `riichi_taken`); before, it was on the
  // panels and the sheet but not on the winner's line
  const row = ((state.scoresheet && state.scoresheet.rows) || []).find((r) => state.hand && r.hand_no === state.hand.hand_no);
  const taken = (w) => ((row && row.riichi_taken) || {})[String(seats[w.seat])];
  $("wins-list").innerHTML = wins.length ? wins.map((w) => `<li data-seat="${w.seat}"><strong>${nameOf(w.seat)}</strong> ${totalWithUnit(w.total)} · ${pays(w.payments)}${
    taken(w) ? " · " + t("potTaken", { n: taken(w) }) : ""}</li>`).join("")
    : `<li class="none">${t("win.noneYet")}</li>`;
  const x = state.exhaustive;
  const list = (a) => (a && a.length ? a.map((w) => t("seat." + w)).join(t("list")) : t("draw.none"));
  // in the ruleset's words: 花猪 and 退税 are 定缺 rulesets' (四川), riichi's seats are 听牌 / 不听. Before, a riichi
  // 流局 read "花猪：无 · 有叫：西 · 无叫：东、南、北 · 退税：无", words its referee has no use for
  const h = state.hand || {}, riichi = !!h.riichi_declarations, sichuan = !!h.missing_suit;
  const parts = x ? [sichuan || x.flower_pigs.length ? t("draw.pigs", { s: list(x.flower_pigs) }) : "",
    t(riichi ? "draw.tenpai" : "draw.ready", { s: list(Object.keys(x.ready)) }), t(riichi ? "draw.noten" : "draw.notReady", { s: list(x.not_ready) }),
    sichuan || Object.keys(x.refunds).length ? t("draw.refunds", { s: list(Object.keys(x.refunds)) }) : ""].filter(Boolean) : [];
  $("exhaustive-summary").innerHTML = x ? `<h3>${t("draw.result")}</h3><div>${parts.join(" · ")}</div><div class="win-pay">${pays(x.payments)}</div>` : "";
  const opts = state.win_options || [];
  $("win-options").hidden = !opts.length;
  $("win-options-legend").textContent = t(state.referee_scored ? "win.manual" : "win.options");
  document.querySelectorAll("#win-options [data-option]").forEach((el) => { el.hidden = !opts.includes(el.dataset.option); });
  $("win-more").hidden = !state.further_win;
  $("win-more").textContent = t("win.more");
  const hand = state.hand;
  // 查叫 settles a hand ended at the wall's end (荒牌, or 血战/血流 ended by a win on its last tile: the
  // service says so, `exhaustive_due`): a hand ended by its wins (血战: three have won) has no draw to check
  // (the service refuses it, 本盘不是荒牌), and before, the form was offered all the same
  $("exhaustive-section").hidden = !(state.exhaustive_due && hand && hand.ended);
  const out = (hand && hand.out) || [];
  SEATS.forEach((w) => { const input = $("exhaustive-form")[w]; input.disabled = out.includes(w); input.parentElement.hidden = out.includes(w); });
}
function winStatus(win, testid) {
  // 待裁判确认 / 已确认, or, for a read whose seat was ruled out of winning (判诈和: 国标 plays on), that
  // ruling: before, the Table and Public pages showed the false winner's read 待裁判确认 to the hand's end
  const ruled = !win.confirmed && (state.stopped || {})[win.seat];
  const [cls, text] = win.confirmed ? ["confirmed", t("win.confirmed")] : ruled ? ["ruled", t("win.ruled", { r: esc(ruled) })]
    : ["pending", t("win.pending")];
  return `<span class="${cls}"${testid ? ` data-testid="${testid}"` : ""}>${text}</span>`;
}
function renderBanner() {
  // The win on the Table and Public pages: who, the fans and total, each seat's payment (no tiles).
  const win = state.win;
  const box = $("win-banner");
  if (!win || !win.result) { box.innerHTML = ""; box.hidden = true; return; }
  const r = win.result;
  const seats = seatsOf(state);
  box.hidden = false;
  const others = (state.wins || []).filter((w) => w.seq !== win.confirmed_seq);
  // under the fans, the Win page's line from 合计 to each payment (自摸 ×2, 包三家 …): the Table and Public pages showed
  // a total of 8 and payments of 24 with nothing between
  const steps = stepsLine(r);
  box.innerHTML = others.map((w) => `<div class="win-head earlier"><strong>${t("win.by", { seat: t("seat." + w.seat) + " " + esc((state.sitting || state.players)[String(seats[w.seat])] || "") })}</strong>
    <span class="confirmed">${t("win.confirmed")}</span> ${totalWithUnit(w.total)}</div>`).join("") + `<div class="win-head"><strong>${t("win.by", { seat: t("seat." + win.seat) + " " + esc((state.sitting || state.players)[String(seats[win.seat])] || "") })}</strong>
    ${winStatus(win)}</div>`
    + (r.valid ? `<div class="win-fans">${(r.fans || []).map((f) => `<span>${esc(lang === "en" && f.name_en ? f.name_en : f.name)} ${f.value * f.count}</span>`).join("")}
      <strong>${t("win.total")} ${totalWithUnit(r.total)}</strong></div>
      ${steps ? `<p class="steps" data-testid="banner-steps">${steps}</p>` : ""}
      <div class="win-pay">${SEATS.map((w) => { const v = (r.payments || {})[w] || 0; return `<span class="${v > 0 ? "plus" : v < 0 ? "minus" : ""}">${t("seat." + w)} ${v > 0 ? "+" : ""}${v}</span>`; }).join("")}</div>`
      // the reason is in the referee's view only: "和牌不成立", not "和牌不成立：" with nothing after it
      : `<div data-testid="win-invalid">${t("win.invalid", { r: "" }).replace(/[：:]\s*$/, "")}</div>`);
}
function sessionLeft() {
  // seconds left on the running session clock (the referee's pauses added back), null without one
  const sess = state && state.session;
  if (!sess || sess.ended_at) return null;
  return sess.started_at + sess.minutes * 60 + (sess.paused_s || 0) - (sess.paused_since || serverNow());
}
function renderNextNotice() {
  // Between hands: the session is over (start the next round), or the players change chairs (换位)
  const box = $("next-notice");
  const next = state.next_hand;
  let text = "";
  const left = sessionLeft();
  const busted = next && Object.entries(next.busted || {}).map(([p, held]) => `${state.players[p] || t("pos", { n: p })}${lang === "zh" ? `（${held}点）` : ` (${held})`}`);
  if (next && next.over) text = next.ended_by_referee ? t("next.ended") : busted.length ? t("next.bust", { who: busted.join(lang === "zh" ? "、" : ", ") })
    : next.hands_per_session ? t("next.over", { n: next.hands_per_session }) : t("next.overAny");
  else if (left !== null && left <= 0) text = state.hand && !state.hand.ended ? t("next.timeUp") : t("next.timeUpAfter");
  else if (next && next.swap && next.swap.length) {
    const moves = next.swap.map(([chair, , player]) => t("next.move", { who: state.players[String(player)] || t("pos", { n: player }), chair }));
    text = t("next.swap", { moves: moves.join(lang === "zh" ? "，" : ", ") });
  }
  box.textContent = text;
  box.hidden = !text;
}
function fillWinForm(h) {
  const f = $("win-form");
  f.dataset.filled = "1";
  f.seat_wind.value = h.seat_wind || h.winner || "E";
  f.win.value = h.win || "discard";
  f.discarder.value = h.discarder || "S";
  f.concealed.value = (h.concealed || []).join(" ");
  f.win_tile.value = h.win_tile || "";
  f.flowers.value = (h.flowers || []).join(" ");
  f.last_tile.checked = !!h.last_tile;
  f.melds.value = meldsText(h.melds || []);
  syncWinForm();
}
function meldsText(melds) {
  // as the referee would type them, in the page's language (parseMelds reads both)
  if (lang !== "zh") return melds.map((m) => `${m.type}${m.concealed ? "!" : ""} ${m.tiles.join(" ")}${m.from ? " " + m.from : ""}`).join("; ");
  const word = (m) => (m.type === "chi" ? "吃" : m.type === "pung" ? "碰" : m.concealed ? "暗杠" : "明杠");
  return melds.map((m) => `${word(m)} ${m.tiles.join(" ")}${m.from ? " " + t("seat." + m.from) : ""}`).join("；");
}
function syncWinForm() {
  // 点炮方 only for a win on a discard (or a robbed kong); until the referee picks one, the seat
  // whose discard lies last (the winner's own seat never is)
  const f = $("win-form");
  // 本场 left empty is the session's count (riichi), shown greyed in the field; a number typed is taken instead
  f.honba.placeholder = state && state.hand && state.hand.honba ? String(state.hand.honba) : "";
  // a new hand, or a win confirmed (血战, 一炮多响): what the referee typed or a read filled was for the last
  // winner. Before, under 血战 the next winner's form kept the first one's tiles, 副露 and 点炮方.
  // So is a seat put out of winning (判诈和, 停和): 国标 plays on after a 诈和, and the form kept the false
  // winner's read, its 花牌 and 点炮方 going into the next winner's read.
  const stopped = Object.keys((state && state.stopped) || {}).sort().join("");
  const hand = state && state.hand ? `${state.round || ""}/${state.hand.hand_no}/${(state.wins || []).length}/${stopped}` : "";
  if (f.dataset.hand !== hand) {
    f.dataset.hand = hand;
    if (f.dataset.filled) { f.concealed.value = ""; f.win_tile.value = ""; f.win.value = "discard"; }  // the read's: shown above
    delete f.dataset.filled;
    const handNo = hand.split("/", 2).join("/");
    clearWinOptions(f, f.dataset.handNo !== handNo);
    f.dataset.handNo = handNo;
    for (const el of f.elements) delete el.dataset.touched;
  }
  // 血战: a seat that has won is out: it wins no more, and discards no more to be won on. A seat put out of winning
  // (判诈和, 停和) wins no more either, but still discards: before, 和牌方 stayed on the false winner
  const out = (state && state.hand && state.hand.out) || [];
  const noWin = [...out, ...Object.keys((state && state.stopped) || {})];
  for (const o of f.seat_wind.options) o.disabled = noWin.includes(o.value);
  for (const o of f.discarder.options) o.disabled = out.includes(o.value);
  if (!f.dataset.filled && noWin.includes(f.seat_wind.value)) {  // a read of it (shown invalid) keeps it
    const turn = state.hand.turn && state.hand.turn.seat;
    f.seat_wind.value = turn && !noWin.includes(turn) ? turn : SEATS.find((w) => !noWin.includes(w)) || f.seat_wind.value;
  }
  // 抢杠和: a 加杠 the last play is another seat's to rob, and that konger is 点炮方. Before, 方式 stayed 点和
  // and 点炮方 on the last discard's seat: a read sent so was refused (a set has 4 of 5p).
  const konger = state && state.hand && robbable(state.hand);
  // and only while the 加杠 is the last play: a discard after it (the konger's) is won on as 点和
  if (!f.dataset.filled && !f.win.dataset.touched) {
    const rob = !!konger && konger !== f.seat_wind.value;
    if (rob) { f.win.value = "rob_kong"; f.win.dataset.auto = "1"; }
    else if (f.win.dataset.auto) { f.win.value = "discard"; delete f.win.dataset.auto; }
  }
  const onDiscard = f.win.value === "discard" || f.win.value === "rob_kong";
  f.discarder.disabled = !onDiscard;
  const last = state && state.hand && (f.win.value === "rob_kong" ? konger : lastDiscarder(state.hand, true));
  if (onDiscard && !f.dataset.filled && !f.discarder.dataset.touched && last && last !== f.seat_wind.value) f.discarder.value = last;
  fromRecord(f);
}
/** The 计分选项 the referee typed for the last winner (立直, 一发, 天和, 裁判计分's points) go with it; at a new
 *  hand (`newHand`) those of the hand go too (宝牌/里宝牌指示牌, 本场 typed, 马牌): before, the next hand's read
 *  took the last hand's indicators and 本场 as typed, and scored a 宝牌 its wall had not turned up, and its
 *  horses were scored again (a 自摸 of 4 each read as 8 and 24). The 鬼牌 kind stays: a table playing 白板 as
 *  鬼牌 keeps it all session (one that turns up a new 鬼牌 each hand, 翻鬼, types it again). */
function clearWinOptions(f, newHand) {
  for (const name of ["riichi", "ippatsu", "first_turn"]) f[name].checked = false;
  for (const name of ["points", "special"]) f[name].value = "";
  if (!newHand) return;
  for (const name of ["dora", "ura_dora", "honba", "horses"]) f[name].value = "";
  f.horse_origin.checked = false;
}
function robbable(hand) {
  // the seat whose 加杠 is the hand's last play (the tile it added may be robbed), or null
  for (const w of SEATS) {
    if (((hand.melds || {})[w] || []).some((m) => m.added_seq && m.added_seq === hand.play_seq)) return w;
  }
  return null;
}
function fromRecord(f) {
  // what the play record already holds for the winner: the flowers laid, the melds, 海底 (no live tile
  // left); the referee typed them again by hand (the camera's read fills them). A field the referee
  // has typed in is left alone.
  const hand = state && state.hand;
  if (hand) {
    f.flowers.closest("label").hidden = hand.flowers_in_set === false;  // 四川's 108 tiles: no 花牌 to read
    // the examples keyed as this ruleset's hands can be: no honour (555z) where its set has none, no 吃 where it has none
    const suits = (x) => (hand.honours_in_set === false ? x.replace(/(\d)\1*z/g, (m) => m.replace(/z$/, "p")) : x);
    f.concealed.placeholder = suits("123m 456p 789s 11z 5s");
    f.melds.placeholder = suits(t("win.meldsHint").split(/；|; /).filter((p) => hand.chows !== false || !/^(吃|chow)/.test(p))
      .join(lang === "zh" ? "；" : "; "));
  }
  // 立直 and 一发 the record gives the seat picked (`riichi_record`): ticked and fixed, as the read will count them
  const given = ((state && state.riichi_record) || {})[f.seat_wind.value] || {};
  for (const name of ["riichi", "ippatsu"]) {
    const box = f[name];
    if (given[name]) { box.checked = true; box.disabled = true; box.dataset.record = "1"; box.title = t("byRecord"); }
    else if (box.dataset.record) { box.checked = false; box.disabled = false; delete box.dataset.record; box.title = ""; }
  }
  if (f.dataset.filled || !hand) return;
  const seat = f.seat_wind.value;
  if (!f.flowers.dataset.touched) f.flowers.value = ((hand.flowers || {})[seat] || []).join(" ");
  if (!f.melds.dataset.touched) f.melds.value = meldsText(((hand.melds || {})[seat] || []).map((m) => ({ ...m, from: m.from || null })));
  if (!f.last_tile.dataset.touched) f.last_tile.checked = hand.tiles_left === 0 && f.win.value !== "rob_kong" && f.win.value !== "kong_replacement";
}
function parseTiles(text) {
  // "123m 45p 5z" or "1m 2m 3m": the glossary's codes, digits before their suit letter
  const out = [];
  for (const [, digits, suit] of String(text || "").matchAll(/(\d+)\s*([mpszf])/g)) {
    if (digits === "10") { out.push("10" + suit); continue; }
    for (const d of digits) out.push(d + suit);
  }
  return out;
}
// the referee types melds in either language: "碰 555z 南；吃 123m 北；暗杠 7777s" or "pung 555z S; chow 123m N; kong! 7777s"
const MELD_WORDS = { chi: "chi", chow: "chi", pung: "pung", kong: "kong", 吃: "chi", 碰: "pung", 杠: "kong", 明杠: "kong", 暗杠: "kong!" };
const WIND_WORDS = { E: "E", S: "S", W: "W", N: "N", 东: "E", 南: "S", 西: "W", 北: "N" };
function parseMelds(text) {
  return String(text || "").split(/[;；]/).map((s) => s.trim()).filter(Boolean).map((part) => {
    // a wind letter needs a space before it (555s is three 5s, not 55 from S); 南 or 南家 does not
    const m = /^(chi|chow|pung|kong|吃|碰|明杠|暗杠|杠)(!?)\s*(.*?)(?:\s+([ESWN])|\s*([东南西北])家?)?$/.exec(part);
    if (!m) throw new Error(part);
    const word = MELD_WORDS[m[1]];
    const tiles = parseTiles(m[3]);
    if (!tiles.length) throw new Error(part);
    const from = WIND_WORDS[m[4] || m[5] || ""] || null;
    return { type: word.replace("!", ""), tiles, concealed: m[2] === "!" || word.endsWith("!"), ...(from ? { from } : {}) };
  });
}

// ---- penalties --------------------------------------------------------------------------------
let catalogue = null;
function amountText(p) {
  const parts = [];
  if (p.from_scoring) parts.push(t("pen.scored"));
  else if (p.min != null) parts.push(t("pen.choose", { min: p.min, max: p.max, step: p.step }));
  else if (p.amounts && p.amounts.length) parts.push(t("pen.escal", { list: p.amounts.join(t("list")) }));
  else if (p.amount && p.pays === "tsumo") parts.push(t("pen.tsumo", { n: p.amount, h: p.amount / 2, q: p.amount / 4 }));
  else if (p.amount) parts.push(t(p.pays === "each" ? "pen.each" : p.pays === "victim" ? "pen.victim_" : p.pays === "standing" ? "pen.standing" : "pen.dead", { n: p.amount }));
  else if (!p.stops_win) parts.push(t("pen.warning"));
  if (p.pays === "each" && p.min != null) parts.push(t("pen.each", { n: "…" }));
  if (p.stops_win) parts.push(t("pen.stops"));
  return parts.join(" · ");
}
// the Win page's 本规则番种表: every fan of the ruleset with its value and rule, and the payment rules
// (封顶, 自摸, 诈和 …), for a referee ruling on a hand without the rule book at hand
let fanBook = null;
async function loadFanBook() {
  const res = await fetch("/api/fans");
  if (res.ok) fanBook = await res.json();
  renderFanBook();
}
function renderFanBook() {
  if (!fanBook) return;
  $("fan-book-source").textContent = lang === "en" ? fanBook.name_en : fanBook.name_zh;
  $("fan-book").innerHTML = fanBook.rows.map((r) => `<tr><td>${esc(r.name)}</td><td>${r.value}</td><td class="rule">${esc(r.rule)}</td></tr>`).join("");
  const own = fanBook.rows.find((r) => /^抢杠[和胡]$/.test(r.name));
  robKongWord = own ? own.name : null;
  robKongLabel();
}
async function loadCatalogue() {
  const res = await fetch("/api/penalties");
  catalogue = await res.json();
  renderCatalogue();
}
function catalogueEntry(code) {
  return ((catalogue && catalogue.items) || []).find((p) => p.code === code) || null;
}
function renderFalseWinInputs() {
  // the Win page's 判诈和: the 番 declared where the scorer pays it (四川), the points where the
  // referee chooses them (竞技), nothing where the rule fixes them (国标); no button without an entry
  const entry = catalogueEntry("false_win");
  const input = $("false-amount");
  $("win-false").hidden = !entry;
  input.hidden = !entry || (!entry.from_scoring && entry.min == null);
  input.placeholder = entry && entry.from_scoring ? t("pen.fan") : t("pen.points");
  input.setAttribute("aria-label", t("win.false") + " " + input.placeholder);  // 判诈和 番: its name read aloud
  input.step = entry && !entry.from_scoring ? entry.step || 1 : 1;
  const sel = $("penalty-code"), amount = $("penalty-form").amount, victim = $("penalty-form").victim;
  const chosen = catalogueEntry(sel.value);
  amount.placeholder = chosen && chosen.from_scoring ? t("pen.fan") : "";
  // 罚分 and 受损方 only where the entry takes them: a 受损方 left from the last ruling went into the record
  amount.disabled = !!chosen && chosen.min == null && !chosen.from_scoring;
  victim.disabled = !!chosen && chosen.pays !== "victim";
  if (amount.disabled) amount.value = "";
  if (victim.disabled) victim.value = "";
}
function renderCatalogue() {
  if (!catalogue) return;
  const sel = $("penalty-code");
  const keep = sel.value;
  sel.innerHTML = catalogue.items.map((p) => `<option value="${esc(p.code)}">${esc(lang === "en" ? p.name_en : p.name_zh)}${lang === "en" ? ": " : "："}${esc(amountText(p))}</option>`).join("");
  if (keep) sel.value = keep;
  $("catalogue").innerHTML = catalogue.items.map((p) => `<tr data-code="${esc(p.code)}"><td>${esc(lang === "en" ? p.name_en : p.name_zh)}</td><td>${esc(amountText(p))}</td><td class="rule">${esc(p.rule_zh)}</td></tr>`).join("");
  $("catalogue-source").textContent = catalogue.source ? t("pen.source", { s: catalogue.source }) : "";
  renderFalseWinInputs();
}
function actName(type, fallback) {
  // a referee action's name in the page's language; `fallback` for one the page has no name for
  const named = t("act." + type.replace("referee.", ""));
  return named.startsWith("act.") ? fallback : named;
}
function renderActions() {
  const rows = (state.actions || []).slice().reverse().map((a) => {
    const when = new Date(a.at * 1000).toLocaleTimeString(lang === "zh" ? "zh-CN" : "en-GB", { hour12: false });
    let what = actName(a.type, a.type);
    if (a.type === "referee.camera_confirm" && a.kind) {
      what += ` #${a.camera_seq || ""} · ${tileName(a.kind)}${a.corrected ? t("act.corrected", { was: tileName(a.read_as) }) : ""}`;
    }
    if (a.type === "referee.camera_dismiss" && a.camera_seq) {  // 判为不是牌 #n（原读 一万）: no kind named
      what += ` #${a.camera_seq}${a.read_as ? t("act.corrected", { was: tileName(a.read_as) }) : ""}`;
    }
    if (a.type === "referee.penalty" && a.name_zh) what = `${t("seat." + a.seat)} · ${lang === "en" ? a.name_en : a.name_zh}${a.nth > 1 ? ` (#${a.nth})` : ""}${a.note ? " · " + a.note : ""}`;
    if (a.type === "referee.win_read" && a.seat) what += ` · ${t("seat." + a.seat)}`;
    if (a.type === "referee.undo") what += ` #${a.target || ""} · ${a.reason || ""}`;
    if (a.type === "referee.substitute" && a.name) {  // 换人 · 2号位 乙 → 壬（第3盘起）· why
      what += ` · ${t("pos", { n: a.position })} ${(a.replaces || {}).name || ""} → ${a.name}${
        t("sheet.satFrom", { n: "", a: a.from_hand })} · ${a.reason || ""}`;
    }
    if (a.type === "referee.play_correct" && a.target) {  // 更正 #n · as recorded → as corrected · why
      what += ` #${a.target} · ${a.was || ""}${a.now ? " → " + a.now : " · " + t("act.voided")} · ${a.reason || ""}`;
    } else if (a.type === "referee.play_correct" && a.insert) {  // 更正 · 补录 #anchor 前 · the play · why
      what += ` · ${t("act.inserted")} #${a.insert.anchor} ${t(a.insert.after ? "act.after" : "act.before")} · ${a.now || ""} · ${a.reason || ""}`;
    }
    if (a.error) what += ` ✗ ${a.error}`;
    const pts = Object.entries(a.deltas || {}).map(([p, v]) => `${esc(state.players[p] || p)} ${v > 0 ? "+" : ""}${v}`).join(", ");
    return `<tr data-seq="${a.seq}" class="${a.undone ? "undone" : ""}"><td>${a.seq}</td><td>${when}</td><td>${esc(roleName(a.by) + (a.by_name ? " " + a.by_name : ""))}</td>
      <td>${esc(what)}${a.undone ? `<div class="undo-note">${esc(t("pen.undone", { r: a.undo.reason }))}</div>` : ""}</td><td>${esc(pts)}</td></tr>`;
  });
  $("actions").innerHTML = rows.join("") || `<tr><td colspan="5" class="none">${esc(t("pen.noActions"))}</td></tr>`;
  const last = state.last_action;
  $("undo-target").textContent = last  // named in the page's language
    ? t("pen.last", { n: last.seq, name: actName(last.type, last.name_zh) }) : t("pen.nothing");
}

// ---- correcting a play in the record (更正牌谱) ---------------------------------------------------
// The plays of the hand in play, from the referee's record (牌谱); fetched again only when a play
// or a referee action has come since (not at every event of the hand).
let correctable = { key: null, lines: [] };
async function loadCorrectable() {
  const hand = state && state.hand;
  if (role !== "referee" || !hand) return;
  const lastPlay = (state.log || []).filter((l) => l.type.startsWith("play.")).map((l) => l.seq).pop() || 0;
  const key = `${hand.hand_no}:${state.round}:${lastPlay}:${state.actions_total}`;
  if (key === correctable.key) return;
  correctable.key = key;
  const res = await fetch(`/api/referee/hands/${hand.hand_no}/record`, { headers: { Authorization: "Bearer " + token() }, cache: "no-store" });
  if (!res.ok || correctable.key !== key) return;
  const rec = await res.json();
  correctable.lines = rec.lines.filter((l) => l.type.startsWith("play.") && l.type !== "play.deal_done" && !l.void && !l.undone);
  renderCorrectable();
}
function renderCorrectable() {
  const sel = $("correct-target");
  const keep = sel.value;
  sel.innerHTML = correctable.lines.slice().reverse()
    .map((l) => `<option value="${l.seq}" data-type="${esc(l.type)}">#${l.seq} ${esc(said(l))}${
      l.inserted ? esc(t("fix.insertedMark")) : ""}</option>`).join("")
    || `<option value="">${esc(t("fix.none"))}</option>`;
  if (keep && correctable.lines.some((l) => String(l.seq) === keep)) sel.value = keep;
}
// a play to insert, by the form's kind: the body's `play` (as POST /api/play takes it), less what is asked below
const INSERT_KINDS = {
  discard: { type: "discard" }, flower: { type: "flower" }, chow: { type: "claim", kind: "chow" },
  pung: { type: "claim", kind: "pung" }, claim_kong: { type: "claim", kind: "kong" },
  concealed_kong: { type: "kong", concealed: true }, added_kong: { type: "kong", added: true },
};
function insertedPlay(f) {
  // the play never keyed, from the form: its seat, its tile or tiles, whose discard a claim took
  const play = { ...INSERT_KINDS[f.play.value] };
  if (!f.seat.value) return { problem: t("fix.needSeat") };
  play.seat = f.seat.value;
  const tiles = parseTiles(f.tiles.value);
  if (!tiles.length) return { problem: t("fix.needTiles") };
  if (play.type === "discard" || play.type === "flower") play.tile = tiles[0]; else play.tiles = tiles;
  if (play.type === "claim") {
    if (!f.from.value) return { problem: t("fix.needFrom") };
    play.from = f.from.value;
  }
  return { play };
}
function syncCorrectForm() {
  // the kind of play to insert only where one is inserted; 作废 only where a play is corrected
  const f = $("correct-form"), fixing = f.mode.value === "fix";
  f.play.closest("label").hidden = fixing;
  f.void.closest("label").hidden = !fixing;
  if (!fixing) f.void.checked = false;
}
$("correct-form").mode.addEventListener("change", syncCorrectForm);
function correctBody(f) {
  // what the referee puts right: the fields given (a discard's or flower's one tile, a meld's tiles), or void;
  // or a play never keyed, inserted before or after the play chosen, or in its place (a play of another kind)
  const opt = f.target.selectedOptions[0];
  if (!opt || !opt.value) return { problem: t("fix.none") };
  if (!f.reason.value.trim()) return { problem: t("fix.needReason") };
  if (f.mode.value !== "fix") {
    const made = insertedPlay(f);
    if (made.problem) return made;
    const where = { before: "insert_before", after: "insert_after", replace: "target" }[f.mode.value];
    return { [where]: Number(opt.value), play: made.play, reason: f.reason.value };
  }
  const body = { target: Number(opt.value), reason: f.reason.value };
  if (f.void.checked) return { ...body, void: true };
  const tiles = parseTiles(f.tiles.value);
  if (tiles.length) {
    if (["play.discard", "play.flower"].includes(opt.dataset.type)) body.tile = tiles[0]; else body.tiles = tiles;
  }
  if (f.seat.value) body.seat = f.seat.value;
  if (f.from.value) body.from = f.from.value;
  return Object.keys(body).length > 2 ? body : { problem: t("fix.needWhat") };
}
$("correct-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  const body = correctBody(f);
  if (body.problem) { $("action-msg").textContent = "✗ " + body.problem; $("action-msg").className = "msg bad"; return; }
  if (await act("/api/referee/play/correct", body)) {
    f.tiles.value = ""; f.seat.value = ""; f.from.value = ""; f.void.checked = false; f.reason.value = "";
    f.mode.value = "fix"; syncCorrectForm();
  }
}));

// ---- score sheet ------------------------------------------------------------------------------
// The round shown: null follows the round being played (live); a closed round is fetched once.
let sheetRound = null;
let closedSheet = null;
const sheetDrawn = { sheet: null, lang: null, roundQ: null, unit: null }; // the sheet the table shows

function renderRounds() {
  const rounds = state.rounds || [];
  const sel = $("sheet-round");
  const want = String(sheetRound ?? state.round);
  sel.innerHTML = rounds.map((r) => `<option value="${r.round}">${esc(t("sheet.roundOpt", { n: r.round }))} · ${
    esc(r.final ? t("sheet.closed") : t("sheet.playing"))}</option>`).join("");
  sel.value = want;
  const q = sheetRound ? `round=${sheetRound}` : "";
  $("csv").href = "/api/scoresheet.csv" + (q ? "?" + q : "");
  $("records").href = "/api/records?format=text" + (q ? "&" + q : "");
  const form = $("round-form");
  if (document.activeElement === null || !form.contains(document.activeElement)) {
    const empty = !(state.scoresheet && state.scoresheet.rows.length);
    form.round.value = empty ? state.round : state.round + 1;  // an empty round is corrected, else the next
  }
}

function seatingOffer() {
  // the organiser's seating for this table (tournament hub), while it is still to be keyed
  const o = state.seating_offer;
  if (!o) return null;
  const empty = !(state.scoresheet && state.scoresheet.rows.length);
  const same = ["1", "2", "3", "4"].every((p) => (state.players || {})[p] === o.players[p]);
  return o.round > state.round || (o.round === state.round && empty && !same) ? o : null;
}
function renderSeatingOffer() {
  const o = seatingOffer();
  $("seating-offer").hidden = !o;
  if (!o) return;
  $("seating-text").textContent = t("sheet.offer", { n: o.round, table: o.table_name,
    names: ["1", "2", "3", "4"].map((p) => `${t("pos", { n: p })} ${o.players[p]}`).join(lang === "zh" ? "，" : ", ") });
}
function tableTp(v) {
  // 标准分 shared by a tie: 2.33, not 2.3333333333333335 (which also pushed the players off a phone's sheet)
  return typeof v === "number" ? String(Math.round(v * 100) / 100) : esc(v);
}
function resultName(result, abortive) {
  // a row's 结果 in the page's language (the row's result_zh is Chinese only); a row of penalties alone: 罚分;
  // an abortive draw by its name (九种九牌流局)
  if (result === "abortive" && abortive) return t("abortive." + abortive);
  const name = t("sheet.res." + result);
  return name.startsWith("sheet.res.") ? t("sheet.res.penalty") : name;
}
// A confirmed win today's rules would score otherwise (a ruleset edited since): the sheet keeps what the
// referee confirmed; the referee sees what it would be now, for the head referee to decide (not printed)
function rescoredMark(r, w) {
  if (!w.rescored) return "";
  const now = w.rescored.valid ? t("sheet.rescored", { n: w.rescored.fan_total }) : t("sheet.rescoredVoid");
  return ` <small class="rescored referee-only" data-testid="rescored-${r.hand_no}" title="${esc(t("sheet.rescoredTip"))}">⚠ ${esc(now)}</small>`;
}
function renderSheet() {
  renderRounds();
  renderSeatingOffer();
  const sheet = sheetRound && sheetRound !== state.round ? closedSheet : state.scoresheet;
  if (!sheet) return;
  const roundQ = sheetRound && sheetRound !== state.round ? `&round=${sheetRound}` : "";
  const P = ["1", "2", "3", "4"];
  // a chair a substitute (替补) sat part of the round: everyone who sat it, and the hands each sat
  const sitters = Object.fromEntries(Object.entries(sheet.sitters || {}).filter(([, s]) => s.length > 1));
  const satText = (s) => s.to_hand == null ? t("sheet.satFrom", { n: s.name, a: s.from_hand })
    : t("sheet.satSpan", { n: s.name, a: s.from_hand, b: s.to_hand });
  const sat = (r) => r.sat || sheet.players;
  // drawn again only when it changed: every event of a hand (plays, dice) brings the sheet as it was
  // (`kept`), and rebuilding each row of the round for each was the page's slowest step on a tablet
  const drawn = sheet === sheetDrawn.sheet && lang === sheetDrawn.lang && roundQ === sheetDrawn.roundQ && unitWord() === sheetDrawn.unit;
  if (!drawn) {
    $("sheet-head").innerHTML = `<tr><th>${t("sheet.hand")}</th><th>${t("sheet.round")}</th><th>${t("sheet.dealer")}</th><th>${t("sheet.result")}</th><th>${t("sheet.fan")}</th>${
      P.map((p) => `<th>${sitters[p] ? `<span data-testid="sitters-${p}">${sitters[p].map((s) => esc(satText(s))).join("<br>")}</span>`
        : esc(sheet.players[p])}</th>`).join("")}</tr>`;
    $("sheet-body").innerHTML = sheet.rows.map((r) => `<tr data-hand="${r.hand_no}"><td>${r.hand_no
      ? `<a href="/api/hands/${r.hand_no}/record?format=text${roundQ}" target="_blank" rel="noopener" data-testid="record-${r.hand_no}" title="${t("sheet.record")}">${r.hand_no}</a>`
        + ` <a class="replay-link" href="/replay?hand=${r.hand_no}${roundQ}" data-testid="replay-${r.hand_no}" title="${t("rp.replay")}">▶</a>` : "—"}</td><td>${r.prevalent_wind ? t("seat." + r.prevalent_wind) : ""}</td>
      <td>${r.dealer_position ? esc(sat(r)[String(r.dealer || r.dealer_position)]) : ""}</td>
      <td>${esc(resultName(r.result, r.abortive))}${(r.wins || []).map((w) => " · " + esc(sat(r)[w.position] || "")).join("")}</td><td>${(r.wins || []).map((w) => (w.fan_total ?? "") + rescoredMark(r, w)).join(" / ")}</td>${
      P.map((p) => `<td><span class="pts ${r.points[p] > 0 ? "plus" : r.points[p] < 0 ? "minus" : ""}">${r.points[p] > 0 ? "+" : ""}${r.points[p]}</span>${
        r.penalty_points[p] ? `<small> (${t("sheet.pen")} ${r.penalty_points[p] > 0 ? "+" : ""}${r.penalty_points[p]})</small>` : ""}${
        r.kong_points && r.kong_points[p] ? `<small> (${t("sheet.kong")} ${r.kong_points[p] > 0 ? "+" : ""}${r.kong_points[p]})</small>` : ""}${
        r.chase_points && r.chase_points[p] ? `<small> (${t("sheet.chase")} ${r.chase_points[p] > 0 ? "+" : ""}${r.chase_points[p]})</small>` : ""}${
        r.follow_points && r.follow_points[p] ? `<small> (${t("sheet.follow")} ${r.follow_points[p] > 0 ? "+" : ""}${r.follow_points[p]})</small>` : ""}${
        r.riichi_points && r.riichi_points[p] ? `<small> (${t("key.riichi")} ${r.riichi_points[p] > 0 ? "+" : ""}${r.riichi_points[p]})</small>` : ""}${
        r.exhaustive_points && r.exhaustive_points[p] ? `<small> (${t("sheet.draw")} ${r.exhaustive_points[p] > 0 ? "+" : ""}${r.exhaustive_points[p]})</small>` : ""}${
        r.held_points && r.held_points[p] ? `<small data-testid="hung-${r.hand_no}-${p}"> (${t("sheet.hung")} ${r.held_points[p] > 0 ? "+" : ""}${r.held_points[p]})</small>` : ""}<div class="running">${r.running[p]}</div>${
        r.stacks ? `<div class="stack">${t("sheet.stack")} ${r.stacks[p]}</div>` : ""}${
        sitters[p] ? `<div class="sat" data-testid="sat-${r.hand_no}-${p}">${esc(sat(r)[p])}</div>` : ""}</td>`).join("")}</tr>`).join("");
    $("sheet-foot").innerHTML = `<tr><th colspan="5">${t("sheet.total")}</th>${P.map((p) => `<th data-testid="total-${p}">${sheet.totals[p]}</th>`).join("")}</tr>
      ${sheet.start_points != null ? `<tr><th colspan="5">${t("sheet.held", { start: sheet.start_points })}</th>${P.map((p) => `<th data-testid="held-${p}">${heldPoints(sheet, p)}</th>`).join("")}</tr>` : ""}
      ${sheet.standing_penalties ? `<tr><th colspan="5">${t("sheet.standing")}</th>${P.map((p) => `<th data-testid="standing-${p}">${sheet.standing_penalties[p] || ""}</th>`).join("")}</tr>` : ""}
      <tr><th colspan="5">${t("sheet.tpState", { s: sheet.final ? t("sheet.final") : t("sheet.prov") })}</th>${P.map((p) => `<th data-testid="tp-${p}">${tableTp(sheet.table_points[p])}</th>`).join("")}</tr>`
      + (sheet.riichi_pot ? `<tr><th colspan="9" data-testid="riichi-pot">${t("sheet.pot", { n: sheet.riichi_pot })}</th></tr>` : "");
    Object.assign(sheetDrawn, { sheet, lang, roundQ, unit: unitWord() });
  }
  // the paper sheet the players and the referee sign at the end of the round (比赛成绩记录表)
  $("signatures").innerHTML = `<p>${esc(t("sheet.printed", { table: state.table_name || "", round: t("sheet.roundOpt", { n: sheet.round || state.round }),
    at: new Date().toLocaleString(lang === "zh" ? "zh-CN" : "en-GB") }))}</p><table><tr>${P.map((p) => `<td>${esc(sitters[p] ? sitters[p].map((s) => s.name).join(t("list")) : sheet.players[p])}<br>${t("sheet.sign")}${t("colon")}<span class="line"></span></td>`).join("")}</tr>
    <tr><td colspan="4">${t("sheet.refSign")}${t("colon")}<span class="line"></span></td></tr></table>`;
  // players' columns past the screen's edge (long names on a phone): a shadow says the sheet scrolls
  const box = $("sheet-head").closest(".scroll");
  box.classList.toggle("more", box.scrollWidth > box.clientWidth + 1);
}

// ---- replay (牌谱回放) ----------------------------------------------------------------------------
const replay = { records: [], rec: null, step: 0, timer: null };
async function loadReplay() {
  // a round's hand records (public), the hand from ?hand=N (default the latest), ?step=K
  const round = params.get("round");
  const res = await fetch("/api/records" + (round ? "?round=" + encodeURIComponent(round) : ""));
  replay.records = res.ok ? await res.json() : [];
  const sel = $("replay-hand");
  sel.innerHTML = replay.records.map((r) => `<option value="${r.hand_no}" data-hand="${r.hand_no}"></option>`).join("");
  nameReplayHands();
  const last = replay.records.length ? replay.records[replay.records.length - 1].hand_no : null;
  if (params.get("hand") || last) sel.value = params.get("hand") || String(last);
  pickReplay(Number(params.get("step")) || 0);
}
function nameReplayHands() {  // 第 1 盘 / Hand 1, again at a change of language (the English page kept 第 1 盘)
  document.querySelectorAll("#replay-hand option").forEach((o) => { o.textContent = t("hand", { n: o.dataset.hand }); });
}
function pickReplay(step) {
  replay.rec = replay.records.find((r) => String(r.hand_no) === $("replay-hand").value) || null;
  const n = replay.rec ? replay.rec.lines.length : 0;
  $("replay-step").max = String(n);
  replay.step = Math.max(0, Math.min(step, n));
  renderReplay();
}
function boardAt(rec, k) {
  // the table after the record's first k lines: discards (claimed ones dimmed), melds, flowers, 立直, 定缺
  const b = { discards: {}, melds: {}, flowers: {}, riichi: {}, missing: {} };
  SEATS.forEach((w) => { b.discards[w] = []; b.melds[w] = []; b.flowers[w] = []; });
  for (const line of rec.lines.slice(0, k)) {
    const p = line.play;
    if (!p || line.undone || line.refused) continue;
    if (line.type === "play.discard") b.discards[p.seat].push({ tile: p.tile });
    else if (line.type === "play.flower") b.flowers[p.seat].push(p.tile);
    else if (line.type === "play.riichi") b.riichi[p.seat] = true;
    else if (line.type === "play.missing") b.missing[p.seat] = p.suit;
    else if (line.type === "play.claim") {
      const pool = b.discards[p.from] || [];
      if (pool.length) pool[pool.length - 1].claimed = true;
      b.melds[p.seat].push(p.tiles || []);
    } else if (line.type === "play.kong") {
      const tiles = p.tiles || [];
      const pung = p.added ? b.melds[p.seat].find((m) => m.length === 3 && m[0] === tiles[0]) : null;
      if (pung) pung.splice(0, 3, ...tiles); else b.melds[p.seat].push(tiles);
    }
  }
  return b;
}
function renderReplay() {
  const rec = replay.rec;
  $("replay-step").value = String(replay.step);
  if (!rec) { $("replay-line").textContent = t("rp.none"); $("replay-seats").innerHTML = ""; return; }
  const n = rec.lines.length, k = replay.step;
  $("replay-line").textContent = k ? t("rp.step", { k, n, text: said(rec.lines[k - 1]) }) : t("rp.start");
  const b = boardAt(rec, k);
  $("replay-seats").innerHTML = SEATS.map((w) => {
    const who = (rec.seats || {})[w] || {};
    return `<div class="seat" data-seat="${w}"><div class="seat-head"><span class="wind">${t("seat." + w)}</span>
      <span class="name">${esc(who.player || "")}</span>${w === "E" ? `<span class="dealer">${t("dealer")}</span>` : ""}
      ${b.riichi[w] ? `<span class="missing">${t("key.riichi")}</span>` : ""}${b.missing[w] ? `<span class="missing">${t("missingBadge", { suit: t("suit." + b.missing[w]) })}</span>` : ""}</div>
      <div class="melds">${b.melds[w].map((m) => `<span class="meld">${m.map((x) => tileHtml(x)).join("")}</span>`).join("")}${b.flowers[w].map((x) => tileHtml(x, "flower")).join("")}</div>
      <div class="discards" data-testid="replay-discards-${w}">${b.discards[w].map((d) => tileHtml(d.tile, d.claimed ? "claimed" : "")).join("")}</div></div>`;
  }).join("");
}
function replayTo(step) {
  replay.step = Math.max(0, Math.min(step, replay.rec ? replay.rec.lines.length : 0));
  renderReplay();
}
$("replay-hand").addEventListener("change", () => pickReplay(0));
$("replay-step").addEventListener("input", (e) => replayTo(Number(e.target.value)));
$("replay-first").addEventListener("click", () => replayTo(0));
$("replay-prev").addEventListener("click", () => replayTo(replay.step - 1));
$("replay-next").addEventListener("click", () => replayTo(replay.step + 1));
$("replay-last").addEventListener("click", () => replayTo(Infinity));
$("replay-play").addEventListener("click", () => {
  if (replay.timer) { clearInterval(replay.timer); replay.timer = null; $("replay-play").textContent = t("rp.play"); return; }
  $("replay-play").textContent = t("rp.pause");
  replay.timer = setInterval(() => {
    if (!replay.rec || replay.step >= replay.rec.lines.length) { $("replay-play").click(); return; }
    replayTo(replay.step + 1);
  }, 600);
});
if (page === "replay") loadReplay();

// ---- appeals (申诉) ------------------------------------------------------------------------------
// The appeals as last drawn. A live update (a camera's status each second, a discard) drew them again: the
// reasons being typed were kept, but the field was a new one and the typing lost its focus (the next keys went
// nowhere). The list is drawn again only when it changed, and the field being typed in keeps the focus then.
let appealsDrawn = "";
function renderAppeals() {
  // every appeal with its decision; the referee records the committee's decision on a waiting one
  const list = state.appeals || [];
  const referee = role === "referee";
  const html = list.length ? list.map((a) => {
    // an earlier round's appeal (waiting, or decided this round) names its round and the player it was keyed for
    const earlier = a.round != null && a.round !== state.round;
    const who = (earlier && a.player) || state.players[String(a.position)] || t("pos", { n: a.position });
    const ruled = lang === "en" && (state.actions || []).find((x) => x.seq === a.target);  // its name in English
    const what = ruled ? ruled.name_en || actName(ruled.type, a.target_what || "") : a.target_what || "";
    const about = a.target ? " · " + esc(t("ap.about", { n: a.target, what })) : "";
    const head = (earlier ? esc(t("sheet.roundOpt", { n: a.round })) + " · " : "")
      + esc(t("ap.item", { seq: a.seq, who, text: a.text })) + about;
    if (a.ruling) {
      return `<li data-appeal="${a.seq}">${head}<br><strong class="${a.ruling.upheld ? "plus" : ""}">${esc(t(a.ruling.upheld ? "ap.upheld" : "ap.dismissed"))}</strong>：${esc(a.ruling.note)}</li>`;
    }
    const form = referee ? `<span class="appeal-ruling"><input data-note="${a.seq}" maxlength="500" placeholder="${esc(t("ap.note"))}"
      aria-label="${esc(t("ap.note"))}">
      <button type="button" data-uphold="${a.seq}">${esc(t("ap.uphold"))}</button> <button type="button" data-dismiss="${a.seq}">${esc(t("ap.dismiss"))}</button></span>` : "";
    return `<li data-appeal="${a.seq}">${head}<br><em>${esc(t("ap.waiting"))}</em> ${form}</li>`;
  }).join("") : `<li class="none">${esc(t("ap.none"))}</li>`;
  if (html === appealsDrawn) return;
  appealsDrawn = html;
  const typed = {};  // a decision's reasons being typed survive the live updates
  document.querySelectorAll("[data-note]").forEach((i) => { typed[i.dataset.note] = i.value; });
  // the control focused in the list (a reason's field, 支持 or 驳回) keeps the focus: the buttons lost it to the page's
  // body (the next Tab started at the top) when another appeal was keyed or decided meanwhile; one whose appeal
  // was decided (its buttons gone) leaves the focus on that appeal's line, which now says the decision
  const active = $("appeals").contains(document.activeElement) ? document.activeElement : null;
  const mark = active && ["note", "uphold", "dismiss", "appeal"].find((k) => active.dataset[k] !== undefined);
  const focused = mark ? { mark, seq: active.dataset[mark], from: active.selectionStart, to: active.selectionEnd } : null;
  $("appeals").innerHTML = html;
  document.querySelectorAll("[data-note]").forEach((i) => { i.value = typed[i.dataset.note] || ""; });
  if (focused) {
    const again = document.querySelector(`#appeals [data-${focused.mark}="${focused.seq}"]`);
    const line = document.querySelector(`#appeals [data-appeal="${focused.seq}"]`);
    if (again) {
      if (again === line) line.tabIndex = -1;
      again.focus();
      if (focused.mark === "note") again.setSelectionRange(focused.from, focused.to);
    } else {  // its line (the decision now), else the list (its round closed meanwhile): never the page's top
      const to = line || $("appeals");
      to.tabIndex = -1;
      to.focus();
    }
  }
  document.querySelectorAll("[data-uphold], [data-dismiss]").forEach((b) => b.addEventListener("click", () => {
    const seq = Number(b.dataset.uphold || b.dataset.dismiss);
    const note = document.querySelector(`[data-note="${seq}"]`).value;
    if (!note.trim()) {  // required: said in words, not as the API's "body.note: String should have …"
      $("action-msg").textContent = "✗ " + t("ap.needNote"); $("action-msg").className = "msg bad"; return;
    }
    act("/api/referee/appeal/ruling", { appeal: seq, upheld: !!b.dataset.uphold, note });
  }));
}

/** Why the link is down, in the page's language (the state's `reason_en`; a log from before it has the Chinese only). */
const linkReason = () => (lang === "zh" ? state.link.reason : state.link.reason_en || state.link.reason) || "";
function renderLink() {
  const link = $("link");
  if (!state) return;
  // the service itself gone (a crash, a restart, the venue's Wi-Fi): the table's last link state is stale
  const lost = document.body.dataset.connected === "0";
  const quiet = Math.round((steady() - heard) / 1000);  // since the service last said anything
  link.textContent = lost ? (silent ? t("serviceQuiet", { n: quiet }) : t("serviceLost"))
    : state.link.up ? t("linkUp") : t("linkDown") + (linkReason() ? t("colon") + linkReason() : "");
  link.className = "badge " + (state.link.up && !lost ? "up" : "down");
}

// ---- the whole page ---------------------------------------------------------------------------
let unitShown = null;  // the unit the static text and the penalty forms were written with
function render() {
  if (!state) return;
  if (unitWord() !== unitShown) {  // the ruleset's unit came with the state (or changed with the ruleset)
    unitShown = unitWord();
    renderStatic();
    if (catalogue) renderCatalogue();
  }
  $("table-name").textContent = state.table_name || "";
  $("ruleset").textContent = lang === "zh" ? (state.ruleset_name_zh || state.ruleset) : (state.ruleset_name_en || state.ruleset);
  renderLink();
  $("phase").textContent = lang === "zh" ? state.phase_zh : state.phase;
  // a table playing a tournament's second round (or later) says which round the hand is of
  const roundTag = (state.rounds || []).length > 1 ? t("sheet.roundOpt", { n: state.round }) + " · " : "";
  $("hand-no").textContent = state.hand ? roundTag + t("round", { w: t("seat." + state.hand.prevalent_wind) }) + " · " + t("hand", { n: state.hand.hand_no })
    + (state.hand.double ? " · " + t("double") : "")
    + (state.hand.honba ? " · " + t("honbaN", { n: state.hand.honba }) : "")  // 本场 (riichi)
    // 供托: the 立直棒 on the table, for the next winner; before, only the score sheet's foot said so
    + (state.scoresheet && state.scoresheet.riichi_pot ? " · " + t("potN", { n: state.scoresheet.riichi_pot }) : "") : "";
  if (page === "table" || page === "public") {
    renderWall(state.hand);
    renderDice(state.hand);
    renderSeats();
    const faults = $("faults");
    // a chattering button (按键抖动或卡住) is told here as a fault is, its reports counted (not a log line each)
    const notices = [...state.faults, ...(state.buttons || [])];
    faults.innerHTML = notices.length ? "" : `<li class="none">${t("noFaults")}</li>`;
    for (const f of notices) {
      const li = document.createElement("li");
      li.textContent = faultLine(f);
      faults.appendChild(li);
    }
    renderCameraPending();
    $("log").innerHTML = logLines.slice(-60).reverse().map((l) => `<li value="${l.seq}" data-seq="${l.seq}" class="src-${esc(l.source)}">${esc(said(l))}</li>`).join("");
  }
  if (page === "win") { renderWin(); renderWins(); }
  if (page === "table" || page === "public") { renderBanner(); renderNextNotice(); }
  if (page === "overlay") renderOverlay();
  if (page === "penalties") { renderActions(); loadCorrectable(); }
  if (page === "scoresheet") { renderSheet(); renderAppeals(); }
  if (page === "replay" && replay.rec) renderReplay();
  renderTimers();
  window.__dice = ((state.hand && state.hand.throws) || []).map((th) => th.dice);
  nameSeatSelects();
  announceFaults();
}

function faultLine(f) {
  // a fault the table gives no place for: no empty "卡牌（）" before what to do
  const where = lang === "zh" ? f.where_zh || f.where : f.where;
  const at = where ? (lang === "zh" ? `（${where}）` : ` (${where})`) : "";
  return lang === "zh" ? `${f.name_zh || f.code}${at}：${f.remedy_zh || ""}` : `${f.name_en || f.code}${at}: ${f.remedy_en || ""}`;
}

// ---- what a screen reader is told ------------------------------------------------------------
/** Said once each in this tab, on every page but the overlay: a table fault that came, a turn run out, the
 *  session's warnings and its end (#alarm: at once; #announce: when the reader is free). Kept in sessionStorage,
 *  so a page opened again says nothing new. The countdowns are not live regions: a reader would read each second. */
function saidBefore() {
  try { return JSON.parse(sessionStorage.getItem("said") || "{}"); } catch (e) { return {}; }
}
const spoken = { alarm: 0, announce: 0 };
function speak(text, urgent) {
  const id = urgent ? "alarm" : "announce";
  const el = $(id);
  // two things in the same moment (a fault and the clock's end) are both said, one after the other
  el.textContent = steady() - spoken[id] < 1500 && el.textContent ? el.textContent + (lang === "zh" ? "；" : "; ") + text : text;
  spoken[id] = steady();
}
function sayOnce(kind, keys, text, urgent) {
  // `keys`: what is true now (a fault, a level of the clock); said when one is new, and remembered as they are
  if (page === "overlay") return;
  const said = saidBefore();
  const before = said[kind] || [];
  const fresh = keys.some((k) => !before.includes(k));
  const now = kind === "clock" ? [...new Set([...before, ...keys])] : keys;  // a cleared fault come again is new
  if (JSON.stringify(now) !== JSON.stringify(before)) {  // (asked four times a second by the timers)
    said[kind] = now;
    sessionStorage.setItem("said", JSON.stringify(said));
  }
  const words = typeof text === "function" ? text() : text;
  if (fresh && words) speak(words, urgent);
}
function announceFaults() {
  // a chattering button's notice too, as the faults list shows it: shown and never said, a referee who does not
  // see the screen never heard of it; keyed by its button, so its climbing count is not read again
  const notices = [...state.faults, ...(state.buttons || [])];
  const keys = notices.map((f) => `${f.code}:${f.where || ""}`);
  const before = saidBefore().faults || [];
  const fresh = notices.filter((f, i) => !before.includes(keys[i]));
  sayOnce("faults", keys, fresh.length ? t("said.fault", { f: fresh.map(faultLine).join(lang === "zh" ? "；" : "; ") }) : "", true);
}

function nameSeatSelects() {
  // the referee and the operator know the players by name: "南 丁", as the seats' panels say
  const seats = seatsOf(state);
  const choosing = firstDealerThrowers(state.hand).length > 0;  // the 定庄 throw is a chair's: 1号位 张伟
  document.querySelectorAll("select.seat-select option[value]").forEach((o) => {
    if (!o.value) return;
    const name = (state.sitting || state.players)[String(seats[o.value])] || "";  // a substitute (替补) by name
    const chair = choosing && o.parentElement.closest("#dice-form");
    const where = chair ? t("pos", { n: seats[o.value] }) : t("seat." + o.value);
    const text = name ? `${where} ${name}` : where;
    if (o.textContent !== text) o.textContent = text;
  });
  document.querySelectorAll("#appeal-form select[name=position] option, #substitute-form select[name=position] option").forEach((o) => {  // chairs: 1号位 甲
    const text = `${t("pos", { n: o.value })} ${state.players[o.value] || ""}`.trim();
    if (o.textContent !== text) o.textContent = text;
  });
}

function showCameraSection() {
  // a table without a camera shows no camera panel (unless tiles still wait for a ruling)
  const section = $("camera-section");
  const camera = !!(health && health.camera);
  if (section) section.hidden = !camera && !((state && state.camera_pending) || []).length;
  for (const id of ["win-camera", "exhaustive-camera"]) if ($(id)) $(id).hidden = !camera;
}

function renderCameraPending() {
  // Tiles the camera was unsure of: the referee confirms or corrects them instead of a guess.
  // Each question keeps its row (by seq) while it stays open: the camera sends events every
  // second, and rebuilding the list wiped a correction being typed and took its focus.
  const ul = $("camera-pending");
  if (!ul) return;
  showCameraSection();
  const items = state.camera_pending || [];
  const rows = new Map([...ul.querySelectorAll("li[data-seq]")].map((li) => [li.dataset.seq, li]));
  ul.querySelectorAll("li.none").forEach((li) => li.remove());
  const open = new Set(items.map((p) => String(p.seq)));
  for (const [seq, li] of rows) if (!open.has(seq)) li.remove();
  if (!items.length) {
    const li = document.createElement("li");
    li.className = "none";
    li.textContent = t("cam.none");
    ul.appendChild(li);
    return;
  }
  let next = ul.firstElementChild;  // rows are in the list's order; one out of place is moved (it loses focus)
  for (const p of items) {
    const [zone, side] = String(p.zone || "").split(":");
    // the player by wind this hand (the camera names sides; winds move round with the dealer)
    const who = p.wind ? t("seat." + p.wind) : SEATS.includes(side) ? t("pos", { n: SEATS.indexOf(side) + 1 }) : "";
    const where = who + t("cam.zone." + zone);
    // a question from an earlier hand: its seat names that hand's winds, and its tile has gone into
    // the table (before, it read as a question about what lies on the felt now)
    const now = state.hand || {};
    const earlier = p.hand_no != null && (p.hand_no !== now.hand_no || (p.round || 1) !== (now.round || 1));
    const said = (earlier ? t("cam.earlier", { n: p.hand_no }) : "")
      + t("cam.seen", { where, kind: tileName(p.kind), c: Number(p.confidence).toFixed(2) });
    const kept = rows.get(String(p.seq));
    if (kept) {
      const [label, ok, fix, no] = [kept.querySelector("span"), ...kept.querySelectorAll("button")];
      if (label.textContent !== said) label.textContent = said;  // the page's language changed
      ok.textContent = t("cam.confirm");
      fix.textContent = t("cam.correct");
      no.textContent = t("cam.dismiss");
      const pic = kept.querySelector("img.camera-tile");
      if (pic.hidden) showTilePicture(pic, p.seq);  // asked before the referee logged in, or too early
      if (kept === next) next = next.nextElementSibling;
      else ul.insertBefore(kept, next);
      continue;
    }
    const li = document.createElement("li");
    li.dataset.seq = p.seq;
    const label = document.createElement("span");
    label.textContent = said;
    const pic = document.createElement("img");
    pic.className = "camera-tile";
    pic.alt = "";
    pic.hidden = true;
    showTilePicture(pic, p.seq);
    li.append(pic);
    const ok = document.createElement("button");
    ok.type = "button";
    ok.textContent = t("cam.confirm");
    ok.addEventListener("click", () => act("/api/referee/camera/confirm", { seq: p.seq }));
    const input = document.createElement("input");
    input.size = 4;
    input.placeholder = p.kind;
    input.setAttribute("aria-label", t("cam.correct"));
    const fix = document.createElement("button");
    fix.type = "button";
    fix.textContent = t("cam.correct");
    fix.addEventListener("click", () => act("/api/referee/camera/confirm", { seq: p.seq, kind: input.value.trim() }));
    // a coin, a phone, a glare spot read as a tile: no tile at all (the record stops waiting, nothing is learnt)
    const no = document.createElement("button");
    no.type = "button";
    no.className = "not-tile";
    no.textContent = t("cam.dismiss");
    no.addEventListener("click", () => act("/api/referee/camera/dismiss", { seq: p.seq }));
    li.append(label, " ", ok, " ", input, fix, " ", no);
    ul.insertBefore(li, next);
  }
}

function showTilePicture(pic, seq) {
  cameraPicture(`/api/referee/camera/tile/${seq}.jpg`, seq).then((url) => {
    if (url) { pic.src = url; pic.hidden = false; }
  });
}

// Pictures from the camera are the referee's (fetched with the credential, shown as blob URLs):
// each unsure tile once, the live view every few seconds while the Table page is open.
const tilePictures = new Map();
const TILE_PICTURES_KEPT = 64;
async function cameraPicture(path, key) {
  if (role !== "referee") return null;
  if (key !== undefined && tilePictures.has(key)) return tilePictures.get(key);
  const pending = fetch(path, { headers: { Authorization: "Bearer " + token() }, cache: "no-store" })
    .then((res) => {
      if (res.status === 401 || res.status === 403) tilePictures.delete(key);  // asked too early: ask again later
      return res.ok ? res.blob() : null;  // 404: that picture is not kept (older, or before a restart)
    })
    .then((blob) => (blob ? URL.createObjectURL(blob) : null)).catch(() => { tilePictures.delete(key); return null; });
  if (key !== undefined) tilePictures.set(key, pending);
  while (tilePictures.size > TILE_PICTURES_KEPT) {  // the service keeps the newest 64 too (vision.service)
    const [oldest, picture] = tilePictures.entries().next().value;
    tilePictures.delete(oldest);
    picture.then((url) => url && URL.revokeObjectURL(url));
  }
  return pending;
}
function forgetLog() {
  // another log's numbers: the camera's pictures kept by event number are of other tiles
  for (const picture of tilePictures.values()) picture.then((url) => url && URL.revokeObjectURL(url));
  tilePictures.clear();
}
function markCameraView() {
  // unplugged, frozen, dark: the service still has the last frame it read, which looked live
  const img = $("camera-view");
  const failed = !!(health && health.camera && !health.camera.ok) && role === "referee" && page === "table";
  img.classList.toggle("stale", failed);
  $("camera-view-stale").hidden = !failed || img.hidden;  // no picture yet: nothing to call old
}
async function refreshCameraView() {
  const img = $("camera-view");
  const show = role === "referee" && page === "table" && !!(health && health.camera);
  markCameraView();
  if (!show) { img.hidden = true; return; }
  const url = await cameraPicture("/api/referee/camera/view.jpg");
  if (!url) return;
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = url;
  img.hidden = false;
}
setInterval(refreshCameraView, 2000);

let health = null;

function renderHealth() {
  // The link's counters (and the camera's state) arrive every few seconds as "health" messages.
  const box = $("health");
  if (!box || !health) return;
  showCameraSection();
  box.innerHTML = "";
  const l = health.link || {};
  const parts = [l.up ? t("hl.up") : t("hl.down")];
  if (l.rtt_ms !== null && l.rtt_ms !== undefined) parts.push(t("hl.rtt", { n: l.rtt_ms }));
  if (l.retransmits !== undefined) {
    parts.push(t("hl.counters", { r: l.retransmits, c: l.crc_errors || 0, k: l.naks || 0, x: l.reconnects || 0 }));
  }
  if (l.heard_s_ago !== null && l.heard_s_ago !== undefined) parts.push(t("hl.heard", { n: l.heard_s_ago }));
  const line = document.createElement("div");
  line.className = l.up ? "ok" : "bad";
  line.dataset.testid = "link-health";
  line.textContent = parts.join(" · ");
  box.appendChild(line);
  markCameraView();
  if (health.camera) {
    const c = health.camera;
    const cam = document.createElement("div");
    cam.className = c.ok ? "ok" : "bad";
    cam.dataset.testid = "camera-health";
    const said = lang === "zh" ? c.message || c.code || "" : c.message_en || c.code || "";
    const named = /^(摄像头|camera)/i.test(said); // "摄像头正常" needs no "摄像头：" before it
    cam.textContent = (named ? "" : t("hl.camera")) + said + (c.problem ? " · " + c.problem : "");
    box.appendChild(cam);
  }
  // the tournament publisher (docs/tournament.md): connected or retrying, and how many events wait to go;
  // the log's second copy on another device (docs/display.md): present, copying, or refused
  // the event log itself only when it cannot be written (a full or read-only card): referee actions wait;
  // the service's parts that stopped while it runs on (the camera's loop, the clock check ...: supervise.py)
  for (const name of ["log", "tasks", "tournament", "mirror"]) {
    const m = health[name];
    if (!m || ((name === "log" || name === "tasks") && m.ok)) continue;
    const line = document.createElement("div");
    line.className = m.ok ? "ok" : "bad";
    line.dataset.testid = name + "-health";
    line.textContent = (lang === "zh" ? m.message : m.message_en) || "";
    box.appendChild(line);
  }
}

function onMessage(msg) {
  if (msg.every) every = msg.every;
  if (msg.type === "alive") return;
  if (msg.type === "health") {
    health = msg.health;
    renderHealth();
    // the service folds its log at start (正在恢复记录, with how far): the badge says so until the state comes
    const log = health.log || {};
    if (log.recovering) {
      $("link").textContent = (lang === "zh" ? log.message : log.message_en) || "";
      $("link").className = "badge down";
      $("link").dataset.recovering = "1";
    } else delete $("link").dataset.recovering;
    return;
  }
  if (msg.type === "error") {
    // the PIN was changed (here, or on another device, or on the Pi): this page goes as at 退出, saying why;
    // the page that changed it logs in again with the new one (its old socket's close is not news to it)
    if (msg.why === "credential_changed") {
      if (changingPin) return;
      sessionStorage.removeItem("token");
      for (const f of document.forms) { f.reset(); delete f.dataset.filled; }
      sessionStorage.setItem(LOGGED_OUT_KEY, "changed");
      location.replace(location.href);
      return;
    }
    $("action-msg").textContent = msg.detail;
    if (msg.code === 4403 && token() && !reasked) {
      // the credential holds, for another role than the referee's (the table's credentials were changed at a
      // restart): the page takes the role it has now, as at 登录; it fell back to the public view saying 凭证错误.
      // Once until a snapshot comes: a service whose whoami said referee again would be asked round and round
      reasked = true;
      login(token());
      return;
    }
    if (msg.code === 4401 || msg.code === 4403) {
      // the credential no longer holds (e.g. changed at a restart): fall back to the public view
      // instead of retrying it into the rate limit
      role = "viewer";
      document.body.dataset.role = role;
      sessionStorage.removeItem("token");
      $("role").textContent = t("wrong");
    }
    return;
  }
  // a delayed feed's `now` is delayed too, so its timers count down as they did then
  if (msg.now) clockAnchor = { now: msg.now, at: steady() };
  if (msg.type === "snapshot") {
    reasked = false;
    if (msg.log !== logId) forgetLog();
    logId = msg.log ?? null;
    state = msg.state;
    logLines.length = 0;
    logLines.push(...state.log);
    lastSeq = msg.seq;
  } else if (msg.type === "event") {
    if (lastSeq !== null && msg.seq <= lastSeq) return;
    lastSeq = msg.seq;
    if (msg.state) {
      // the parts as they were in the last state this socket sent (`kept`: the score sheet, the ended
      // hands) are left out of the message: the page keeps its own
      for (const k of msg.kept || []) if (state) msg.state[k] = state[k];
      state = msg.state;
      const known = new Set(logLines.map((l) => l.seq));
      for (const l of state.log) if (!known.has(l.seq)) logLines.push(l);
      logLines.sort((a, b) => a.seq - b.seq);
      if (msg.event && /^referee\.(play_correct|undo)$/.test(msg.event.type)) {
        // a correction folds the hand again: its lines as they stand now (a play corrected, or void)
        const from = state.log.length ? state.log[0].seq : Infinity;
        logLines.splice(0, logLines.length, ...logLines.filter((l) => l.seq < from), ...state.log);
      }
      // the page shows the last 60: a display left on all day must not keep every line (before: all of
      // them, and each event sorted them all again)
      if (logLines.length > LOG_KEEP) logLines.splice(0, logLines.length - LOG_KEEP);
    }
  }
  window.__lastSeq = lastSeq;
  // an event without the state (a burst, or a catch-up after a drop: only the last carries it) changes
  // nothing shown: drawing the old state again for each of 500 missed events only delayed the catch-up
  if (msg.type !== "event" || msg.state) render();
  // bench/display.py sets window.__trace: when each event was on screen (the server stamps event.at)
  if (window.__trace && msg.event) window.__trace.push([msg.seq, msg.event.at, Date.now() / 1000]);
}

// A Wi-Fi that drops without a TCP close leaves the socket open and silent: no close, no error, and
// before, the page said 已连接 over a frozen picture until the operating system gave up on the
// connection (minutes). The service sends something at least every `every` seconds (health, or
// `alive` on a delayed feed); SILENT_AFTER of them missed and the socket is dropped and opened again.
const SILENT_AFTER = 3;
let every = 2;           // seconds between the service's health messages (it says so in each)
let heard = steady();  // when the service last said anything
let opened = steady(); // when the current socket was opened: one that hangs opening is retried too
let silent = false;      // the socket was dropped for silence (not closed by the service)
// A slow link (seconds each way) is not a dead one: a new socket's first message takes two round trips
// (the opening, then the credential and the snapshot). Each drop for silence doubles the wait (up to 8
// times), so a link that is merely slow gets a socket through; the first message puts it back.
let patience = 1;
function watchdog() {
  if (!ws) return;
  if (silent) renderLink();  // the seconds count on
  if (steady() - Math.max(heard, opened) < (SILENT_AFTER * every + 1) * 1000 * patience) return;
  patience = Math.min(patience * 2, 8);
  const old = ws;
  ws = null;
  old.close();
  silent = true;
  document.body.dataset.connected = "0";
  render();
  connect();
}
setInterval(watchdog, 500);
// the tablet's own network is back (or gone): try at once instead of after the backoff
window.addEventListener("online", () => { if (document.body.dataset.connected === "0") { const old = ws; ws = null; if (old) old.close(); retry = 0; connect(); } });

let retry = 0;
function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const referee = role === "referee" && !onAir;
  const q = new URLSearchParams();
  if (lastSeq !== null && !delay) {
    q.set("since", lastSeq);
    if (logId) q.set("log", logId);
  }
  if (delay && !referee) q.set("delay", delay);
  const sock = new WebSocket(`${proto}://${location.host}/ws${referee ? "/referee" : ""}${q.toString() ? "?" + q : ""}`);
  ws = sock;
  opened = steady();
  sock.onopen = () => {
    if (ws !== sock) return;
    opened = steady(); // the opening is a sign of life: the wait for the first message starts again
    retry = 0;
    if (referee) sock.send(JSON.stringify({ token: token() }));
  };
  sock.onmessage = (e) => {
    if (ws !== sock) return; // a dropped socket's frames, delivered when its link came back, are old
    heard = steady();
    patience = 1;
    if (document.body.dataset.connected !== "1") { silent = false; document.body.dataset.connected = "1"; render(); askAll(); }
    onMessage(JSON.parse(e.data));
  };
  sock.onclose = () => {
    if (ws !== sock) return; // replaced on purpose (log in / log out)
    document.body.dataset.connected = "0";
    render();
    setTimeout(() => { if (ws === sock) connect(); }, Math.min(200 * 2 ** retry++, 3000));
  };
}
function reconnect() {
  const old = ws;
  ws = null;
  if (old) old.close();
  lastSeq = null; // the referee's view differs from the public one: start from a snapshot
  // what the tests and benches wait on (`__lastSeq >= n`: the page is current) is the new socket's, set by its
  // snapshot: left at the old socket's, a wait after 登录 passed on the public view, the referee's not yet come
  window.__lastSeq = undefined;
  connect();
}

// Every action carries an Idempotency-Key (web/replays.py). The same action pressed again reuses its
// key while its answer is lost or came less than REPEAT_MS ago (a double tap), so the service
// records it once; pressed later, it is a new action with a new key.
const REPEAT_MS = 2000;
let lastAct = null; // {sig, key, answered: time or null}
function actionKey(sig) {
  const fresh = lastAct && lastAct.sig === sig && (lastAct.answered === null || steady() - lastAct.answered < REPEAT_MS);
  if (!fresh) lastAct = { sig, key: Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""), answered: null };
  return lastAct;
}
// A form pressed again while its action runs, or just after its answer cleared the fields, is the
// same press (a double tap): the second is dropped until the form is edited or REPEAT_MS / 2 pass.
// Without it a second penalty went in with the cleared amount, the ruling's default. A refused or
// unanswered action may be pressed again at once (its key makes a repeat harmless).
let lastOutcome = null; // "ok" | "refused" | "lost", set by act()
let lastActSeq = null; // the seq of the event the last accepted action made, set by act()
function once(handler) {
  let press = 0;
  return async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    if (form.dataset.busy) return;
    const mine = ++press;
    const release = () => { if (press === mine) delete form.dataset.busy; };
    form.dataset.busy = "1";
    lastOutcome = null;
    try { await handler(e); } finally {
      if (lastOutcome === "ok") {
        form.addEventListener("input", release, { once: true });
        setTimeout(release, REPEAT_MS / 2);
      } else release();
    }
  };
}

// ---- actions on the venue's Wi-Fi ---------------------------------------------------------------
// An action without an answer is never left unsaid. Until it has one it is listed under the message
// (发送中, with the seconds); unanswered after ANSWER_WAIT_MS (a link that went silent: before, fetch
// waited minutes and the page said nothing), or failed on the way, the page asks the service whether
// it was done (GET /api/requests/KEY, which never does it) and says which: 已记录 #N or 没有记录. It
// asks again every ASK_EVERY_MS while the network is down, and at once when the socket is back. The
// list is kept in the tab (sessionStorage): an action pressed before a reload or a move to another
// page is asked about by the next page.
const ANSWER_WAIT_MS = 8000;
const ASK_EVERY_MS = 2000;
const PENDING_KEY = "pending-actions";
const pending = new Map(); // key -> {key, name (act.NAME), what, at, phase: "sending" | "asking" | "offline"}
for (const p of JSON.parse(sessionStorage.getItem(PENDING_KEY) || "[]")) pending.set(p.key, { ...p, phase: "asking" });
let latestKey = null; // the last action pressed: an answer to an older one names its action
const ACT_OF_PATH = { "/api/referee/win": "win_read", "/api/referee/win/camera": "win_read", "/api/referee/exhaustive/camera": "exhaustive",
                      "/api/referee/round": "round_start", "/api/referee/session/pause": "clock_pause",
                      "/api/referee/session/resume": "clock_resume", "/api/hand/start": "hand_start", "/api/hand/end": "hand_end",
                      "/api/play": "play", "/api/dice": "dice" };
function actOfPath(path) { return ACT_OF_PATH[path] || path.replace("/api/referee/", "").replace(/\//g, "_"); }
function actWhat(name) {
  const what = t("act." + name);
  return what.startsWith("act.") ? t("act.action") : what;
}
function savePending() {
  sessionStorage.setItem(PENDING_KEY, JSON.stringify([...pending.values()].map(({ key, name, what, at }) => ({ key, name, what, at }))));
}
function renderPending() {
  const ul = $("unanswered");
  if (!ul) return;
  ul.innerHTML = [...pending.values()].map((p) => `<li data-key="${esc(p.key)}" data-phase="${p.phase}">${
    esc(t("pend." + p.phase, { what: p.what, n: Math.round((Date.now() - p.at) / 1000) }))}</li>`).join("");
  ul.hidden = !pending.size;
}
function say(text, good) {
  const msg = $("action-msg");
  msg.textContent = text;
  msg.className = "msg " + (good ? "good" : "bad");
}
function waitingFor() {
  // the actions still without an answer, named: an undo or a confirmation pressed now could act on
  // the ruling before them (an undo's target is the last action the page knows)
  return [...pending.values()].map((p) => p.what).join(t("list"));
}
function settle(key, seq) {
  // the service said whether the action under `key` was done: seq, or null for not
  const p = pending.get(key);
  if (!p) return;
  pending.delete(key);
  savePending();
  renderPending();
  if (seq !== null) ownAction(seq);
  if (lastAct && lastAct.key === key) {
    if (seq === null) lastAct = null; // given up by the service: a new press is a new action
    else lastAct.answered = steady();
  }
  say(seq === null ? t("notTaken", { what: p.what }) : t("taken", { what: p.what, seq }), seq !== null);
}
async function ask(key) {
  const p = pending.get(key);
  if (!p || p.phase === "sending" || p.asking || !token()) return;  // without the credential: always 404
  p.asking = true;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ANSWER_WAIT_MS);
  try {
    const res = await fetch("/api/requests/" + encodeURIComponent(key), { headers: { Authorization: "Bearer " + token() }, signal: ctl.signal, cache: "no-store" });
    if (res.status === 200) settle(key, (await res.json().catch(() => ({}))).seq);
    else if (res.status === 404) settle(key, null);
    else p.phase = "offline";
  } catch (err) {
    p.phase = "offline";
  } finally {
    clearTimeout(timer);
    p.asking = false;
    renderPending();
  }
}
function askAll() { for (const key of [...pending.keys()]) ask(key); }
setInterval(() => { if (pending.size) { renderPending(); askAll(); } }, ASK_EVERY_MS);

// Actions on what the page shows carry the view they were taken on (`seen`: the state's seq): where two
// referees' pages are open at one table, the service refuses one on something the other page changed
// since (a read corrected or confirmed, 诈和 ruled, a play corrected, a chair substituted, a round started), naming it, instead of acting on what this
// referee never saw. A repeat under the same key sends the same body (the view it was first pressed on).
// The page's own actions answered but not yet brought by its socket (`mine`): its referee knows them, so
// 确认和牌 pressed right after the page's own read is not refused as a change the page never saw.
let ownSeqs = [];
function ownAction(seq) { if (Number.isInteger(seq)) ownSeqs = [...ownSeqs, seq].slice(-64); }
const SEEN_PATHS = new Set(["/api/referee/win", "/api/referee/win/camera", "/api/referee/win/confirm",
                            "/api/referee/exhaustive", "/api/referee/exhaustive/camera", "/api/referee/play/correct",
                            "/api/referee/substitute", "/api/referee/undo", "/api/referee/penalty",
                            "/api/referee/round", "/api/dice"]);
async function act(path, body) {
  const action = actionKey(path + "\n" + token() + "\n" + JSON.stringify(body || {}));
  if (action.payload === undefined) {
    let seen = {};
    if (SEEN_PATHS.has(path) && state && Number.isInteger(state.seq)) {
      ownSeqs = ownSeqs.filter((seq) => seq > state.seq);  // those the socket brought are in the view now
      seen = ownSeqs.length ? { seen: state.seq, mine: ownSeqs } : { seen: state.seq };
    }
    action.payload = JSON.stringify({ ...(body || {}), ...seen });
  }
  const payload = action.payload;
  const name = actOfPath(path), what = actWhat(name);
  latestKey = action.key;
  const entry = pending.get(action.key) || { key: action.key, name, what, at: Date.now() };
  entry.phase = "sending";
  pending.set(action.key, entry);
  savePending();
  renderPending();
  let res;
  // A request can fail on the way without the user doing anything: the service closes an idle
  // connection (keep-alive, 5 s) just as the browser sends on it. Sent again at once under the same
  // key, it is done once whether or not the first got through.
  for (let attempt = 0; !res; attempt++) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), ANSWER_WAIT_MS);
    try {
      res = await fetch(path, { method: "POST", headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json", "Idempotency-Key": action.key }, body: payload, signal: ctl.signal });
    } catch (err) { // no answer: asked about under its key (a press of the same action meanwhile reuses it)
      if (attempt < 1 && !ctl.signal.aborted) continue;
      if (!pending.has(action.key)) return false; // a repeat of it was answered meanwhile
      entry.phase = "asking";
      lastOutcome = "lost";
      say(t("lost", { what }), false);
      ask(action.key);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
  pending.delete(action.key);
  savePending();
  renderPending();
  action.answered = steady();
  const data = await res.json().catch(() => ({}));
  const detail = Array.isArray(data.detail) ? data.detail.join("; ") : (data.detail || data.error || res.status);
  // a double tap's two answers may come in either order (two connections): the second said for the
  // key is the repeat, whichever the service replayed (before, the first press's answer coming last
  // said only 已记录, as if one tap)
  const repeat = res.headers.get("Idempotent-Replayed") === "true" || (res.ok && action.saidOk === true);
  if (res.ok) action.saidOk = true;
  const text = res.ok ? t(repeat ? "repeat" : "ok") + ` #${data.seq}` : `✗ ${detail}`;
  // the answer to an action pressed before the last one (a slow link) names it: it is not the last one's
  say(latestKey === action.key ? text : `${what}${t("colon")}${text}`, res.ok);
  lastOutcome = res.ok ? "ok" : "refused";
  if (res.ok) { lastActSeq = data.seq; ownAction(data.seq); }
  else if (lastAct === action) lastAct = null;  // refused, nothing done: pressed again, it is sent on the view then
  return res.ok;
}

// The last login asked. An earlier one answered after it is not news: the page's own login with the stored
// credential, answering late on a slow link after a PIN typed meanwhile was taken, made the page the stored
// credential's again (its socket then sent the new PIN: refused, the page logged out).
let loginAsked = 0;
// Only a wrong credential (401) is let go. One held (429: guesses from this address or many) or a service not
// ready (503: 正在恢复记录 after an upgrade) says nothing of it: before, the tablet reloaded then lost the
// referee's PIN and the referee typed it again in front of the players; now the page says why, stays public
// meanwhile and asks again (Retry-After, else 5 s), as its socket does on 4429.
let loginAgain = null;
async function login(value) {
  const mine = ++loginAsked;
  clearTimeout(loginAgain);
  if (!value) { role = "viewer"; sessionStorage.removeItem("token"); }
  else sessionStorage.setItem("token", value);
  const res = await fetch("/api/whoami", { headers: value ? { Authorization: "Bearer " + value } : {} });
  const body = await res.json().catch(() => ({}));
  if (mine !== loginAsked) return;
  const was = role;
  role = res.ok ? body.role : "viewer";
  const held = !res.ok && value && (res.status === 429 || res.status === 503);
  if (held) {
    const wait = Math.min(Math.max(Number(res.headers.get("Retry-After")) || 5, 1), 60);
    loginAgain = setTimeout(() => { if (mine === loginAsked && token() === value) login(value); }, wait * 1000);
  } else if (!res.ok) sessionStorage.removeItem("token");
  // taken: not left in the field for the next hand on the tablet; a PIN typed while this answer came (the page's
  // own login with the stored credential answering late) stays for its own 登录, which found the field empty
  else if ($("token").value === value) $("token").value = "";
  who = res.ok ? { name: body.name || "" } : { error: body.detail || "" };
  showRole();
  document.body.dataset.role = role;
  if (!held || was !== role || !ws) reconnect();  // asked again while held: the public socket stays as it is
}

$("login").addEventListener("submit", (e) => {
  e.preventDefault();
  // 登录 with the field empty is not 退出 (which asks about actions still unanswered first): it keeps who is logged in
  if (!$("token").value) { $("role").textContent = t("pinEmpty"); $("token").focus(); return; }
  login($("token").value);
});
// 退出 on a tablet handed to a player: the credential, the forms the referee filled (a hand as read) and
// everything the referee's channel brought (state, the camera's pictures) go with a new document; the
// forms keep nothing in the tab's history (autocomplete="off"), so Back brings no read hand back either.
const LOGGED_OUT_KEY = "logged-out";
// An action still without an answer is asked about before the credential goes: a key is the credential's
// (web/replays.py), so asked without it the service answers 404 and the page said 没有记录 of a recorded one.
$("logout").addEventListener("click", async () => {
  if (pending.size) {
    await Promise.all([...pending.keys()].map(ask));
    if (pending.size && !window.confirm(t("logoutPending", { what: waitingFor() }))) return;
    pending.clear();
    savePending();
  }
  $("token").value = "";
  sessionStorage.removeItem("token");
  for (const f of document.forms) { f.reset(); delete f.dataset.filled; }
  sessionStorage.setItem(LOGGED_OUT_KEY, "1");
  location.replace(location.href);
});
// a browser that cannot mask a text field masks it as a password (and may offer to keep it: say no)
if (!CSS.supports("-webkit-text-security", "disc")) {
  for (const input of [$("token"), ...$("pin-form").elements]) if (input.tagName === "INPUT") input.type = "password";
}
if (sessionStorage.getItem(LOGGED_OUT_KEY)) {
  const changed = sessionStorage.getItem(LOGGED_OUT_KEY) === "changed";
  sessionStorage.removeItem(LOGGED_OUT_KEY);
  say(t(changed ? "pinChanged" : "loggedOut"), !changed);
}
// 更改凭证: a PIN a player saw typed is changed here (the current one typed again); the service ends every
// page logged in with the old one, this one included, and this one logs in again with the new one
let changingPin = false;
$("pin-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const f = e.target;
  if (f.elements.fresh.value !== f.elements.again.value) { say(t("pinDiffer"), false); return; }
  changingPin = true;
  try {
    const res = await fetch("/api/referee/credential", { method: "POST", body: JSON.stringify(
      { old: f.elements.old.value, new: f.elements.fresh.value }),
      headers: { Authorization: "Bearer " + token(), "Content-Type": "application/json" } });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) { say(typeof body.detail === "string" ? body.detail : body.error || String(res.status), false); return; }
    const fresh = f.elements.fresh.value;
    f.reset();
    $("pin-change").open = false;
    await login(fresh);
    say(t("pinDone"), true);
  } finally {
    changingPin = false;
  }
});
// Escape closes 更改凭证 as the page's confirmations are cancelled (取消): what was typed in it dropped (a PIN left
// in a closed form is one the next hand on the tablet finds), the focus back on its summary; before, it stayed
// open over the page with the PIN typed, closed only by its summary
$("pin-change").addEventListener("keydown", (e) => {
  const box = $("pin-change");
  if (e.key !== "Escape" || !box.open) return;
  e.preventDefault();
  $("pin-form").reset();
  box.open = false;
  box.querySelector("summary").focus();
});
/** Whether the hand's confirmed wins have ended it (the service's `referee.ended_by_wins`): a win where the hand
 *  ends at one, the third under 血战; a hand that plays on after wins (血战, 血流) is not ended by them yet. */
function endedByWins() {
  const wins = (state && state.wins) || [];
  return !!wins.length && !(state.plays_on && state.further_win);
}
$("start-hand").addEventListener("click", () => {
  // pressed during a hand (a slip beside 结束本盘) it stops that hand as 中止 and the same dealer deals again;
  // a hand its confirmed wins ended is recorded as won, as 结束本盘 would, without the question (before, it
  // asked to stop the won hand as 中止, and the next hand was the same dealer's)
  const hand = state && state.hand;
  if (hand && !hand.ended && !endedByWins() && !window.confirm(t("abandonAsk", { n: hand.hand_no }))) return;
  act("/api/hand/start");
});
$("end-hand").addEventListener("click", () => {
  // a hand that plays on after wins (血战, 血流) ends as a draw unless the wins ended it: then 查叫 follows
  const wins = (state && state.wins) || [];
  // without a win and with tiles still in the wall it would be a 荒牌 nobody played out: asked first
  const hand = state && state.hand;
  if (hand && !hand.ended && !wins.length && hand.tiles_left > 0
      && !window.confirm(t("drawAsk", { n: hand.hand_no, left: hand.tiles_left }))) return;
  // a hand ended as a win whose confirmation was undone: ended again, as 荒牌 (the service takes nothing else)
  if (hand && hand.ended && state.win_unconfirmed && !window.confirm(t("redrawAsk", { n: hand.hand_no }))) return;
  act("/api/hand/end", { result: endedByWins() ? "win" : "draw" });
});
$("abortive-keys").addEventListener("click", (e) => {
  // 九种九牌 is the seat picked under 座位 (the seat in turn), its 14 tiles from 牌 when typed (checked then)
  const button = e.target.closest("[data-abortive]"), hand = state && state.hand;
  if (!button || !hand || hand.ended) return;
  const kind = button.dataset.abortive, f = $("play-form"), body = { result: "abortive", abortive: kind };
  if (kind === "nine_terminals") {
    body.seat = f.seat.value;
    const tiles = parseTiles(f.tiles.value);
    if (tiles.length) body.tiles = tiles;
  }
  if (!window.confirm(t("abortive.ask", { n: hand.hand_no, name: t("abortive." + kind) }))) return;
  act("/api/hand/end", body);
});
$("dice-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  const dice = (f.dice.value.match(/\d/g) || []).map(Number);  // "3 5", "35", "3,5,2"
  // said here in words: a 7 or a die short got the API's "body.dice.0: Input should be less than or equal to 6"
  const m = (state && state.hand && state.hand.dice_count) || 2;  // 定庄: two dice
  if (dice.length !== m || dice.some((d) => d < 1 || d > 6)) {
    $("action-msg").textContent = "✗ " + t("dice.bad", { m }); $("action-msg").className = "msg bad"; return;
  }
  if (await act("/api/dice", { seat: f.seat.value, dice })) f.dice.value = "";
}));
// Plays are keyed one after another, each sent once the page shows the operator's last one: typed on
// while a play is on its way (a slow Wi-Fi), the next is not lost and goes to the seat the turn has
// moved to, or to the seat picked for it when pressed (a seat picked after the press is the next play's).
// 牌 is cleared when a play is pressed and given back on a refusal; the focus stays in 牌 so the next
// tile is typed at once (before, the focus stayed on the button pressed, every play began with a tap on
// 牌, and a tile typed before the answer was wiped by it).
const CATCH_UP_MS = 3000;
let keying = Promise.resolve();
let queued = 0;  // plays pressed and not yet answered
const TILE_KINDS = new Set(["discard", "flower", "chow", "pung", "kong", "concealed", "added"]);
function keyPlay(kind) {
  const f = $("play-form");
  const typed = TILE_KINDS.has(kind) ? f.tiles.value : null;
  if (typed !== null) f.tiles.value = "";
  f.tiles.focus();
  const behind = behindOwn();
  // 立直 is keyed after the discard that declared it, when the seat has followed the turn on: unless
  // picked, it is that discarder's (before, it went to the seat in turn, or was refused: 南家尚未出牌)
  const seat = pressedPick(f.seat, "seat", behind || kind === "riichi"), from = pressedPick(f.from, "from", behind);
  queued++;
  keying = keying.then(() => sendPlay(kind, typed, seat, from)).catch(() => {}).finally(() => { queued--; });
  return keying;
}
async function caughtUp() {
  // until the page shows the operator's last play (its update moves the seat), at most CATCH_UP_MS
  const end = steady() + CATCH_UP_MS;
  while (ownPlay.seq !== null && (lastSeq === null || lastSeq < ownPlay.seq) && steady() < end) {
    await new Promise((ok) => setTimeout(ok, 20));
  }
}
function playWords(body) {
  // the play as sent, in words: 东家打出 五万, 西家碰 五万（东家打出）
  if (body.type === "deal_done") return t("key.dealDone");
  const kind = body.type === "claim" ? body.kind : body.type === "kong" ? (body.concealed ? "concealed" : "added")
    : body.type === "missing" ? "missing" : body.type;
  const tiles = body.type === "missing" ? t("suit." + body.suit)
    : body.tile ? tileName(body.tile) : body.kind === "chow" ? (body.tiles || []).map(tileName).join(" ")
    : tileName((body.tiles || [])[0]);
  const said = { seat: t("seat." + body.seat), what: t("key." + kind), tiles: tiles || "" };
  return body.from ? t("key.saidFrom", { ...said, from: t("seat." + body.from) }) : t("key.said", said).trim();
}
function sayPlay(body, hint) {
  // the answer to a play also under the form: on a tablet the message line above is scrolled away while
  // the operator keys (before, an accepted or refused play said so only there, out of sight)
  const line = $("play-msg"), msg = $("action-msg");
  line.textContent = (body ? playWords(body) + " " : "") + msg.textContent + (hint ? " " + hint : "");
  line.className = msg.className;
}
function missedClaim(body, hand) {
  // a discard out of turn while another seat's discard lies unclaimed: most often the claim before it
  // was not keyed (W pungs E's tile and discards), and the way on is to key that claim first
  const from = lastDiscarder(hand);
  if (body.type !== "discard" || !hand.turn || body.seat === hand.turn.seat || !from || from === body.seat) return "";
  return t("key.claimFirst", { seat: t("seat." + body.seat), from: t("seat." + from), key: body.seat.toLowerCase() });
}
async function sendPlay(kind, typed, seat, from) {
  await caughtUp();
  const f = $("play-form");
  const hand = (state && state.hand) || {};
  const giveBack = () => {
    // the tiles back in 牌, selected: a retyped tile or a seat's letter replaces them (before, typed after them)
    if (!typed || f.tiles.value) return;
    f.tiles.value = typed;
    if (document.activeElement === f.tiles) f.tiles.select();
  };
  const turn = kind === "riichi" ? lastDiscarder(hand) : hand.turn && hand.turn.seat;
  const body = playBody(kind, seat || turn || f.seat.value,
                        from || lastDiscarder(hand) || f.from.value, typed || "");
  if (!body || body.problem) {
    $("action-msg").textContent = "✗ " + (body ? body.problem : t("key.needTile"));
    $("action-msg").className = "msg bad";
    sayPlay(null);
    giveBack();
    return;
  }
  ownPlay.sending = true;
  try {
    // the dealer's first discard ends the deal, as the camera reads it: 配牌完成 forgotten went unseen, the
    // turn then ran from the discard, and 配牌完成 pressed later put it back to the dealer
    const dealing = body.type === "discard" && body.seat === "E" && !hand.turn && !hand.ended
      && !SEATS.some((w) => ((hand.discards || {})[w] || []).length);
    if (dealing && !(await act("/api/play", { type: "deal_done" }))) { giveBack(); sayPlay(null); return; }
    const ok = await act("/api/play", body);
    if (!ok) giveBack();
    // 定缺 moves no turn, so 座位 stayed on the seat picked for it and the dealer's first discard went there
    // (未轮到北家): the pick was for the 定缺, the seat in turn comes back unless another was picked since
    const turnNow = state && state.hand && state.hand.turn;
    if (ok && body.type === "missing" && turnNow && !pickedForNext.seat) f.seat.value = turnNow.seat;
    sayPlay(body, ok || lastOutcome !== "refused" ? "" : missedClaim(body, (state && state.hand) || {}));
  } finally {
    ownPlay.sending = false;
    ownPlay.seq = lastOutcome === "ok" ? lastActSeq : ownPlay.seq;
  }
}
$("play-form").addEventListener("submit", (e) => {
  // Enter in 牌 (a tablet keyboard's 前往 too) keys the commonest play: 打出, or 补花 for a flower (never discarded)
  e.preventDefault();
  const tiles = typedTiles($("play-form").tiles.value);
  keyPlay(tiles.length && tiles.every((x) => x.endsWith("f")) ? "flower" : "discard");
});
document.querySelectorAll("#play-form [data-play]").forEach((button) => button.addEventListener("click", () => keyPlay(button.dataset.play)));
$("play-form").seat.addEventListener("change", () => pickedAhead("seat"));
$("play-form").tiles.addEventListener("input", (e) => {
  // a seat's letter typed first in 牌 (e s w n, or 东南西北) picks the seat, as the select would: no tile
  // code starts with a letter (5s is a tile, s5m is 南 then 5m). Before, a claim by another seat took
  // the hand off the keyboard for two taps on 座位.
  if (e.isComposing) return;
  const f = $("play-form");
  const m = /^\s*([eswnESWN东南西北])/.exec(f.tiles.value);
  if (!m) return;
  f.seat.value = WIND_WORDS[m[1].toUpperCase()];
  pickedAhead("seat");
  f.tiles.value = f.tiles.value.slice(m[0].length).trimStart();
});
$("play-form").from.addEventListener("change", () => pickedAhead("from"));
$("lang").addEventListener("click", () => { lang = lang === "zh" ? "en" : "zh"; localStorage.setItem("lang", lang); keepLang(); wallKey = null; renderStatic(); renderCatalogue(); renderFanBook(); render(); renderHealth();
  renderCorrectable(); nameReplayHands(); });
function keepLang() {
  // an address's ?lang= follows the button, or the next reload would undo the choice
  if (!params.has("lang")) return;
  params.set("lang", lang);
  history.replaceState(history.state, "", `${location.pathname}?${params}${location.hash}`);
}
$("penalty-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  const body = { seat: f.seat.value, code: f.code.value };
  const entry = catalogueEntry(f.code.value);
  if (f.amount.value !== "") body[entry && entry.from_scoring ? "fan" : "amount"] = Number(f.amount.value);
  if (f.victim.value) body.victim = f.victim.value;
  if (f.note.value) body.note = f.note.value;
  if (await act("/api/referee/penalty", body)) { f.amount.value = ""; f.victim.value = ""; f.note.value = ""; }
}));
$("undo-form").addEventListener("submit", once(async (e) => {
  // the reason is required: said here in words, not as the API's "body.reason: String should have …"
  if (!$("undo-reason").value.trim()) {
    $("action-msg").textContent = "✗ " + t("pen.needReason"); $("action-msg").className = "msg bad"; return;
  }
  if (pending.size) { say(t("waitFirst", { what: waitingFor(), act: t("act.undo") }), false); return; }
  const body = { reason: $("undo-reason").value };
  if (state && state.last_action) body.target = state.last_action.seq;
  if (await act("/api/referee/undo", body)) $("undo-reason").value = "";
}));
for (const name of ["discarder", "flowers", "melds", "last_tile"]) $("win-form")[name].addEventListener("input", (e) => { e.target.dataset.touched = "1"; });
$("win-form").discarder.addEventListener("change", (e) => { e.target.dataset.touched = "1"; });
$("win-form").win.addEventListener("change", (e) => { e.target.dataset.touched = "1"; syncWinForm(); });
$("win-form").seat_wind.addEventListener("change", syncWinForm);
$("win-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  let melds;
  try { melds = parseMelds(f.melds.value); } catch (err) { say(t("win.meldsBad", { part: err.message }), false); return; }
  // the winning tile said here in words: left empty, the service answered "not a tile code: ''"
  const winTile = parseTiles(f.win_tile.value);
  const typed = f.win_tile.value.trim();
  if (winTile.length !== 1) { say("✗ " + (typed ? t("win.tileBad", { tile: typed }) : t("win.needTile")), false); return; }
  const hand = { seat_wind: f.seat_wind.value, prevalent_wind: (state && state.hand && state.hand.prevalent_wind) || "E", win: f.win.value,
                 concealed: parseTiles(f.concealed.value), win_tile: winTile[0], melds, flowers: parseTiles(f.flowers.value),
                 last_tile: f.last_tile.checked };
  if (f.win.value === "discard" || f.win.value === "rob_kong") hand.discarder = f.discarder.value;
  const options = refereeOptions(f);
  if (options) hand.options = options;
  await act("/api/referee/win", { hand });
}));
function refereeOptions(f) {
  // what only the referee can give (state.win_options): 裁判计分's points and special hand, the
  // 鬼牌/百搭 kind, the 买马 tiles turned up and, for 一炮多响, that they count from the discarder
  const allowed = (state && state.win_options) || [];
  const options = {};
  if (allowed.includes("points") && f.points.value !== "") options.points = Number(f.points.value);
  if (allowed.includes("special") && f.special.value.trim()) options.special = f.special.value.trim();
  const wild = parseTiles(f.wildcard.value)[0];
  if (allowed.includes("wildcard") && wild) options.wildcard = wild;
  const horses = parseTiles(f.horses.value);
  if (allowed.includes("horses") && horses.length) options.horses = horses;
  if (allowed.includes("riichi") && f.riichi.checked) options.riichi = true;
  if (allowed.includes("ippatsu") && f.ippatsu.checked) options.ippatsu = true;
  for (const name of ["dora", "ura_dora"]) {
    const tiles = parseTiles(f[name].value);
    if (allowed.includes(name) && tiles.length) options[name] = tiles;
  }
  if (allowed.includes("honba") && f.honba.value !== "") options.honba = Number(f.honba.value);
  if (allowed.includes("first_turn") && f.first_turn.checked) options.first_turn = true;
  // 一炮多响 (广东 买马): the horses count from the discarder, not the winner
  if (allowed.includes("horse_origin") && f.horse_origin.checked && f.win.value === "discard") options.horse_origin = f.discarder.value;
  return Object.keys(options).length ? options : null;
}
$("win-camera").addEventListener("click", () => {
  // the hand the camera sees laid down in front of the winner; the form's tile names the winning tile when needed
  const f = $("win-form");
  const body = { seat: f.seat_wind.value, win: f.win.value };
  const tile = parseTiles(f.win_tile.value)[0];
  if (tile) body.win_tile = tile;
  const options = refereeOptions(f);
  if (options) body.options = options;
  act("/api/referee/win/camera", body);
});
$("win-confirm").addEventListener("click", () => {
  // a read (a correction) still on its way: confirmed now, the read before it would be the one confirmed
  const reading = [...pending.values()].filter((p) => p.name === "win_read");
  if (reading.length) { say(t("waitFirst", { what: reading[0].what, act: t("act.win_confirm") }), false); return; }
  act("/api/referee/win/confirm");
});
$("win-false").addEventListener("click", () => {
  // the seat the referee names in 和牌方, not the read's: under 血战 the seat that won before would pay
  const seat = $("win-form").seat_wind.value;
  // named before it is ruled: 和牌方 starts at 东 on a page with no read, and 诈和 costs that player dearly
  const who = $("win-form").seat_wind.selectedOptions[0].textContent;
  if (!window.confirm(t("win.falseAsk", { who }))) return;
  const body = { seat, code: "false_win" };
  const amount = $("false-amount").value;
  const entry = catalogueEntry("false_win");
  if (amount !== "") body[entry && entry.from_scoring ? "fan" : "amount"] = Number(amount);
  act("/api/referee/penalty", body);
});
$("exhaustive-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const hands = {};
  SEATS.forEach((w) => { const input = e.target[w]; if (!input.disabled) hands[w] = { concealed: parseTiles(input.value) }; });
  act("/api/referee/exhaustive", { hands });
});
$("exhaustive-camera").addEventListener("click", () => act("/api/referee/exhaustive/camera"));
$("session-start").addEventListener("click", () => {
  // the minutes typed (a tournament's own length, or one for a ruleset whose text sets none); empty: the ruleset's
  const minutes = $("session-minutes").value.trim();
  act("/api/referee/session/start", minutes ? { minutes: Number(minutes) } : {});
});
$("print-sheet").addEventListener("click", () => window.print());
$("seating-fill").addEventListener("click", () => {
  const o = seatingOffer();
  if (!o) return;
  const f = $("round-form");
  f.round.value = o.round;
  ["1", "2", "3", "4"].forEach((p) => { f["p" + p].value = o.players[p]; f["id" + p].value = (o.player_ids || {})[p] || ""; });
});
$("penalty-code").addEventListener("change", renderFalseWinInputs);
$("sheet-round").addEventListener("change", async (e) => {
  const n = Number(e.target.value);
  sheetRound = n === state.round ? null : n;
  closedSheet = null;
  if (sheetRound) {
    const res = await fetch(`/api/scoresheet?round=${n}`, { cache: "no-store" });
    const sheet = res.ok ? await res.json() : null;
    // another round picked while this one's sheet came (a slow link): that one's is shown, not this late one
    // (before, shown under the round picked after it, and printed so for the players to sign)
    if (sheetRound !== n) return;
    closedSheet = sheet;
  }
  renderSheet();
});
$("round-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  const players = {}, player_ids = {};
  ["1", "2", "3", "4"].forEach((p) => {
    players[p] = f["p" + p].value.trim();
    if (f["id" + p].value.trim()) player_ids[p] = f["id" + p].value.trim();
  });
  if (await act("/api/referee/round", { round: Number(f.round.value), players, player_ids })) {
    sheetRound = null;
    f.reset();
  }
}));
$("substitute-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  const body = { position: f.position.value, name: f.sub_name.value.trim(), player_id: f.player_id.value.trim(),
                 reason: f.reason.value.trim() };
  if (await act("/api/referee/substitute", body)) f.reset();
}));
$("session-end").addEventListener("click", () => act("/api/referee/session/end"));
$("clock-pause").addEventListener("click", async () => {
  if (await act("/api/referee/session/pause", { reason: $("clock-reason").value })) $("clock-reason").value = "";
});
$("clock-resume").addEventListener("click", () => act("/api/referee/session/resume"));
$("appeal-form").addEventListener("submit", once(async (e) => {
  const f = e.target;
  const body = { position: Number(f.position.value), text: f.text.value };
  if (f.target.value) body.target = Number(f.target.value);
  if (await act("/api/referee/appeal", body)) { f.text.value = ""; f.target.value = ""; }
}));

renderStatic();
if (page === "penalties" || page === "win") loadCatalogue();  // the Win page's 判诈和 reads it too
if (page === "win") loadFanBook();
renderPending();
if (token() && !onAir) login(token()); else { document.body.dataset.role = "viewer"; connect(); }
