#!/usr/bin/env python3
"""autofdo-overlap.py: how well AutoFDO profiles match a run's exact line counts.

usage: autofdo-overlap.py [-v] [--top N] --root DIR --gcov JSON.gz... \\
           --profile LABEL gcc|llvm BINARY PROFILE [--binary-root LABEL=DIR] [--profile ...]

The metric (docs/autofdo.md, "Accuracy"):
- a line is (source file under --root, line number), discriminators merged;
- q(line): gcov's execution count of the line (a `gcc --coverage` build of
  the same program run on the same input, `gcov --json-format`);
- p(line): the count the profile gives the line, read as the compiler reads
  the file: a body entry at offset o of function instance F is line
  decl_line(F) + o of decl_file(F), from the DWARF of BINARY (the binary the
  profile was made from; its sources are --binary-root, default --root);
  within one instance a line's count is its largest entry (gcc 12: the last
  one it reads, discriminator masked off, and callsites only at
  discriminator 0); the instances of a line (the function's own body, each
  inlined copy) add up, as gcov counts every copy;
- the lines measured are gcov's (lines with a statement) that own code in
  BINARY, except those that open a function (gcov counts calls there);
- units: measured lines whose code lies in the same basic blocks of BINARY
  are one unit (no profile of BINARY can tell them apart: an if-converted
  `if` is one block); q of each line gcov saw run is raised to the largest q
  of its unit (its code runs as often as those blocks, at least that often);
- p^, q^: each normalised to sum 1 over the measured lines where p or q is
  non-zero; overlap = sum of min(p^, q^).

Prints the overlaps of the hottest functions (by q), then one line
"overlap LABEL: 0.NNN" per profile, in the order given; -v lists the lines
that lose the most.

Python, not C: gcov's output is gzipped JSON, the profiles are read as the
compilers read them, the line tables through llvm-dwarfdump and the blocks
through objdump; this is a measuring tool for the benches and tests, not
part of ocrec.
"""
import argparse
import bisect
import collections
import gzip
import json
import os
import re
import struct
import subprocess
import sys

LLVM_BIN = os.environ.get("LLVM_BIN", "/usr/lib/llvm-14/bin")


def fail(msg):
    sys.exit(f"autofdo-overlap.py: {msg}")


def under_root(path, root):
    path = os.path.normpath(path)
    return path == root or path.startswith(root + os.sep)


# --- the functions of a binary: name -> (file, decl line), from its DWARF ---
DIE_RE = re.compile(r"^(0x[0-9a-f]+):\s+(DW_TAG_\w+|NULL)")
ATTR_RE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)\)$")


def dwarfdump(binary, what):
    try:
        return subprocess.run([f"{LLVM_BIN}/llvm-dwarfdump", what, binary], check=True,
                              capture_output=True, text=True, errors="replace").stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"{binary}: llvm-dwarfdump {what} failed: {e}")


def dwarf_functions(binary):
    """{linkage or plain name: (decl_file, decl_line)} of every subprogram,
    following DW_AT_specification and DW_AT_abstract_origin for what a DIE
    leaves out (C++ methods, out-of-line copies of inline functions); and
    {line table offset: compilation directory} of the compile units."""
    dies = {}
    cus = []
    cur = cu = None
    for line in dwarfdump(binary, "--debug-info").splitlines():
        m = DIE_RE.match(line)
        if m:
            tag = m.group(2)
            cur = {} if tag == "DW_TAG_subprogram" else None
            if cur is not None:
                dies[int(m.group(1), 16)] = cur
            if tag == "DW_TAG_compile_unit":
                cu = {}
                cus.append(cu)
                cur = cu
            continue
        if cur is None:
            continue
        m = ATTR_RE.match(line)
        if not m:
            continue
        attr, val = m.group(1), m.group(2)
        if cur is cu:
            if attr == "DW_AT_comp_dir":
                cu["dir"] = val.strip('"')
            elif attr == "DW_AT_stmt_list":
                cu["lines"] = int(val, 16)
        elif attr == "DW_AT_declaration":
            cur["decl_only"] = True
        elif attr in ("DW_AT_name", "DW_AT_linkage_name", "DW_AT_decl_file"):
            cur[attr] = val.strip('"')
        elif attr == "DW_AT_decl_line":
            cur[attr] = int(val, 0)
        elif attr in ("DW_AT_specification", "DW_AT_abstract_origin"):
            cur["ref"] = int(val.split()[0], 16)

    def field(die, attr, depth=0):
        while die is not None and depth < 8:
            if attr in die:
                return die[attr]
            die = dies.get(die.get("ref"))
            depth += 1
        return None

    funcs = {}
    for die in dies.values():
        if die.get("decl_only"):
            continue   # a prototype: its line is not the definition's
        file, line = field(die, "DW_AT_decl_file"), field(die, "DW_AT_decl_line")
        if file is None or line is None:
            continue
        for attr in ("DW_AT_linkage_name", "DW_AT_name"):
            name = field(die, attr)
            if name:
                funcs.setdefault(name, (os.path.normpath(file), line))
    return funcs, {cu["lines"]: cu.get("dir", "") for cu in cus if "lines" in cu}


