"""`tablectl vision`: read tiles from a picture, evaluate, enroll a table's tiles, train the model."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from table_controller.commands import tcp_port


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("vision",
                              help="摄像头识牌：grab、corners、enroll、read、eval、train、render、camera / camera tile "
                                   "reader: grab, corners, enroll, read, eval, train, render, camera",
                              description="摄像头识牌：从摄像头画面中读出明牌。 / The camera tile reader (识牌): reads "
                                          "face-up tiles from camera frames.")
    sub = p.add_subparsers(dest="vision_command", metavar="ACTION", title="操作 / actions")

    said = "读出图片中的牌（一帧台面画面或一张牌） / read the tiles in a picture (a table frame or one tile)"
    r = sub.add_parser("read", help=said, description=said)
    r.add_argument("image", type=Path, help="带台角标记的台面画面，或一张牌的特写 / a table frame with the corner markers, or a close-up "
                                               "of one tile")
    _common(r)
    r.add_argument("--corners", help="图中台面四角 'x,y;x,y;x,y;x,y'，从西家左角起顺时针，用于无标记的牌桌 / felt "
                                     "corners in the image, 'x,y;x,y;x,y;x,y' clockwise from W's left, for tables "
                                     "without markers")
    r.add_argument("--json", action="store_true", help='以 JSON 输出 {"tiles": [...]} / print {"tiles": [...]} as JSON')
    r.set_defaults(func=run_read)

    k = sub.add_parser("corners", help="在摄像头画面中找出台面四角，用于 [camera] corners / find the felt's four "
                                       "corners in a camera frame, for [camera] corners",
                       description="用于无台角标记的牌桌：找出台面（画面中央的颜色），按 [camera] corners 和 corners_size "
                                   "的格式打印其四角，从西家左角起顺时针，西家一侧取画面上方。 / "
                                   "For tables without corner markers: finds the felt (the colour of the picture's "
                                   "middle) and prints its corners clockwise from W's left, W's side taken at the top "
                                   "of the picture, as [camera] corners and corners_size.")
    k.add_argument("image", type=Path,
                   help="本桌摄像头的一帧画面，须拍到整个台面 / a frame from the table's camera, the whole felt in view")
    k.add_argument("--json", action="store_true",
                   help='以 JSON 输出四角 / print {"corners": [[x, y], ...], "corners_size": [w, h]}')
    k.set_defaults(func=run_corners)

    said = ("在带 labels.csv（file,kind）的单张牌图片文件夹上测准确率 / accuracy on a folder of single-tile pictures "
            "with labels.csv (file,kind)")
    e = sub.add_parser("eval", help=said, description=said)
    e.add_argument("dir", type=Path, help="图片和 labels.csv 所在文件夹 / the folder of pictures and labels.csv")
    _common(e)
    e.add_argument("--json", action="store_true", help="以 JSON 输出各项数字 / print the figures as JSON")
    e.set_defaults(func=run_eval)

    said = ("学习本桌的牌：每种一张，面向东家正放，成行，按 1m..9m 1p..9p 1s..9s 1z..7z 1f..8f [back] 的顺序 / learn "
            "this table's tiles: one of each kind laid upright for E, in rows, in the order 1m..9m 1p..9p 1s..9s "
            "1z..7z 1f..8f [back]")
    n = sub.add_parser("enroll", help=said, description=said)
    n.add_argument("images", type=Path, nargs="+", help="摆好的牌的画面（多帧更好） / frames of the laid-out tiles (several help)")
    n.add_argument("--out", type=Path, required=True,
                   help="要写入的牌样文件（npz）；已存在则追加 / enrollment file to write (npz); extended if it exists")
    n.add_argument("--model", type=Path, default=None, help=MODEL_HELP)
    n.add_argument("--kinds", default="",
                   help="摆出的牌种，逗号分隔（不是按顺序的全部 42 种时） / comma-separated kinds laid out, if not the "
                                             "full 42 in order")
    n.add_argument("--laid-in-order", action="store_true",
                   help="牌确按给定顺序摆放，即使网络把其中一些认作别的牌（它认错的牌面）；不加此项时这样的画面会被拒绝 / "
                        "the tiles lie in the order given even where the network reads some as other kinds "
                        "(art it reads wrongly); without it such a frame is refused")
    n.add_argument("--corners", help="画面中台面四角 'x,y;x,y;x,y;x,y'，从西家左角起顺时针，用于无标记的牌桌（同 "
                                     "[camera] corners；`tablectl vision corners` 可找出） / "
                                     "felt corners in the frames, 'x,y;x,y;x,y;x,y' clockwise from W's left, "
                                     "for tables without markers (as [camera] corners; `tablectl vision corners` "
                                     "finds them)")
    n.set_defaults(func=run_enroll)

    said = ("用合成的牌图训练分类器并导出 ONNX（需安装 train 附加包） / train the classifier on synthetic crops and "
            "export ONNX (needs the train extra)")
    t = sub.add_parser("train", help=said, description=said)
    t.add_argument("--samples", type=int, default=40000, help="训练样本数 / training samples")
    t.add_argument("--epochs", type=int, default=8, help="训练轮数 / training epochs")
    t.add_argument("--seed", type=int, default=5, help="随机种子 / random seed")
    t.add_argument("--threads", type=int, default=2, help="CPU 线程数 / CPU threads")
    t.add_argument("--restyle", type=float, default=0.0,
                   help="按其他厂家风格绘制的牌面比例（笔画粗细、颜色、位置） / share of faces drawn as another maker might "
                        "have (stroke weight, inks, placement)")
    t.add_argument("--more-fonts", action="store_true", help="用更多字体绘制牌面（手写、明体、仿宋……） / draw faces in more "
                                                                    "typefaces (brush, ming, fangsong, ...)")
    t.add_argument("--brush-fonts", action="store_true", help="也用毛笔字体绘制牌面（毛筆、行書、楷） / draw faces in brush "
                                                                     "hands too (毛筆, 行書, kai)")
    t.add_argument("--big-chars", action="store_true",
                   help="把字画到占满牌面（花牌、季牌、字牌），如许多牌的刻法 / draw characters up to filling the face "
                        "(flowers, seasons, honours), as many sets carve them")
    t.add_argument("--flower-share", type=float, default=0.3,
                   help="花牌和季牌所占比例 / share of tile crops that are flowers or "
                                                                                "seasons")
    t.add_argument("--out", type=Path, default=None,
                   help="ONNX 文件路径（默认 vision/models/tiles.onnx） / ONNX path (default: "
                                                                    "vision/models/tiles.onnx)")
    t.set_defaults(func=run_train)

    said = "渲染某种牌面风格的带标注测评图片（模拟器） / render labelled evaluation pictures of a tile style (simulator)"
    d = sub.add_parser("render", help=said, description=said)
    d.add_argument("style", help="牌面风格，如 xmahjongg-real、gnome-smooth、kmahjongg-default / tile style, e.g. "
                                 "xmahjongg-real, gnome-smooth, kmahjongg-default")
    d.add_argument("out", type=Path, help="输出文件夹（不存在则创建） / the folder to write (made if missing)")
    d.add_argument("--singles", type=int, default=2,
                   help="每种牌的单张图片数（labels.csv） / single-tile pictures per kind (labels.csv)")
    d.add_argument("--scenes", type=int, default=0,
                   help="整桌画面数（scene-N.jpg + scene-N.json） / whole table frames (scene-N.jpg + scene-N.json)")
    d.add_argument("--seed", type=int, default=1000, help="随机种子 / random seed")
    d.set_defaults(func=run_render)

    g = sub.add_parser("grab", help="保存本桌摄像头的一帧画面并检查（光线、台角标记） / save a frame from the table's "
                                    "camera and check it (light, corner markers)",
                       description="按 [camera] source 的写法（设备编号如 0、路径或 MJPEG/RTSP 地址）从摄像头取一帧，"
                                   "写出供 corners、enroll 和 read 使用，并说明画面的问题：无画面、太暗、反光、台角标记不在"
                                   "视野内。画面不可用时以 1 退出（仍会写出）。 / "
                                   "Takes a frame from the camera as [camera] source names it (a device index such "
                                   "as 0, a path or an MJPEG/RTSP URL), writes it for corners, enroll and read, and "
                                   "says what is wrong with the picture: no picture, too dark, glare, corner markers "
                                   "out of sight. Exit 1 when the picture will not do (it is written all the same).")
    g.add_argument("source", help='摄像头："0" 即 /dev/video0，或路径，或地址如 http://…/stream.mjpg / the camera: "0" for '
                                 '/dev/video0, a path, or a URL such as http://…/stream.mjpg')
    g.add_argument("out", type=Path, help="要写入的图片（.jpg 或 .png） / the picture to write (.jpg or .png)")
    g.add_argument("--frames", type=int, default=5,
                   help="读取的帧数，保留最后一帧（USB 摄像头在曝光稳定前的头几帧偏暗） / frames read, the last kept (a USB "
                        "camera's first frames are dark while its exposure settles)")
    g.set_defaults(func=run_grab)

    c = sub.add_parser("camera", help="提供一个渲染牌桌的虚拟 MJPEG 摄像头（模拟器） / serve a virtual MJPEG camera of "
                                      "a rendered table (simulator)",
                       description="代替本桌的摄像头：在 http://HOST:PORT/stream.mjpg 以 MJPEG 提供渲染的牌桌画面"
                                   "（单帧：/snapshot.jpg）。 / "
                                   "A stand-in for the table's camera: serves a rendered table as MJPEG at "
                                   "http://HOST:PORT/stream.mjpg (one frame: /snapshot.jpg).")
    c.add_argument("--style", default="kmahjongg-default",
                   help="牌面风格，如 xmahjongg-dorothys / tile art, e.g. xmahjongg-dorothys")
    c.add_argument("--port", type=tcp_port, default=8081, help="端口（默认 8081） / port (default 8081)")
    c.add_argument("--host", default="127.0.0.1", help="地址（默认 127.0.0.1） / address (default 127.0.0.1)")
    c.add_argument("--seed", type=int, default=4,
                   help="哪一桌（布局、摄像头位置、光线）；默认值的台面 `vision corners` 能找到 / which table (layout, "
                        "camera pose, light); the default's felt `vision corners` finds")
    c.add_argument("--layout", choices=("play", "enroll"), default="play",
                   help="play：对局中的牌桌；enroll：为 `vision enroll` 摆出的 42 种牌各一张 / play: a table in play; "
                        "enroll: one tile of each of the 42 kinds laid out for `vision enroll`")
    c.add_argument("--no-markers", action="store_true",
                   help="无台角标记的台面（须存储四角） / a felt without corner markers (store its corners)")
    c.set_defaults(func=run_camera)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


MODEL_HELP = "ONNX 识牌模型（默认：自带的） / ONNX model (default: the packaged one)"


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", type=Path, default=None, help=MODEL_HELP)
    p.add_argument("--enrollment", type=Path, default=None,
                   help="`tablectl vision enroll` 生成的牌样文件 / enrollment file from `tablectl vision enroll`")
    p.add_argument("--threshold", type=_share, default=None,
                   help="置信度低于此值的牌交由裁判（0..1） / confidence under which a tile goes to the referee (0..1)")


def _share(text: str) -> float:
    """A confidence strictly between 0 and 1 (`--threshold 5` sent every tile to the referee, silently)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"须为 0 与 1 之间的数，不是 {text!r} / {text!r} is not a number between 0 "
                                         "and 1") from None
    if not 0.0 < value < 1.0:  # as `[camera] threshold`
        raise argparse.ArgumentTypeError(f"须在 0 与 1 之间（置信度，如 0.8），不是 {text} / {text} is not between 0 and 1 "
                                         "(a confidence, e.g. 0.8)")
    return value


