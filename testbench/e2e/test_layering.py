#!/usr/bin/python3
"""The shape rules of docs/DESIGN.md "Cores and shells" and "Seams", checked on the source:

1. Every core is plain C++: no file reachable through the project's own #includes from a
   core (model/**/*_core.{h,cpp}, model/ordering, model/sender, model/wire, model/sram,
   model/core, tlm/pcie_link_core) includes <systemc>, <tlm> or <tlm_utils/...>.
2. Every ORNIC block of Figure 1 (and Eunomia's agents, the MAC, the DMA Engine, the PCIe
   link) has a core file.
3. The blocks do not branch on a scheme's name: no `ordering ==`, `scheme ==`,
   `recovery ==` comparisons in model/ (the seams' tables carry the differences).
4. No `using namespace` in a header.
5. No string is compared per frame: no `strcmp` in model/, tlm/ or platforms/ (verdicts
   and modes are enums or flags), and in the code that runs per packet (model/, tlm/, the
   switch and its hooks, link, THEMIS and path-selection code, the host driver, the
   fabric's checker)
   a string literal is compared only where a member is set once from a parameter (an
   initializer `flag_(p.mode == "x")` or `flag_ = p.mode == "x";`) or on a line marked
   `// once` (a factory or a parameter check). Parameter tables (*_params.cpp) are
   exempt: they run before the kernel.
6. No include cycle between the folders of model/ (model/<folder>/...), nor between those
   of platforms/: each folder graph of the project's own #includes is acyclic (a scheme's folder such as model/eunomia
   depends on the seams it plugs into; the tables that list every scheme live in
   model/schemes/, above them all).
7. No function in platforms/ is longer than 150 lines (a function defined at namespace
   scope in a .cpp, from its signature's line to its closing brace): a platform reads as
   its phases (read, build, run, check, write), each a function.
Each failure names the file and line.
"""
import os
import re
import sys