TABLE_RE = re.compile(r"^debug_line\[(0x[0-9a-f]+)\]")
DIR_RE = re.compile(r'^include_directories\[\s*(\d+)\] = "(.*)"$')
FILE_RE = re.compile(r"^file_names\[\s*(\d+)\]:")
ROW_RE = re.compile(r"^0x([0-9a-f]+)\s+(\d+)\s+\d+\s+(\d+)\s+\d+\s+\d+\s*(.*)$")


def code_lines(binary, comp_dirs):
    """{(file, line): [(start, end), ...]}: the address ranges of the
    binary's code each line owns (DWARF line table rows of non-zero
    length)."""
    lines = collections.defaultdict(list)
    dirs, files = {}, {}
    comp = ""
    prev = None
    cur_file = None
    for text in dwarfdump(binary, "--debug-line").splitlines():
        m = TABLE_RE.match(text)
        if m:
            comp = comp_dirs.get(int(m.group(1), 16), "")
            dirs, files, prev = {0: comp}, {}, None
            continue
        m = DIR_RE.match(text)
        if m:
            dirs[int(m.group(1))] = m.group(2)
            comp = comp or dirs[0]
            continue
        m = FILE_RE.match(text)
        if m:
            cur_file = int(m.group(1))
            files[cur_file] = ["", 0]
            continue
        stripped = text.strip()
        if cur_file is not None and stripped.startswith("name:"):
            files[cur_file][0] = stripped.split(":", 1)[1].strip().strip('"')
            continue
        if cur_file is not None and stripped.startswith("dir_index:"):
            files[cur_file][1] = int(stripped.split(":", 1)[1])
            continue
        m = ROW_RE.match(text)
        if not m:
            continue
        addr, line, file, flags = int(m.group(1), 16), int(m.group(2)), int(m.group(3)), m.group(4)
        if prev and addr > prev[0]:
            lines[(prev[1], prev[2])].append((prev[0], addr))
        prev = None if "end_sequence" in flags else (addr, file, line)
        if prev:
            name, d = files.get(file, ("", 0))
            path = os.path.join(comp, dirs.get(d, ""), name)
            prev = (addr, os.path.normpath(path), line)
    return lines


# --- the binary's basic blocks ---
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
SYMBOL_RE = re.compile(r"^([0-9a-f]+) <.*>:$")
TARGET_RE = re.compile(r"^([0-9a-f]+) <")
RIP_ADDR_RE = re.compile(r"^lea\s+.*\(%rip\),%\w+\s+# ([0-9a-f]+)")
ABS_TABLE_RE = re.compile(r"^jmp\s+\*0x([0-9a-f]+)\(,%\w+,8\)")
PREFIXES = {"bnd", "notrack", "rep", "repz", "repnz", "repe", "repne", "lock", "ds", "cs", "data16", "addr32"}
ENDS_BLOCK = {"ret", "retq", "iret", "iretq", "ud2", "hlt", "loop", "loope", "loopne"}