def _reader(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from vision.enroll import Enrollment
    from vision.model import DEFAULT_MODEL
    from vision.reader import TileReader

    enrollment = Enrollment.load(args.enrollment) if getattr(args, "enrollment", None) else None
    if args.model:
        _utf8("--model", str(args.model))
    return TileReader(args.model or DEFAULT_MODEL, enrollment=enrollment, threshold=getattr(args, "threshold", None))


def _imread(path: Path):  # type: ignore[no-untyped-def]
    """The picture at `path` (`vision.picture.load_picture`); ValueError names the file and the fault."""
    from vision.picture import load_picture

    return load_picture(path)


def _utf8(what: str, text: str) -> str:
    """`text` (a path or source from the command line) as OpenCV can take it: a name that is not UTF-8
    crashed the process inside OpenCV (SIGSEGV, no message)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        raise ValueError(f"{what} {shown}: 路径不是 UTF-8 文字，请改名 / the name is not UTF-8 text: rename it") from None
    return text


def _light_problem(img) -> str:  # type: ignore[no-untyped-def]
    """What the service's camera health says of a picture too dark or with glare (it reads nothing
    then), or "". Before, `read` said "no tiles found", `corners` "no felt found whole" and `enroll`
    "saw 0 tiles": each sent the technician after the wrong thing."""
    from vision.health import CameraHealth

    status = CameraHealth().check(img).to_json()
    if status["code"] not in ("dark", "glare"):
        return ""
    todo_zh, todo = (("请照亮台面后重拍", "light the table and take it again") if status["code"] == "dark"
                     else ("请调开灯或摄像头避开反光后重拍", "turn the lamp or the camera off the reflection and take it again"))
    return f"{status['message']}；{todo_zh} / {status['message_en']} ({status['detail']}): {todo}"


#: The gist of each error a vision action meets, Chinese first before its English (`cli.chinese_first`).
GIST_ZH = {"ModelError": "识牌模型无法加载", "EnrollmentError": "牌样有误", "CalibrationError": "无法标定台面",
           "ReadError": "无法识读此图片", "TileArtError": "此牌面风格无法使用", "PictureError": "图片无法读取"}


def _fail(msg: object, zh: str = "") -> int:
    """Exit 1 saying `msg` Chinese first: `zh`, else the gist of the error `msg` is (`GIST_ZH`)."""
    from table_controller.cli import fail

    return fail("vision", zh or GIST_ZH.get(type(msg).__name__, "无法完成"), msg, 1)


def _corners(text: str) -> list[list[float]]:
    """`--corners 'x,y;x,y;x,y;x,y'`, or the list `tablectl vision corners` prints for the config
    ('[[x, y], ...]', with or without its `corners =`): pasting that was refused as not the form. A
    mistake is told with the form, not float()'s words ("could not convert string to float: 'bad'")."""
    listed = text.strip().removeprefix("corners").strip().removeprefix("=").strip()
    try:
        if listed.startswith("["):
            loaded = json.loads(listed)
            pts = [[float(v) for v in p] for p in loaded] if isinstance(loaded, list) else []
        else:
            pts = [[float(v) for v in pair.split(",")] for pair in text.split(";")]
    except (ValueError, TypeError):
        pts = []
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise ValueError(f"--corners {text!r}：须为以 ; 分隔的四个点 x,y，从西家左角起顺时针，或照 `tablectl vision corners "
                         "FRAME` 打印的写法 / four points x,y separated by ';', clockwise from W's left, "
                         "e.g. '102,88;1180,90;1175,900;98,905' or as `tablectl vision corners FRAME` prints them "
                         "('[[102, 88], [1180, 90], [1175, 900], [98, 905]]')")
    return pts


