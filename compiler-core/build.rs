//! Generates the opcode table from the instruction description
//! `src/mir/nvptx.isa` (format in that file's header): `$OUT_DIR/isa.rs` holds the
//! `opcodes!` invocation `mir/opcode.rs` expands into `Op` and `OPCODES`, and `ISA`,
//! each opcode's interpreter semantics and PTX form in `Op` order.

use std::fmt::Write as _;

struct Row {
    line: usize,
    name: String,
    defs: String,
    flags: String,
    family: String,
    comm: String,
    sem: String,
    ptx: String,
}

/// One `{a,b=c}` group: (name part, value) pairs.
type Group = Vec<(String, String)>;

/// Splits a name pattern into literal text and groups: `ADD{16,32}rr`.
fn parse_pattern(p: &str, line: usize) -> Vec<Result<String, Group>> {
    let mut out = Vec::new();
    let mut rest = p;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            out.push(Ok(rest[..open].to_string()));
        }
        let close = rest[open..]
            .find('}')
            .unwrap_or_else(|| panic!("nvptx.isa:{line}: unclosed `{{` in {p}"))
            + open;
        let group = rest[open + 1..close]
            .split(',')
            .map(|alt| match alt.split_once('=') {
                Some((n, v)) => (n.to_string(), v.to_string()),
                None => (alt.to_string(), alt.to_string()),
            })
            .collect();
        out.push(Err(group));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        out.push(Ok(rest.to_string()));
    }
    out
}

/// Every (name, group values) a pattern stands for, left group outermost.
fn expand(p: &str, line: usize) -> Vec<(String, Vec<String>)> {
    let mut acc = vec![(String::new(), Vec::new())];
    for part in parse_pattern(p, line) {
        acc = match part {
            Ok(lit) => acc.into_iter().map(|(n, v)| (n + &lit, v)).collect(),
            Err(group) => acc
                .into_iter()
                .flat_map(|(n, v)| {
                    group.iter().map(move |(gn, gv)| {
                        let mut vals = v.clone();
                        vals.push(gv.clone());
                        (format!("{n}{gn}"), vals)
                    })
                })
                .collect(),
        };
    }
    acc
}