def data_sections(binary):
    """read(address, size) -> bytes of the binary's loaded, non-executable
    sections (where jump tables are), or None elsewhere."""
    try:
        data = open(binary, "rb").read()
    except OSError as e:
        fail(f"{binary}: {e}")
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail(f"{binary}: not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3a)
    sections = []
    for i in range(shnum):
        _, kind, flags, addr, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        if flags & 0x2 and not flags & 0x4 and kind != 8:   # SHF_ALLOC, not SHF_EXECINSTR or NOBITS
            sections.append((addr, offset, size))

    def read(address, size):
        for addr, offset, length in sections:
            if addr <= address and address + size <= addr + length:
                return data[offset + address - addr:offset + address - addr + size]
        return None
    return read


def jump_table_targets(read, start, end, bases, absolute):
    """The targets of a function's switch tables: 32-bit offsets from a base
    the function loads with `lea base(%rip)` (gcc's and clang's tables), or
    64-bit addresses (`jmp *table(,%reg,8)`); entries are read while they
    land inside the function."""
    targets = set()
    for base, width in [(b, 4) for b in bases] + [(a, 8) for a in absolute]:
        for i in range(4096):
            raw = read(base + width * i, width)
            if raw is None:
                break
            target = base + struct.unpack("<i", raw)[0] if width == 4 else struct.unpack("<Q", raw)[0]
            if not start <= target < end:
                break
            targets.add(target)
    return targets


def block_leaders(binary):
    """The sorted start addresses of the binary's basic blocks, from `objdump
    -d`: each function's start, each direct jump's target, each target of its
    switch tables, each instruction after a jump or a return. Calls do not
    end a block (they return; a call that does not is last before a jump
    target anyway)."""
    try:
        text = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", binary], check=True,
                              capture_output=True, text=True, errors="replace").stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"{binary}: objdump -d failed: {e}")
    read = data_sections(binary)
    leaders = set()
    after_jump = False
    func = None   # [start, last address, lea bases, absolute tables, jumps through a register]

    def end_function():
        if func and func[4]:
            leaders.update(jump_table_targets(read, func[0], func[1] + 1, func[2], func[3]))

    for line in text.splitlines():
        m = SYMBOL_RE.match(line)
        if m:
            end_function()
            func = [int(m.group(1), 16), int(m.group(1), 16), set(), set(), False]
            leaders.add(func[0])
            continue
        m = INSN_RE.match(line)
        if not m or func is None:
            continue
        addr = int(m.group(1), 16)
        func[1] = addr
        if after_jump:
            leaders.add(addr)
        words = m.group(2).split()
        while words and words[0] in PREFIXES:
            words.pop(0)
        insn = " ".join(words)
        mnemonic = words[0] if words else ""
        after_jump = mnemonic.startswith("j") or mnemonic in ENDS_BLOCK
        if after_jump and len(words) > 1:
            t = TARGET_RE.match(" ".join(words[1:]))
            if t:
                leaders.add(int(t.group(1), 16))
            elif words[1].startswith("*%"):
                func[4] = True
            t = ABS_TABLE_RE.match(insn)
            if t:
                func[3].add(int(t.group(1), 16))
                func[4] = True
        t = RIP_ADDR_RE.match(insn)
        if t:
            func[2].add(int(t.group(1), 16))
    end_function()
    return sorted(leaders)


def line_units(ranges, leaders):
    """{line: unit}: lines whose code lies in the same basic blocks are one
    unit, named by its first line. They run equally often in the binary: an
    if-converted `if` (both arms computed, one picked with cmov) is one block
    however gcov counts its arms."""
    by_blocks = collections.defaultdict(list)
    for key, spans in ranges.items():
        blocks = set()
        for start, end in spans:
            i = bisect.bisect_right(leaders, start) - 1
            blocks.add(leaders[i] if i >= 0 else start)
            j = bisect.bisect_left(leaders, end)
            blocks.update(leaders[i + 1:j])
        by_blocks[frozenset(blocks)].append(key)
    unit = {}
    for keys in by_blocks.values():
        first = min(keys)
        unit.update((k, first) for k in keys)
    return unit