def _corners_problem(pts: list[list[float]], size: tuple[int, int]) -> str:
    """Why `--corners` cannot be the felt in a picture of `size` (width, height), or "" (`calibrate.corners_problem`,
    as `[camera] corners` is checked). Before, corners off the picture, "nan" or in a crossed order read nothing and
    exited 0, silently."""
    from vision.calibrate import corners_problem

    problem = corners_problem(pts, size)
    return f"--corners: {problem}" if problem else ""


def run_read(args: argparse.Namespace) -> int:
    from vision.calibrate import Calibration, CalibrationError
    from vision.enroll import EnrollmentError
    from vision.model import ModelError
    from vision.reader import ReadError, close_up_quad

    try:
        reader = _reader(args)
        img = _imread(args.image)
        light = _light_problem(img) if args.corners or close_up_quad(img) is None else ""  # a table frame
        if light:
            return _fail(f"{args.image}: {light}")
        if args.corners:
            pts = _corners(args.corners)
            problem = _corners_problem(pts, (img.shape[1], img.shape[0]))
            if problem:
                return _fail(problem)
            reader.calibration = Calibration.from_corners(pts)
        tiles = reader.read_image(img)
    except (ValueError, ModelError, EnrollmentError, CalibrationError, ReadError) as exc:
        return _fail(exc)
    if args.json:
        print(json.dumps({"tiles": [t.to_json() for t in tiles]}, ensure_ascii=False))
    else:
        from vision.kinds import chinese_name

        for t in tiles:
            flag = "" if t.accepted else "  ?请裁判确认"
            print(f"{t.zone or '-':10} {t.kind:5} {chinese_name(t.kind):4} {t.confidence:.3f} rot {t.rotation:3}{flag}")
        if not tiles:  # an empty answer on stdout read as "the command did nothing"
            within = (" --corners 之内", " within --corners") if args.corners else ("", "")
            print(f"{args.image}: 没有找到牌{within[0]} / no tiles found{within[1]}", file=sys.stderr)
    return 0