/// `$1` / `${1}` replaced by the group values. A value may hold parts separated by `/`
/// (`{32=440/u32}`): `$1` is its first part, `$1.2` its second.
fn subst(t: &str, vals: &[String], line: usize) -> String {
    let mut out = String::new();
    let b: Vec<char> = t.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '$' && i + 1 < b.len() {
            let (digit, skip) = if b[i + 1] == '{' && i + 3 < b.len() && b[i + 3] == '}' {
                (b[i + 2], 4)
            } else {
                (b[i + 1], 2)
            };
            if let Some(k) = digit.to_digit(10) {
                let v = vals
                    .get(k as usize - 1)
                    .unwrap_or_else(|| panic!("nvptx.isa:{line}: `${k}` names no group"));
                let part = match (b.get(i + skip), b.get(i + skip + 1)) {
                    (Some('.'), Some(d)) if d.is_ascii_digit() => {
                        i += 2;
                        d.to_digit(10).unwrap_or(1) as usize
                    }
                    _ => 1,
                };
                let p = v.split('/').nth(part.wrapping_sub(1));
                out.push_str(
                    p.unwrap_or_else(|| panic!("nvptx.isa:{line}: `{v}` has no part {part}")),
                );
                i += skip;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn flags_expr(f: &str, line: usize) -> String {
    if f == "-" {
        return "0".into();
    }
    f.split('|')
        .map(|w| match w {
            "MOV" => "AS_CHEAP_AS_MOVE",
            "LD" => "MAY_LOAD",
            "ST" => "MAY_STORE",
            "BR" => "TERMINATOR | BRANCH",
            "SREG" => "SPECIAL_REG",
            "PSEUDO" | "TERMINATOR" | "BRANCH" | "CONDITIONAL" | "RETURN" | "MAY_LOAD"
            | "MAY_STORE" | "SIDE_EFFECTS" | "CONVERGENT" | "VARIADIC" | "SPECIAL_REG"
            | "AS_CHEAP_AS_MOVE" => w,
            _ => panic!("nvptx.isa:{line}: unknown flag `{w}`"),
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The copy-type number a row gives one of its opcodes: the NVPTX families (Move,
/// CrossClass, WidePair, Param) must carry one in 440-503; `Copy` (the generic
/// pseudo) and non-copies carry none.
fn copy_type_number(
    family: &str,
    col: Option<&str>,
    vals: &[String],
    (k, count): (usize, usize),
    line: usize,
) -> u16 {
    let nvptx = matches!(family, "Move" | "CrossClass" | "WidePair" | "Param");
    match col {
        None if nvptx => {
            panic!("nvptx.isa:{line}: family {family} needs a copy-type number `{family}:N`")
        }
        None => 0,
        Some(_) if !nvptx => panic!("nvptx.isa:{line}: family {family} takes no copy-type number"),
        Some(t) if t.contains("..") => {
            let (a, b) = t.split_once("..").unwrap();
            let (a, b): (u16, u16) = match (a.parse(), b.parse()) {
                (Ok(a), Ok(b)) if (440..=503).contains(&a) && (440..=503).contains(&b) => (a, b),
                _ => panic!("nvptx.isa:{line}: copy-type range `{t}` is not in 440-503"),
            };
            assert!(
                usize::from(b - a) + 1 == count,
                "nvptx.isa:{line}: copy-type range `{t}` does not give one number per name ({count})"
            );
            a + k as u16
        }
        Some(t) => {
            let n = subst(t, vals, line);
            match n.parse::<u16>() {
                Ok(k) if (440..=503).contains(&k) => k,
                _ => panic!("nvptx.isa:{line}: copy-type number `{n}` is not in 440-503"),
            }
        }
    }
}

/// The use-count column (after the `/` of `DEFS/USES`): one entry, or one per name of
/// the row; each `N`, `N..M` or `*` (variadic: None).
fn use_counts(col: &str, names: usize, variadic: bool, line: usize) -> Vec<Option<(u8, u8)>> {
    let one = |e: &str| -> Option<(u8, u8)> {
        if e == "*" {
            return None;
        }
        let num = |t: &str| -> u8 {
            t.parse()
                .unwrap_or_else(|_| panic!("nvptx.isa:{line}: use count `{t}` is not a number"))
        };
        let (lo, hi) = match e.split_once("..") {
            Some((a, b)) => (num(a), num(b)),
            None => (num(e), num(e)),
        };
        assert!(lo <= hi, "nvptx.isa:{line}: use count range `{e}` is empty");
        Some((lo, hi))
    };
    let list: Vec<Option<(u8, u8)>> = col.split(',').map(one).collect();
    let list = match list.len() {
        1 => vec![list[0]; names],
        n if n == names => list,
        n => panic!("nvptx.isa:{line}: {n} use counts for {names} names"),
    };
    if variadic && list.iter().any(Option::is_some) {
        panic!("nvptx.isa:{line}: a VARIADIC row's use count is `*`");
    }
    list
}

/// Where the ptx column says how many uses it prints (`op:TEXT:N[:ftz]`), the use count
/// must agree: N, plus the flush-to-zero immediate (which the CICC-era forms may leave
/// out: `N..N+1`).
fn check_uses_against_ptx(name: &str, uses: Option<(u8, u8)>, ptx: &str, line: usize) {
    let Some(rest) = ptx.strip_prefix("op:") else {
        return;
    };
    let parts: Vec<&str> = rest.split(':').collect();
    let Some(n) = parts.get(1).and_then(|n| n.parse::<u8>().ok()) else {
        return;
    };
    let ftz = parts.get(2) == Some(&"ftz");
    let ok = match uses {
        Some((lo, hi)) => hi == n + ftz as u8 && (lo == hi || (ftz && lo == n)),
        None => false,
    };
    assert!(
        ok,
        "nvptx.isa:{line}: {name} prints {n} use(s){} but its use count is {uses:?}",
        if ftz { " and the ftz flag" } else { "" }
    );
}

fn read_rows(text: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for (k, l) in text.lines().enumerate() {
        let line = k + 1;
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = l.split_whitespace().collect();
        // The ptx column is the rest of the line: an `asm:` template has spaces.
        assert!(
            cols.len() >= 7,
            "nvptx.isa:{line}: expected 7 columns (name defs flags family comm sem ptx), found {}",
            cols.len()
        );
        rows.push(Row {
            line,
            name: cols[0].into(),
            defs: cols[1].into(),
            flags: cols[2].into(),
            family: cols[3].into(),
            comm: cols[4].into(),
            sem: cols[5].into(),
            ptx: cols[6..].join(" "),
        });
    }
    rows
}

/// One text column of the table: the rows' texts end to end and each row's end offset.
struct Column {
    name: &'static str,
    doc: &'static str,
    text: String,
    ends: String,
}

impl Column {
    fn new(name: &'static str, doc: &'static str) -> Self {
        Column {
            name,
            doc,
            text: String::new(),
            ends: String::new(),
        }
    }

    fn push(&mut self, row: &str) {
        self.text.push_str(row);
        let end = u16::try_from(self.text.len())
            .unwrap_or_else(|_| panic!("column {} is over 65,535 bytes", self.name));
        writeln!(self.ends, "    {end},").unwrap();
    }

    fn finish(self) -> String {
        let Column {
            name,
            doc,
            text,
            ends,
        } = self;
        format!(
            "/// {doc}, in `Op` order, end to end ([`{name}_ENDS`] gives each row's end).\n\
             pub static {name}: &str = {text:?};\n\
             /// Where each row of [`{name}`] ends.\n\
             pub static {name}_ENDS: &[u16] = &[\n{ends}];\n"
        )
    }
}

fn main() {
    let src = "src/mir/nvptx.isa";
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(src).expect("read src/mir/nvptx.isa");
    let mut ops = String::from("opcodes! {\n");
    // The names, semantics kinds and PTX forms as three columns, each one text with the
    // rows' end offsets: a row then costs the wasm two bytes a column rather than a
    // (pointer, length) pair, and the engine, which reads no semantics, drops that column.
    let mut name_col = Column::new("OP_NAMES", "Each opcode's name as LLVM prints it");
    let mut sems = Column::new("ISA_SEMS", "Each opcode's interpreter semantics kind");
    let mut ptxs = Column::new("ISA_PTX", "Each opcode's PTX form");
    let mut numbers = String::from(
        "/// Each opcode's CICC copy-type number (440-503; 0: not an NVPTX copy family), in `Op` order.\npub static COPY_TYPE_NUMBERS: &[u16] = &[\n",
    );
    // The rows' line numbers are a table of their own: only the random program
    // generator reads them, so the engine's wasm does not carry them.
    let mut lines = String::from(
        "/// Each opcode's line in `nvptx.isa`, in `Op` order.\npub static ISA_LINES: &[u16] = &[\n",
    );
    // The use counts go to a file of their own, read by the DAG parser's check
    // (`dag/target.rs`).
    let mut uses = String::from(
        "/// Each opcode's explicit use-operand count (least, most), `None` when variadic, in `Op` order.\npub static USE_COUNTS: &[Option<(u8, u8)>] = &[\n",
    );
    let mut seen = std::collections::BTreeMap::new();
    for r in read_rows(&text) {
        let (defs_col, uses_col) = r.defs.split_once('/').unwrap_or_else(|| {
            panic!("nvptx.isa:{}: defs `{}` is not `DEFS/USES`", r.line, r.defs)
        });
        let defs: u8 = defs_col
            .parse()
            .unwrap_or_else(|_| panic!("nvptx.isa:{}: defs `{defs_col}` is not a number", r.line));
        let (family_col, number_col) = match r.family.split_once(':') {
            Some((f, n)) => (f.to_string(), Some(n.to_string())),
            None => (r.family.clone(), None),
        };
        let family = if family_col == "-" {
            "None"
        } else {
            &family_col
        };
        let comm = match r.comm.split_once(',') {
            Some((a, b)) => format!("Some(({a}, {b}))"),
            None if r.comm == "-" => "None".into(),
            None => panic!("nvptx.isa:{}: commutable `{}` is not `a,b`", r.line, r.comm),
        };
        let flags = flags_expr(&r.flags, r.line);
        let names = expand(&r.name, r.line);
        let count = names.len();
        let variadic = r.flags.split('|').any(|f| f == "VARIADIC");
        let use_counts = use_counts(uses_col, count, variadic, r.line);
        for (k, (name, vals)) in names.into_iter().enumerate() {
            if let Some(prev) = seen.insert(name.clone(), r.line) {
                panic!(
                    "nvptx.isa:{}: `{name}` is already described on line {prev}",
                    r.line
                );
            }
            writeln!(ops, "    {name}: {defs}, {flags}, {family}, {comm};").unwrap();
            let number = copy_type_number(family, number_col.as_deref(), &vals, (k, count), r.line);
            writeln!(numbers, "    {number},").unwrap();
            let ptx = subst(&r.ptx, &vals, r.line);
            name_col.push(&name);
            sems.push(&subst(&r.sem, &vals, r.line));
            ptxs.push(&ptx);
            check_uses_against_ptx(&name, use_counts[k], &ptx, r.line);
            writeln!(uses, "    {:?},", use_counts[k]).unwrap();
            let line = u16::try_from(r.line).expect("nvptx.isa has fewer than 65,536 lines");
            writeln!(lines, "    {line},").unwrap();
        }
    }
    ops.push_str("}\n");
    let isa = name_col.finish() + &sems.finish() + &ptxs.finish();
    numbers.push_str("];\n");
    lines.push_str("];\n");
    uses.push_str("];\n");
    let dir = std::env::var("OUT_DIR").unwrap();
    std::fs::write(std::path::Path::new(&dir).join("isa_uses.rs"), uses)
        .expect("write isa_uses.rs");
    let out = std::path::Path::new(&dir).join("isa.rs");
    std::fs::write(out, ops + "\n" + &isa + "\n" + &numbers + "\n" + &lines).expect("write isa.rs");
}