def unit_counts(counts, unit):
    """Each line's count raised to the largest in its unit: its code runs as
    often as its blocks, and they run at least as often as its unit's most-run
    line. A line counted 0 stays 0: its block then holds the only code of a
    line that ran in copies the binary credits to other lines (gawk's
    eval.c:1228 `return lhs;` beside line 1226's lintwarn), and never ran."""
    best = collections.Counter()
    for key, u in unit.items():
        best[u] = max(best[u], counts.get(key, 0))
    return collections.Counter({key: best[u] if counts.get(key, 0) else 0 for key, u in unit.items()})


# --- profiles, read as the compilers read them ---
class Instance:
    """A function instance: counts by line offset (discriminators merged as
    the compiler merges them) and inlined callees by (offset, name)."""

    def __init__(self, name):
        self.name = name
        self.lines = {}
        self.callsites = {}


def read_gcc_profile(path):
    """gcc 12's auto-profile.cc: offsets masked to their line part, the
    last count read for a line wins, callsites keyed by their raw offset
    (looked up with discriminator 0), the last function of a name wins."""
    data = open(path, "rb").read()
    pos = 0

    def u32():
        nonlocal pos
        if pos + 4 > len(data):
            fail(f"{path}: truncated")
        v = struct.unpack_from("<I", data, pos)[0]
        pos += 4
        return v

    def counter():
        lo = u32()
        return lo | u32() << 32

    if u32() != 0x67636461 or u32() != 2:
        fail(f"{path}: not a gcc 12 AutoFDO profile (magic or version)")
    u32()
    if u32() != 0xaa000000:
        fail(f"{path}: no string table")
    u32()
    names = []
    for _ in range(u32()):
        n = u32()
        names.append(data[pos:pos + n].rstrip(b"\0").decode(errors="replace"))
        pos += n

    def instance():
        inst = Instance(names[u32()])
        npos, ncalls = u32(), u32()
        for _ in range(npos):
            offset = u32() >> 16
            ntargets = u32()
            inst.lines[offset] = counter()
            for _ in range(ntargets):
                u32(), counter(), counter()
        for _ in range(ncalls):
            raw = u32()
            callee = instance()
            if raw & 0xffff == 0:
                inst.callsites[(raw >> 16, callee.name)] = callee
        return inst

    if u32() != 0xac000000:
        fail(f"{path}: no function section")
    u32()
    top = {}
    for _ in range(u32()):
        counter()
        inst = instance()
        top[inst.name] = inst
    return list(top.values())


LLVM_BODY_RE = re.compile(r"^( *)(\d+)(?:\.(\d+))?: (\d+)")
LLVM_CALLSITE_RE = re.compile(r"^( *)(\d+)(?:\.(\d+))?: (\S+):(\d+)$")