def run_corners(args: argparse.Namespace) -> int:
    from vision.bump import felt_problem, find_felt

    try:
        img = _imread(args.image)
    except ValueError as exc:
        return _fail(exc)
    light = _light_problem(img)
    if light:
        return _fail(f"{args.image}: {light}")
    found = find_felt(img)
    if found is None:  # why, as the finder saw it: the refusal blamed the edges, whatever the cause was
        zh, _, en = felt_problem(img).partition(" / ")
        return _fail(f"{args.image}: 画面中找不到完整的台面：{zh}；或手动选取四角（台面四边须全在画面中） / no felt found whole in "
                     f"the picture: {en or zh}; or pick the corners by hand")
    h, w = img.shape[:2]
    coarse = found.resolution_problem()
    if coarse:  # the corners are right, the camera is not: say so beside them
        print(f"tablectl vision: {args.image}: {coarse}", file=sys.stderr)
    if args.json:
        print(json.dumps({"corners": found.corners(), "corners_size": [w, h]}))
    else:
        print("[camera]")
        print(f"corners = {found.corners()}")
        print(f"corners_size = [{w}, {h}]")
    return 0


def _labels(labels: Path) -> list[tuple[str, str]]:
    """(file, kind) rows of a labels.csv; a row that is not a picture's name and a tile code is
    named with its line, so a typo is not scored as a wrong reading (before, a kind "zz" counted as
    a miss and a file with no kind as a picture not found)."""
    import csv

    from vision.kinds import KINDS

    if labels.is_dir():  # was "labels.csv not found" of a folder that is there
        raise ValueError(f"{labels}: 是文件夹而不是文件：文件夹中须有 file,kind 两栏的 labels.csv / a folder, not a file: "
                         "the folder needs a labels.csv file with columns file,kind")
    if not labels.is_file():
        raise ValueError(f"{labels}: 找不到：文件夹中须有 file,kind 两栏的 labels.csv / not found: the folder needs a "
                         "labels.csv with columns file,kind")
    try:  # utf-8-sig: a spreadsheet's UTF-8 file starts with a BOM, which hid the header 'file'
        with labels.open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            # each row with its line in the file (blank lines are skipped: counting rows named the wrong line)
            rows = [(reader.line_num, row) for row in reader]
    except UnicodeDecodeError as exc:
        raise ValueError(f"{labels}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8 CSV") from None
    if not rows or not {"file", "kind"} <= set(rows[0][1]):
        raise ValueError(f"{labels}: expected a header 'file,kind' and at least one row")
    bad = [f"line {i}: {(row.get('file') or '').strip()!r},{(row.get('kind') or '').strip()!r}"
           for i, row in rows if not (row.get("file") or "").strip() or (row.get("kind") or "").strip() not in KINDS]
    if bad:
        raise ValueError(f"{labels}: {len(bad)} row(s) without a file name and a tile code (1m..9m 1p..9p 1s..9s "
                         f"1z..7z 1f..8f back): " + "; ".join(bad[:5]) + (" ..." if len(bad) > 5 else ""))
    # a picture named twice is one picture: scored once (a row pasted twice counted it twice), and two kinds for it
    # is a labelling mistake to correct, not a reading to score half wrong
    first: dict[str, tuple[int, str]] = {}
    clash: list[str] = []
    for i, row in rows:
        file, kind = str(row["file"]).strip(), str(row["kind"]).strip()
        if file in first and first[file][1] != kind:
            clash.append(f"{file}: line {first[file][0]} says {first[file][1]}, line {i} {kind}")
        first.setdefault(file, (i, kind))
    if clash:
        raise ValueError(f"{labels}: {len(clash)} picture(s) labelled with two kinds: " + "; ".join(clash[:5])
                         + (" ..." if len(clash) > 5 else ""))
    return [(file, kind) for file, (_, kind) in first.items()]