ROOT = os.environ.get("OONIC_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
KERNEL = re.compile(r"^(systemc|systemc\.h|tlm|tlm\.h|tlm_utils/.*|sysc/.*)$")


def rel(p):
    return os.path.relpath(p, ROOT)


def includes(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                out.append((n, m.group(1), m.group(2)))
    return out


def kernel_path(start):
    """The chain of includes from start to a SystemC header, or None."""
    seen = set()
    stack = [(start, [rel(start)])]
    while stack:
        path, chain = stack.pop()
        if path in seen:
            continue
        seen.add(path)
        for n, kind, name in includes(path):
            if KERNEL.match(name):
                return chain[:-1] + [f"{chain[-1]}:{n}", f"<{name}>"]
            if kind == '"':
                p = os.path.join(ROOT, name)
                if os.path.isfile(p):
                    stack.append((p, chain[:-1] + [f"{chain[-1]}:{n}", rel(p)]))
    return None


def strip_code(src):
    """src without comments and string or character literals (newlines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * src.count("\n", i, j))
            i = j
            continue
        m = re.match(r'R"([^(]*)\(', src[i:i + 20]) if src.startswith('R"', i) else None
        if m:
            end = ")" + m.group(1) + '"'
            j = src.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j
            continue
        c = src[i]
        if c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def long_functions(path, limit):
    """(name, first line, lines) of each namespace-scope function body over limit lines."""
    s = strip_code(open(path, encoding="utf-8").read())
    found, stack, head_start, line = [], [], 0, 1
    for i, c in enumerate(s):
        if c == "\n":
            line += 1
        elif c == "{":
            h = s[head_start:i].strip()
            kind = "other"
            if all(k == "ns" for k in stack):
                if re.search(r"\bnamespace\b", h) or h.startswith('extern "'):
                    kind = "ns"
                elif re.match(r"(template\s*<[^>]*>\s*)?(class|struct|union|enum)\b", h) \
                        or h.endswith("="):
                    kind = "type"
                elif "(" in h:
                    words = h.split("(")[0].split()
                    kind = ("fn", line, words[-1] if words else "?")
            stack.append(kind)
            head_start = i + 1
        elif c == "}":
            if stack:
                k = stack.pop()
                if isinstance(k, tuple) and line - k[1] + 1 > limit:
                    found.append((k[2], k[1], line - k[1] + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def files(under, pred):
    for d, _, names in os.walk(os.path.join(ROOT, under)):
        for n in sorted(names):
            p = os.path.join(d, n)
            if pred(p):
                yield p


def folder_cycles(top, edges):
    """Cycles in the folder graph edges (folder -> {folder: where}) of top/."""
    problems, state, path = [], {}, []

    def visit(f):
        state[f] = 1
        path.append(f)
        for g in sorted(edges.get(f, {})):
            if state.get(g) == 1:
                cyc = path[path.index(g):] + [g]
                why = ", ".join(f"{a} -> {b} ({edges[a][b]})" for a, b in zip(cyc, cyc[1:]))
                problems.append(f"{top}/ folders include each other in a cycle: {why}")
            elif g not in state:
                visit(g)
        path.pop()
        state[f] = 2

    for f in sorted(edges):
        if f not in state:
            visit(f)
    return problems


def main():
    problems = []

    # 1. Cores are plain C++.
    plain_dirs = ["model/ordering", "model/sender", "model/wire", "model/sram", "model/core",
                  "model/schemes"]
    cores = list(files("model", lambda p: re.search(r"_core\.(h|cpp)$", p)))
    cores.append(os.path.join(ROOT, "tlm/pcie_link_core.h"))
    cores.append(os.path.join(ROOT, "tlm/pcie_link_core.cpp"))
    for d in plain_dirs:
        cores += list(files(d, lambda p: p.endswith((".h", ".cpp"))))
    # model/core's two SystemC adapters, used by shells only: a clock domain's sc_time
    # conversion and the SC_REPORT handler.
    shell_side = ("model/core/clock.h", "model/core/report.h", "model/core/report.cpp")
    cores = [c for c in cores if not rel(c).startswith(shell_side)]
    for c in sorted(set(cores)):
        chain = kernel_path(c)
        if chain:
            problems.append(f"{rel(c)}: a core reaches the SystemC kernel: {' -> '.join(chain)}")

    # 2. Every block has its core.
    blocks = [
        "model/ornic/rx/rx_parser_core.h", "model/ornic/rx/req_processor_core.h",
        "model/ornic/rx/rsp_processor_core.h", "model/ornic/control/req_manager_core.h",
        "model/ornic/control/rsp_manager_core.h", "model/ornic/control/cqe_manager_core.h",
        "model/ornic/tx/qp_manager_core.h", "model/ornic/tx/hdr_generator_core.h",
        "model/ornic/tx/tx_arbiter_core.h", "model/ornic/dma_engine_core.h",
        "model/ornic/mac_core.h", "model/eunomia/packet_driver_core.h",
        "model/eunomia/hd_bitmap_core.h", "model/eunomia/memory_controller_core.h",
        "model/eunomia/sender_agent_core.h", "tlm/pcie_link_core.h",
    ]
    for b in blocks:
        if not os.path.isfile(os.path.join(ROOT, b)):
            problems.append(f"{b}: missing (every block has a plain C++ core)")

    # 3. No branching on scheme names inside the model.
    # (`== "auto"` is a parameter's own value, not a scheme.)
    name_compare = re.compile(r'\b(ordering|scheme|recovery|scheme_)\s*[!=]=\s*"(?!auto")')
    for p in files("model", lambda p: p.endswith((".h", ".cpp"))):
        with open(p, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if name_compare.search(line):
                    problems.append(f"{rel(p)}:{n}: compares a scheme name: {line.strip()}")

    # 5. No per-frame string compares.
    strcmp = re.compile(r"\bstr(n)?cmp\s*\(")
    for top in ["model", "tlm", "platforms"]:
        for p in files(top, lambda p: p.endswith((".h", ".cpp"))):
            with open(p, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if strcmp.search(line.split("//")[0]):
                        problems.append(f"{rel(p)}:{n}: strcmp (compare an enum): {line.strip()}")
    literal = re.compile(r'[!=]=\s*"')
    set_once = re.compile(r'^\s*(\w+_\(|\w+_\s*=[^=])')
    tables = ("_params.cpp", "core/config.cpp", "core/params.cpp")  # before the kernel
    hot = [p for p in files("model", lambda p: p.endswith(".cpp") and
                            not p.endswith(tables))]
    hot += files("tlm", lambda p: p.endswith(".cpp"))
    hot += [os.path.join(ROOT, "platforms", x) for x in (
        "network/switch.cpp", "network/switch_core.cpp", "network/link_core.cpp",
        "network/network_link.cpp", "network/themis.cpp", "network/path_select.cpp",
        "host/host_driver.cpp", "host/flow_check.cpp", "system/run.cpp")]
    hot += files("platforms/network/hooks", lambda p: p.endswith(".cpp"))
    for p in hot:
        with open(p, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                code = line.split("//")[0]
                if literal.search(code) and not set_once.match(line) and "// once" not in line:
                    problems.append(f"{rel(p)}:{n}: compares a string outside a one-time "
                                    f"setting: {line.strip()}")

    # 6. The folders of model/, and those of platforms/, include each other without a cycle.
    for top in ("model", "platforms"):
        edges = {}  # folder -> {folder: "file:line"} (the first include that makes the edge)
        for p in files(top, lambda p: p.endswith((".h", ".cpp"))):
            src = rel(p).split(os.sep)[1]
            for n, kind, name in includes(p):
                parts = name.split("/")
                if kind == '"' and len(parts) > 2 and parts[0] == top and parts[1] != src:
                    edges.setdefault(src, {}).setdefault(parts[1], f"{rel(p)}:{n}")
        problems += folder_cycles(top, edges)

    # 7. Functions in platforms/ stay short.
    for p in files("platforms", lambda p: p.endswith(".cpp")):
        for name, first, length in long_functions(p, 150):
            problems.append(f"{rel(p)}:{first}: {name} is {length} lines (at most 150: split it "
                            f"into its phases)")

    # 4. No using-directives in headers.
    for top in ["model", "tlm", "platforms", "testbench"]:
        for p in files(top, lambda p: p.endswith(".h")):
            with open(p, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if re.match(r"\s*using\s+namespace\b", line):
                        problems.append(f"{rel(p)}:{n}: `using namespace` in a header")

    for p in problems:
        print(p)
    if problems:
        print(f"FAIL: {len(problems)} layering problem(s)")
        return 1
    print(f"ok: {len(set(cores))} core files plain C++, {len(blocks)} block cores present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