def read_llvm_profile(path):
    """llvm-profdata 14 reads the file (text or binary) and writes it as text;
    within an instance a line's count is its largest (offset, discriminator)
    entry, as clang's loader takes a block's count from its hottest line."""
    try:
        text = subprocess.run([f"{LLVM_BIN}/llvm-profdata", "merge", "--sample", "--text", path, "-o", "-"],
                              check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        fail(f"{path}: llvm-profdata cannot read it: {e}")
    top = []
    stack = []   # (depth, instance)
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("!"):
            continue
        if not line.startswith(" "):
            name = line.rsplit(":", 2)[0]
            inst = Instance(name)
            top.append(inst)
            stack = [(0, inst)]
            continue
        m = LLVM_CALLSITE_RE.match(line)
        if m and not m.group(4).isdigit():
            depth = len(m.group(1))
            while stack and stack[-1][0] >= depth:
                stack.pop()
            callee = Instance(m.group(4))
            stack[-1][1].callsites[(int(m.group(2)), callee.name, m.group(3))] = callee
            stack.append((depth, callee))
            continue
        m = LLVM_BODY_RE.match(line)
        if not m:
            fail(f"{path}: cannot read line '{line}'")
        depth = len(m.group(1))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        inst = stack[-1][1]
        off, count = int(m.group(2)), int(m.group(4))
        inst.lines[off] = max(inst.lines.get(off, 0), count)
    return top


def profile_lines(instances, funcs, root):
    """{(file, line): count} of a profile, and the functions it names that
    the binary's DWARF does not know."""
    p = collections.Counter()
    unknown = set()

    def walk(inst):
        where = funcs.get(inst.name)
        if where is None:
            unknown.add(inst.name)
        elif under_root(where[0], root):
            file = os.path.relpath(where[0], root)
            for off, count in inst.lines.items():
                # offsets are masked to 16 bits: a line before the
                # declaration (a #line directive) wraps around
                line = where[1] + (off if off < 0x8000 else off - 0x10000)
                p[(file, line)] += count
        for callee in inst.callsites.values():
            walk(callee)

    for inst in instances:
        walk(inst)
    return p, unknown


# --- gcov ---
def gcov_lines(paths, root):
    """{(file, line): count} of the lines gcov lists (its statements),
    {(file, line): function}, and the set of lines that open a function
    (gcov counts calls there; a profile has head counts for that)."""
    q = collections.Counter()
    owner = {}
    openings = set()
    for path in paths:
        try:
            with gzip.open(path, "rt") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            fail(f"{path}: not gcov JSON: {e}")
        cwd = doc.get("current_working_directory", os.path.dirname(os.path.abspath(path)))
        for entry in doc["files"]:
            file = os.path.normpath(os.path.join(cwd, entry["file"]))
            if not under_root(file, root):
                continue
            file = os.path.relpath(file, root)
            spans = [(f["start_line"], f["end_line"], f["name"]) for f in entry.get("functions", [])]
            openings.update((file, s[0]) for s in spans)
            best = {}
            for ln in entry["lines"]:
                key = (file, ln["line_number"])
                # a line of a C++ template is listed once per instantiation
                # (gawk's interpret.h once per function that includes it),
                # each with its own count; its owner is the one that counts most
                q[key] += ln["count"]
                name = ln.get("function_name")
                if not name:
                    name = next((s[2] for s in spans if s[0] <= key[1] <= s[1]), None)
                if name and ln["count"] >= best.get(key, -1):
                    best[key] = ln["count"]
                    owner[key] = name
    return q, owner, openings


def normalise(c, keys):
    total = sum(c.get(k, 0) for k in keys)
    return {k: (c.get(k, 0) / total if total else 0.0) for k in keys}


def overlap(p, q, keys):
    ph, qh = normalise(p, keys), normalise(q, keys)
    return sum(min(ph[k], qh[k]) for k in keys), ph, qh


def source_line(root, file, line, cache={}):
    if file not in cache:
        try:
            with open(os.path.join(root, file), errors="replace") as f:
                cache[file] = f.read().splitlines()
        except OSError:
            cache[file] = []
    text = cache[file]
    return text[line - 1].strip() if 0 < line <= len(text) else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-v", action="store_true", help="list the lines that lose the most")
    ap.add_argument("--top", type=int, default=8, help="functions listed (default 8)")
    ap.add_argument("--root", required=True, help="the program's source tree")
    ap.add_argument("--source", help="read source text from this tree (default --root)")
    ap.add_argument("--gcov", nargs="+", required=True, help="gcov --json-format files (.gcov.json.gz)")
    ap.add_argument("--profile", nargs=4, action="append", required=True,
                    metavar=("LABEL", "KIND", "BINARY", "PROFILE"),
                    help="KIND gcc (gcc 12 gcov) or llvm (any form llvm-profdata reads)")
    ap.add_argument("--binary-root", action="append", default=[],
                    help="LABEL=DIR: the sources BINARY was built from, when not --root")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    roots = dict(r.split("=", 1) for r in args.binary_root)

    q, q_owner, openings = gcov_lines(args.gcov, root)
    if not any(q.values()):
        fail(f"no executed line under {root} in the gcov files")
    results = []
    binaries = {}   # path -> its functions, line ranges, blocks: read once for its profiles
    for label, kind, binary, prof in args.profile:
        if kind not in ("gcc", "llvm"):
            fail(f"profile kind '{kind}': gcc or llvm")
        broot = os.path.realpath(roots.get(label, root))
        if binary not in binaries:
            funcs, comp_dirs = dwarf_functions(binary)
            binaries[binary] = (funcs, code_lines(binary, comp_dirs), block_leaders(binary))
        funcs, lines, leaders = binaries[binary]
        ranges = {(os.path.relpath(f, broot), line): spans
                  for (f, line), spans in lines.items() if under_root(f, broot)}
        # the lines measured: gcov's statements (gcov does not list a
        # closing brace that holds only an epilogue: no statement there for
        # the compiler to annotate) that own code in the profiled binary
        # (no profile counts a case label, or a line folded away), but not
        # the lines that open a function (gcov counts calls there; a profile
        # has head counts for that); those in the same blocks are one unit
        ranges = {k: v for k, v in ranges.items() if k in q and k not in openings}
        unit = line_units(ranges, leaders)
        instances = (read_gcc_profile if kind == "gcc" else read_llvm_profile)(prof)
        p, unknown = profile_lines(instances, funcs, broot)
        results.append((label, p, unit_counts(q, unit), unit, unknown))

    # per function: the lines gcov gives it
    by_func = collections.defaultdict(set)
    for key in q:
        by_func[q_owner.get(key, "?")].add(key)
    total_q = sum(q.values())
    hottest = sorted(by_func, key=lambda f: -sum(q[k] for k in by_func[f]))[:args.top]
    width = max([len(f) for f in hottest] + [8])
    print(f"{'function':<{width}}  share  " + "  ".join(f"{r[0]:>7}" for r in results))
    for func in hottest:
        share = sum(q[k] for k in by_func[func]) / total_q
        cols = []
        for _, p, qr, unit, _ in results:
            keys = {k for k in by_func[func] if k in unit and (qr[k] or p[k])}
            cols.append(f"{overlap(p, qr, keys)[0]:7.3f}" if keys else "      -")
        print(f"{func:<{width}}  {100 * share:4.1f}%  " + "  ".join(cols))
    lines_out = []
    for label, p, qr, unit, unknown in results:
        keys = {k for k in unit if qr[k] or p[k]}
        ov, ph, qh = overlap(p, qr, keys)
        if args.v:
            lost = sum(q[k] for k in q if k not in unit) / total_q
            members = collections.defaultdict(list)
            for k, u in unit.items():
                members[u].append(k)
            print(f"\n{label}: {len(keys)} lines measured, {len(set(unit[k] for k in keys))} units (lines "
                  f"in the same blocks of the binary); gcov's lines without code in the binary hold "
                  f"{100 * lost:.1f}% of its counts")
            print("  lines that lose the most (q^ gcov, p^ profile, loss = |p^ - q^| / 2; q raised to its unit's largest):")
            worst = sorted(keys, key=lambda k: (-abs(ph[k] - qh[k]), k))[:15]   # ties by file and line
            for k in worst:
                if abs(ph[k] - qh[k]) < 1e-4:
                    break
                others = [str(m[1]) if m[0] == k[0] else f"{m[0]}:{m[1]}" for m in sorted(members[unit[k]]) if m != k]
                with_ = f" (with {','.join(others)})" if others else ""
                print(f"  {k[0]}:{k[1]}{with_:<6} q^ {qh[k]:.4f} p^ {ph[k]:.4f} loss {abs(ph[k] - qh[k]) / 2:.4f}"
                      f"  {source_line(args.source or root, k[0], k[1])[:60]}")
            if unknown:
                print(f"  functions without DWARF in the binary: {' '.join(sorted(unknown)[:10])}")
        lines_out.append(f"overlap {label}: {ov:.3f}")
    print("\n".join(lines_out))


if __name__ == "__main__":
    main()