def evaluate_dir(reader, directory: Path) -> dict:  # type: ignore[no-untyped-def]
    """Single-tile accuracy figures for a folder with labels.csv. ValueError when no picture of it
    could be read: figures of nothing are not figures (before: "n=0 top1=None", exit 0)."""
    if directory.is_file():
        raise ValueError(f"{directory}: 是文件而不是文件夹（请给出放 labels.csv 和图片的文件夹） / a file, not a folder (name "
                         "the folder that holds labels.csv and the pictures)")
    from vision.picture import shown

    rows = _labels(directory / "labels.csv")
    per_kind: dict[str, list[int]] = {}
    accepted = correct_accepted = correct = 0
    unreadable: list[str] = []
    why: dict[str, str] = {}  # each picture not read, and what is wrong with it (`vision.picture`)
    for file, kind in rows:
        try:
            img = _imread(directory / file)
        except ValueError as exc:
            unreadable.append(file)
            why[file] = str(exc).removeprefix(f"{shown(directory / file)}: ")
            continue
        r = reader.read_single(img)
        ok = int(r.kind == kind)
        correct += ok
        per_kind.setdefault(kind, [0, 0])
        per_kind[kind][0] += ok
        per_kind[kind][1] += 1
        if r.accepted:
            accepted += 1
            correct_accepted += ok
    n = sum(v[1] for v in per_kind.values())
    if not n:
        more = " ..." if len(unreadable) > 5 else ""
        raise ValueError(f"{directory}: none of the {len(rows)} pictures labels.csv names could be read: "
                         + "; ".join(f"{f} ({why[f]})" for f in unreadable[:5]) + more)
    return {"n": n, "top1": round(correct / n, 4),
            "per_kind": {k: round(v[0] / v[1], 4) for k, v in sorted(per_kind.items())},
            "threshold": reader.threshold,
            "coverage_at_threshold": round(accepted / n, 4),
            "accuracy_at_threshold": round(correct_accepted / accepted, 4) if accepted else None,
            "unreadable": unreadable, "unreadable_why": why}


