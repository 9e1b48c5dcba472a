#!/usr/bin/env python3
"""The `anonymous_N` opcodes of Debian's llc-22 22.1.8, found by compiling each intrinsic.

TableGen gives records defined in a `foreach` loop without a name (shuffles, warp
reductions, setmaxnreg ...) the name `anonymous_N`, and llc-22 prints that name in its
MIR. Which instruction a number stands for is only known by asking llc-22: this script
writes one function per intrinsic and operand-kind variant (register or immediate for
each operand), runs `llc-22 -stop-after=finalize-isel` and the full compile, pairs each
function's `anonymous_N` with the PTX instruction it prints, and rewrites the section
between `# BEGIN anonymous` and `# END anonymous` of `src/mir/nvptx.isa` (with
`--write`; otherwise it prints the section).

Usage (from compiler-core/): python3 isa/anonymous.py [--write] [LLC=llc-22]
"""
import os
import re
import subprocess
import sys

LLC = os.environ.get("LLC", "llc-22")
HERE = os.path.dirname(os.path.abspath(__file__))
ISA = os.path.join(HERE, "..", "src", "mir", "nvptx.isa")


def variants():
    """(function name, IR body, declaration, group key, template) per variant."""
    out = []
    # shfl.sync.MODE.TYPE[p](threadmask, value, offset, clamp): each of threadmask,
    # offset and clamp a register or an immediate.
    for mode in ["up", "down", "bfly", "idx"]:
        for ty in ["i32", "f32"]:
            for pred in [False, True]:
                intr = f"llvm.nvvm.shfl.sync.{mode}.{ty}" + ("p" if pred else "")
                irty = "float" if ty == "f32" else ty
                ret = f"{{{irty}, i1}}" if pred else irty
                decl = f"declare {ret} @{intr}(i32, {irty}, i32, i32)"
                for k in range(8):
                    mask = "1" if k & 1 else "%m"
                    off = "2" if k & 2 else "%o"
                    clamp = "3" if k & 4 else "%c"
                    fn = f"shfl_{mode}_{ty}_{int(pred)}_{k}"
                    body = (
                        f"define {ret} @{fn}(i32 %m, {irty} %v, i32 %o, i32 %c) {{\n"
                        f"  %r = call {ret} @{intr}(i32 {mask}, {irty} %v, i32 {off}, i32 {clamp})\n"
                        f"  ret {ret} %r\n}}\n"
                    )
                    tmpl = ("#0|#1, #2, #3, #4, #5" if pred else "#0, #1, #2, #3, #4")
                    defs = 2 if pred else 1
                    out.append((fn, body, decl, (defs, "shfl.sync", tmpl), mode))
    # redux.sync.OP(value, membermask) on b32/u32/s32, and the f32 forms.
    for op in ["umin", "umax", "min", "max", "add", "and", "or", "xor"]:
        for mk in ["%m", "1"]:
            fn = f"redux_{op}_{'i' if mk == '1' else 'r'}"
            intr = f"llvm.nvvm.redux.sync.{op}"
            out.append((fn, f"define i32 @{fn}(i32 %v, i32 %m) {{\n  %r = call i32 @{intr}(i32 %v, i32 {mk})\n  ret i32 %r\n}}\n",
                        f"declare i32 @{intr}(i32, i32)", (1, "redux.sync", "#0, #1, #2"), op))
    for op in ["fmin", "fmax"]:
        for sfx in ["", ".abs", ".NaN", ".abs.NaN"]:
            for mk in ["%m", "1"]:
                fn = f"redux_{op}{sfx.replace('.', '_')}_{'i' if mk == '1' else 'r'}"
                intr = f"llvm.nvvm.redux.sync.{op}{sfx}"
                out.append((fn, f"define float @{fn}(float %v, i32 %m) {{\n  %r = call float @{intr}(float %v, i32 {mk})\n  ret float %r\n}}\n",
                            f"declare float @{intr}(float, i32)", (1, "redux.sync", "#0, #1, #2"), op))
    # setmaxnreg.{inc,dec}.sync.aligned.u32 (an immediate register count).
    for d in ["inc", "dec"]:
        fn = f"setmaxnreg_{d}"
        intr = f"llvm.nvvm.setmaxnreg.{d}.sync.aligned.u32"
        out.append((fn, f"define void @{fn}() {{\n  call void @{intr}(i32 256)\n  ret void\n}}\n",
                    f"declare void @{intr}(i32)", (0, "setmaxnreg", "#0"), d))
    return out


def llc(ir, *args):
    r = subprocess.run([LLC, "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_100a", "-mattr=+ptx88", *args, "-o", "-"],
                       input=ir, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{LLC} failed: {r.stderr[:2000]}")
    return r.stdout


def main():
    vs = variants()
    decls = sorted({v[2] for v in vs})
    ir = "\n".join(decls) + "\n\n" + "\n".join(v[1] for v in vs)
    mir = llc(ir, "-stop-after=finalize-isel")
    ptx = llc(ir)
    # Function name -> its anonymous opcode (the one in its body).
    anon = {}
    for block in mir.split("\n---\n"):
        m = re.search(r"^name:\s+(\S+)", block, re.M)
        ops = re.findall(r"\b(anonymous_\d+)\b", block)
        if m and ops:
            anon[m.group(1)] = ops[0]
    # Function name -> the PTX instruction's mnemonic.
    mnem = {}
    for m in re.finditer(r"// @(\S+)\n(.*?)\n\}", ptx, re.S):
        for line in m.group(2).splitlines():
            w = line.strip().split()
            if w and w[0].startswith(("shfl.", "redux.", "setmaxnreg.")):
                mnem[m.group(1)] = w[0]
    rows = {}
    for fn, _, _, (defs, _, tmpl), _ in vs:
        a, p = anon.get(fn), mnem.get(fn)
        if not a or not p:
            sys.exit(f"{fn}: no anonymous opcode ({a}) or PTX ({p}) found")
        prev = rows.get(a)
        if prev and prev != (defs, p, tmpl):
            sys.exit(f"{a} stands for both {prev} and {(defs, p, tmpl)}")
        rows[a] = (defs, p, tmpl)
    # One description row per (results, template): anonymous_{N=mnemonic,...}.
    groups = {}
    for a, (defs, p, tmpl) in sorted(rows.items(), key=lambda x: int(x[0].split("_")[1])):
        groups.setdefault((defs, tmpl), []).append(f"{a.split('_')[1]}={p}")
    sem = {"shfl": "none:sync", "redux": "none:sync", "setmaxnreg": "none:sync"}
    lines = ["# BEGIN anonymous (written by isa/anonymous.py from llc-22 22.1.8; do not edit)"]
    for (defs, tmpl), alts in sorted(groups.items(), key=lambda g: g[1][0]):
        flags = "SIDE_EFFECTS|CONVERGENT" if defs == 0 else "CONVERGENT"
        kind = alts[0].split("=")[1].split(".")[0]
        lines.append(f"anonymous_{{{','.join(alts)}}} {defs} {flags} - - {sem[kind]} asm:$1 {tmpl}")
    lines.append("# END anonymous")
    section = "\n".join(lines) + "\n"
    if "--write" in sys.argv:
        text = open(ISA).read()
        start = text.find("# BEGIN anonymous")
        end = text.find("# END anonymous")
        if start < 0 or end < 0:
            text = text.rstrip("\n") + "\n\n" + section
        else:
            end = text.index("\n", end) + 1
            text = text[:start] + section + text[end:]
        open(ISA, "w").write(text)
    else:
        sys.stdout.write(section)


if __name__ == "__main__":
    main()
