#!/usr/bin/env python3
"""The `anonymous_N` opcodes of Debian's llc-22 22.1.8, found by compiling each intrinsic.

TableGen gives records defined in a `foreach` loop without a name (shuffles, warp
reductions, setmaxnreg ...) the name `anonymous_N`, and llc-22 prints that name in its
MIR. Which instruction a number stands for is only known by asking llc-22: this script
writes one function per intrinsic and operand-kind variant (register or immediate for
each operand), runs `llc-22 -stop-after=finalize-isel` and the full compile, pairs each
function's `anonymous_N` and its count of use operands (the `DEFS/USES` column) with
the PTX instruction it prints (shuffles, warp reductions, setmaxnreg, the WMMA
m16n16k16 loads, mmas and stores, mma.sync m16n8k8 tf32), and rewrites the section
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
    out += wmma_variants()
    return out


# WMMA m16n16k16 fragments: (fragment, element type) -> (IR element type, count).
WMMA_FRAGS = {("a", "f16"): ("<2 x half>", 8), ("b", "f16"): ("<2 x half>", 8),
              ("c", "f16"): ("<2 x half>", 4), ("c", "f32"): ("float", 8)}
WMMA_SPACES = {"": "ptr", ".p1": "ptr addrspace(1)", ".p3": "ptr addrspace(3)"}


def wmma_variants():
    """wmma.load / wmma.mma / wmma.store of the m16n16k16 shape (sm_70): every
    layout, fragment and address space with a register stride, and every layout pair
    and accumulator type of the mma. The loads and stores print their address as
    `[#N]` (llc-22 folds no offset into them); the trailing immediate llc-22 writes
    after the operands is not printed."""
    out = []
    for (frag, ety), (irty, n) in WMMA_FRAGS.items():
        st = "{" + ", ".join([irty] * n) + "}"
        for layout in ["row", "col"]:
            for sp, pty in WMMA_SPACES.items():
                intr = f"llvm.nvvm.wmma.m16n16k16.load.{frag}.{layout}.stride.{ety}{sp}"
                fn = f"wmma_load_{frag}_{ety}_{layout}{sp.replace('.', '_')}"
                body = (f"define {st} @{fn}({pty} %p, i32 %s) {{\n"
                        f"  %r = call {st} @{intr}({pty} %p, i32 %s)\n  ret {st} %r\n}}\n")
                regs = ", ".join(f"#{k}" for k in range(n))
                tmpl = f"{{{regs}}}, [#{n}+#{n + 1}], #{n + 2}"
                out.append((fn, body, f"declare {st} @{intr}({pty}, i32)", (n, "wmma.load", tmpl), frag))
    for (dty, cty) in [("f16", "f16"), ("f32", "f16"), ("f16", "f32"), ("f32", "f32")]:
        dir_, dn = WMMA_FRAGS[("c", dty)]
        cir, cn = WMMA_FRAGS[("c", cty)]
        dst = "{" + ", ".join([dir_] * dn) + "}"
        for la in ["row", "col"]:
            for lb in ["row", "col"]:
                intr = f"llvm.nvvm.wmma.m16n16k16.mma.{la}.{lb}.{dty}.{cty}"
                fn = f"wmma_mma_{la}_{lb}_{dty}_{cty}"
                args = [f"<2 x half> %a{k}" for k in range(8)] + [f"<2 x half> %b{k}" for k in range(8)] \
                    + [f"{cir} %c{k}" for k in range(cn)]
                tys = ", ".join(a.rsplit(" ", 1)[0] for a in args)
                body = (f"define {dst} @{fn}({', '.join(args)}) {{\n"
                        f"  %r = call {dst} @{intr}({', '.join(args)})\n  ret {dst} %r\n}}\n")
                groups, k = [], dn
                for cnt in [dn, 8, 8, cn]:
                    groups.append("{" + ", ".join(f"#{k0}" for k0 in range(k - cnt if not groups else k, (k if not groups else k + cnt))) + "}")
                    if len(groups) > 1:
                        k += cnt
                tmpl = ", ".join(groups)
                out.append((fn, body, f"declare {dst} @{intr}({tys})", (dn, "wmma.mma", tmpl), "mma"))
    for (ety, (irty, n)) in [("f16", WMMA_FRAGS[("c", "f16")]), ("f32", WMMA_FRAGS[("c", "f32")])]:
        for layout in ["row", "col"]:
            for sp, pty in WMMA_SPACES.items():
                intr = f"llvm.nvvm.wmma.m16n16k16.store.d.{layout}.stride.{ety}{sp}"
                fn = f"wmma_store_{ety}_{layout}{sp.replace('.', '_')}"
                vals = [f"{irty} %d{k}" for k in range(n)]
                tys = ", ".join([pty] + [irty] * n + ["i32"])
                body = (f"define void @{fn}({pty} %p, {', '.join(vals)}, i32 %s) {{\n"
                        f"  call void @{intr}({pty} %p, {', '.join(vals)}, i32 %s)\n  ret void\n}}\n")
                regs = ", ".join(f"#{k}" for k in range(2, 2 + n))
                tmpl = f"[#0+#1], {{{regs}}}, #{2 + n}"
                out.append((fn, body, f"declare void @{intr}({tys})", (0, "wmma.store", tmpl), "store"))
    # mma.sync m16n8k8 tf32 (row.col, the one layout mma.sync has): four f32
    # results from a (4 x b32), b (2 x b32) and c (4 x f32).
    fn = "mma_m16n8k8_tf32"
    intr = "llvm.nvvm.mma.m16n8k8.row.col.tf32"
    ret = "{float, float, float, float}"
    args = [f"i32 %a{k}" for k in range(4)] + [f"i32 %b{k}" for k in range(2)] + [f"float %c{k}" for k in range(4)]
    tys = ", ".join(a.split(" ")[0] for a in args)
    out.append((fn, f"define {ret} @{fn}({', '.join(args)}) {{\n  %r = call {ret} @{intr}({', '.join(args)})\n  ret {ret} %r\n}}\n",
                f"declare {ret} @{intr}({tys})",
                (4, "mma.sync", "{#0, #1, #2, #3}, {#4, #5, #6, #7}, {#8, #9}, {#10, #11, #12, #13}"), "mma"))
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
    # Function name -> its anonymous opcode (the one in its body) and how many
    # explicit use operands llc-22 gives it (the use-count column).
    anon = {}
    uses = {}
    for block in mir.split("\n---\n"):
        m = re.search(r"^name:\s+(\S+)", block, re.M)
        ops = re.findall(r"\b(anonymous_\d+)\b(.*)$", block, re.M)
        if m and ops:
            anon[m.group(1)] = ops[0][0]
            args = ops[0][1].split(" :: ")[0].split(", debug-location")[0]
            uses[m.group(1)] = len([a for a in args.split(",") if a.strip() and not a.strip().startswith("implicit")])
    # Function name -> the PTX instruction's mnemonic.
    mnem = {}
    for m in re.finditer(r"// @(\S+)\n(.*?)\n\}", ptx, re.S):
        for line in m.group(2).splitlines():
            w = line.strip().split()
            if w and w[0].startswith(("shfl.", "redux.", "setmaxnreg.", "wmma.", "mma.")):
                mnem[m.group(1)] = w[0]
    rows = {}
    for fn, _, _, (defs, _, tmpl), _ in vs:
        a, p = anon.get(fn), mnem.get(fn)
        if not a or not p:
            sys.exit(f"{fn}: no anonymous opcode ({a}) or PTX ({p}) found")
        prev = rows.get(a)
        if prev and prev != (defs, uses[fn], p, tmpl):
            sys.exit(f"{a} stands for both {prev} and {(defs, uses[fn], p, tmpl)}")
        rows[a] = (defs, uses[fn], p, tmpl)
    # One description row per (results, uses, template): anonymous_{N=mnemonic,...}.
    groups = {}
    for a, (defs, n, p, tmpl) in sorted(rows.items(), key=lambda x: int(x[0].split("_")[1])):
        groups.setdefault((defs, n, tmpl), []).append(f"{a.split('_')[1]}={p}")
    sem = {"shfl": "none:sync", "redux": "none:sync", "setmaxnreg": "none:sync", "wmma": "none:tensor", "mma": "none:tensor"}
    lines = ["# BEGIN anonymous (written by isa/anonymous.py from llc-22 22.1.8; do not edit)"]
    for (defs, n, tmpl), alts in sorted(groups.items(), key=lambda g: g[1][0]):
        kind = alts[0].split("=")[1].split(".")[0]
        flags = "SIDE_EFFECTS|CONVERGENT" if defs == 0 else "CONVERGENT"
        if alts[0].split("=")[1].startswith(("wmma.load", "wmma.store")):
            flags = ("ST|" if defs == 0 else "LD|") + "CONVERGENT"
        lines.append(f"anonymous_{{{','.join(alts)}}} {defs}/{n} {flags} - - {sem[kind]} asm:$1 {tmpl}")
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