def run_eval(args: argparse.Namespace) -> int:
    from vision.enroll import EnrollmentError
    from vision.model import ModelError

    try:
        figures = evaluate_dir(_reader(args), args.dir)
    except (ValueError, ModelError, EnrollmentError) as exc:
        return _fail(exc, "" if isinstance(exc, (ModelError, EnrollmentError)) else "无法测评")
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        n, top1, at = figures["n"], figures["top1"], figures["threshold"]
        coverage, accuracy = figures["coverage_at_threshold"], figures["accuracy_at_threshold"]
        print(f"{n} 张：首选正确率 {top1}；置信度阈值 {at} 下自动认出 {coverage}，其正确率 {accuracy} / n={n} top1={top1} "
              f"coverage@{at}={coverage} accuracy@threshold={accuracy}")
        for k, v in figures["per_kind"].items():
            print(f"  {k:5} {v:.3f}")
        if figures["unreadable"]:
            skipped = figures["unreadable"]
            why = "; ".join(f"{f} ({figures['unreadable_why'][f]})" for f in skipped)
            print(f"未能读取 {len(skipped)} 张 / not read ({len(skipped)}): {why}")
    return 0


def run_enroll(args: argparse.Namespace) -> int:
    from vision.enroll import Enrollment, EnrollmentError
    from vision.kinds import FACE_KINDS, KINDS
    from vision.model import DEFAULT_MODEL, ModelError
    from vision.calibrate import Calibration, CalibrationError
    from vision.picture import shown
    from vision.reader import ReadError, TileReader

    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] or list(FACE_KINDS)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:  # else told only as a count of tiles that does not match ("2 kinds were to be laid out")
        return _fail(f"--kinds: {'、'.join(unknown)} 不是牌的代码 / {', '.join(unknown)}: not tile codes (1m..9m 1p..9p "
                     "1s..9s 1z..7z 1f..8f back)")
    # the file is saved as .npz whatever --out says (numpy's way): `--out table` wrote table.npz, said
    # "wrote table", and a second run did not see it, so it started afresh and overwrote it
    if args.out.suffix != ".npz":
        args.out = args.out.with_name(args.out.name + ".npz")
    try:
        corners = _corners(args.corners) if args.corners else None
        enrollment = Enrollment.load(args.out) if args.out.exists() else Enrollment()
        if args.model:
            _utf8("--model", str(args.model))
        reader = TileReader(args.model or DEFAULT_MODEL, enrollment=enrollment)
    except (ValueError, ModelError, EnrollmentError) as exc:
        return _fail(exc)
    done: list[str] = []

    def refused(path: Path, why: object) -> int:
        """A frame that will not do: named, and nothing written (the frames before it said "enrolled"
        and were lost without a word when a later one failed)."""
        from table_controller.cli import chinese_first

        before_zh = f"，{'、'.join(done)} 也未保留：请用可用的画面重新学牌" if done else ""
        before = f"; {', '.join(done)} not kept either: enroll again with the frames that pass" if done else ""
        _fail(f"{shown(path)}: {chinese_first('此画面不能用', str(why))}")
        print(f"未写入 {args.out}{before_zh} / nothing written to {args.out}{before}", file=sys.stderr)
        return 1

    for path in args.images:
        try:
            img = _imread(path)
        except ValueError as exc:
            return refused(path, str(exc).removeprefix(f"{shown(path)}: "))
        light = _light_problem(img)
        if light:
            return refused(path, light)
        # each picture calibrates from its own markers, or from the corners given (a table without
        # markers could not enroll at all: "saw 0 of the 4 corner markers")
        reader.calibration = None
        if corners is not None:
            problem = _corners_problem(corners, (img.shape[1], img.shape[0]))
            if problem:
                return refused(path, problem)
            reader.calibration = Calibration.from_corners(corners)
        try:
            reader.enroll(img, kinds, check=not args.laid_in_order)
        except CalibrationError as exc:
            return refused(path, f"{exc}\n无标记的牌桌请用 --corners 给出台面四角（`tablectl vision corners FRAME` 可找出）"
                                 "/ a table without markers: give the felt's corners with --corners (`tablectl vision "
                                 "corners FRAME` finds them)")
        except (ValueError, EnrollmentError, ReadError) as exc:
            return refused(path, exc)
        done.append(shown(path))
        print(f"{shown(path)}: 已学 {len(kinds)} 张牌 / {len(kinds)} tiles enrolled")
    assert reader.enrollment is not None
    try:
        reader.enrollment.save(args.out)
    except OSError as exc:  # --out where nothing can be written (was a traceback after the work was done)
        return _fail(f"{args.out}: 无法写入牌样文件（{exc.strerror or exc}） / cannot write the enrollment file: "
                     f"{exc.strerror or exc}")
    examples, kinds_covered = len(reader.enrollment), len(reader.enrollment.kinds_covered())
    print(f"已写入 {args.out}：{kinds_covered} 种牌，{examples} 个样本 / wrote {args.out}: {examples} examples of "
          f"{kinds_covered} kinds")
    return 0


def run_train(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        return _fail("训练需要 torch：pip install -e '.[train]'（CPU 版即可） / training needs torch: pip install -e "
                     "'.[train]' (a CPU build is enough)")
    from vision.model import DEFAULT_MODEL
    from vision.train import TrainConfig, train

    report = train(TrainConfig(samples=args.samples, epochs=args.epochs, seed=args.seed, threads=args.threads,
                               restyle=args.restyle, more_fonts=args.more_fonts,
                               brush_fonts=args.brush_fonts, big_chars=args.big_chars,
                               flower_share=args.flower_share),
                   args.out or DEFAULT_MODEL)
    print(json.dumps(report, indent=2))
    return 0


def run_render(args: argparse.Namespace) -> int:
    from tablesim.scenes.render import SceneOptions, render_scene, render_single_tile
    from vision.picture import save_picture
    from vision.tileart import TileArtError, load_style

    try:
        faces = load_style(args.style)
    except TileArtError as exc:
        return _fail(exc)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # was a traceback (a file where the folder should be, no right to write)
        return _fail(f"{args.out}: 无法建立文件夹（{exc.strerror or exc}） / cannot make the folder: {exc.strerror or exc}")
    rows = ["file,kind"]
    for i in range(args.singles):
        for j, f in enumerate(faces):
            name = f"{f.kind}-{i}-{j}.png"
            save_picture(args.out / name, render_single_tile(f.image, args.seed + i * 1000 + j))
            rows.append(f"{name},{f.kind}")
    (args.out / "labels.csv").write_text("\n".join(rows) + "\n")
    for s in range(args.scenes):
        scene = render_scene(faces, args.seed + s, SceneOptions())
        save_picture(args.out / f"scene-{s}.jpg", scene.image)
        (args.out / f"scene-{s}.json").write_text(json.dumps({"tiles": scene.tiles}, ensure_ascii=False))
    print(f"已写入 {args.out}：单张牌图片 {len(rows) - 1} 张，整桌画面 {args.scenes} 幅 / wrote {len(rows) - 1} single-tile "
          f"pictures and {args.scenes} scenes to {args.out}")
    return 0


def run_grab(args: argparse.Namespace) -> int:
    """A frame from the camera, written, with what the reader will make of the picture."""
    import cv2

    from table_controller.preflight import no_picture_hint, undecodable_hint
    from vision.calibrate import find_markers
    from vision.picture import save_picture
    from vision.camera import open_capture
    from vision.geometry import MARKER_IDS
    from vision.health import CameraHealth

    if args.out.suffix.lower() not in (".jpg", ".jpeg", ".png"):
        return _fail(f"{args.out}: 请给出 .jpg 或 .png 文件名 / name a .jpg or .png file")
    try:
        cap = open_capture(_utf8("camera", args.source))
    except ValueError as exc:
        return _fail(exc, "无法打开摄像头")
    frame = None
    try:
        for _ in range(max(1, args.frames)) if cap.isOpened() else ():
            ok, img = cap.read()
            if not ok:
                break
            frame = img
    finally:
        cap.release()
    if frame is None:
        zh, en = no_picture_hint(args.source)
        return _fail(f"{args.source}: 没有画面（{zh}） / no picture ({en})")
    undecodable = undecodable_hint(args.source)  # OpenCV may decode a damaged part to noise: not the picture
    if undecodable:
        return _fail(f"{args.source}: {undecodable}")
    try:
        save_picture(args.out, frame)
    except (OSError, cv2.error) as exc:
        why = getattr(exc, "strerror", None) or exc
        return _fail(f"{args.out}: 无法写入图片（{why}） / cannot write the picture: {why}")
    h, w = frame.shape[:2]
    health = CameraHealth().check(frame).to_json()
    seen = sorted(find_markers(frame))
    print(f"{args.out}: {w}×{h}, {health['message']} / {health['message_en']}"
          + (f" ({health['detail']})" if health["detail"] else ""))
    print(f"台角标记 {len(seen)}/{len(MARKER_IDS)}" + (f"（编号 {seen}）" if seen else "")
          + f" / corner markers: {len(seen)} of {len(MARKER_IDS)}" + (f" (ids {seen})" if seen else "")
          + ("" if len(seen) >= 3 else
             ": 标记不足 3 个时请清空四角、检查对焦；无标记的牌桌用 `tablectl vision corners` 找台面四角 / fewer than 3: "
             "clear the corners, check the focus; a table without markers: `tablectl vision corners` finds the felt"))
    if len(seen) >= 3:
        from vision.calibrate import CalibrationError, calibrate_aruco

        try:
            calibration = calibrate_aruco(frame)
        except CalibrationError:
            calibration = None
        if calibration is not None:
            least, most = calibration.px_per_mm()
            print(f"台面清晰度 / felt resolution: {least:.2f}-{most:.2f} px/mm"
                  + (f": {calibration.resolution_problem()}" if calibration.resolution_problem() else ""))
    return 0 if health["ok"] else 1


def run_camera(args: argparse.Namespace) -> int:
    import time

    from tablesim.scenes.camera import VirtualCamera, scene_source
    from tablesim.scenes.render import SceneOptions, enrollment_layout, play_layout
    from vision.kinds import FACE_KINDS
    from vision.tileart import TileArtError, load_style

    try:
        faces = list(load_style(args.style))
    except TileArtError as exc:
        return _fail(exc)
    opts = SceneOptions(markers=not args.no_markers)
    if args.layout == "enroll" and not set(FACE_KINDS) <= {f.kind for f in faces}:
        missing = sorted(set(FACE_KINDS) - {f.kind for f in faces})
        return _fail(f"{args.style} 缺少 {'、'.join(missing)}：请换一种 --style 以摆出全部 42 种牌 / {args.style} has no "
                     f"{', '.join(missing)}: another --style to lay all 42 kinds out")
    # either layout on one felt under one camera (`pose_seed`): the corners found on the one fit the other
    tiles = enrollment_layout(FACE_KINDS) if args.layout == "enroll" else play_layout(faces, args.seed, opts)
    source = scene_source(faces, args.seed, opts, tiles=tiles, pose_seed=args.seed)
    try:
        cam = VirtualCamera(source, host=args.host, port=args.port).start()
    except OSError as exc:  # was a traceback from socketserver
        return _fail(f"无法在 {args.host}:{args.port} 上服务（{exc.strerror or exc}）：换一个 --port？ / cannot serve on "
                     f"{args.host}:{args.port}: {exc.strerror or exc} (another --port?)")
    print(f"虚拟摄像头 {cam.url}（Ctrl-C 停止） / virtual camera at {cam.url} (Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(1)
    finally:
        cam.stop()
