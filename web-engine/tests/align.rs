//! The before/after alignment of step views (`StepView::align`): at every step of every
//! replayed stage of a few gallery examples, both panes have the same number of rows, a
//! blank row always faces a line, and the rows whose two sides read the same are as many
//! as the longest common subsequence of the two texts (computed here by the textbook
//! dynamic programme, independently of the engine's patience diff): every unchanged
//! line sits beside itself. The inserted line of tex-v4f32's step 3 faces a blank.

use compiler_core::examples::find;
use compiler_core::Stage;
use web_engine::protocol::*;
use web_engine::Session;

/// One pane's rows: its lines with `gaps` blank rows (None) inserted.
fn rows<'a>(lines: &[&'a str], gaps: &[Gap]) -> Vec<Option<&'a str>> {
    let mut out = Vec::new();
    for k in 0..=lines.len() {
        for g in gaps.iter().filter(|g| g.at as usize == k) {
            out.extend((0..g.rows).map(|_| None));
        }
        if let Some(l) = lines.get(k) {
            out.push(Some(*l));
        }
    }
    out
}

fn lcs(a: &[&str], b: &[&str]) -> usize {
    let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            t[i][j] = if a[i] == b[j] {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
        }
    }
    t[0][0]
}

fn check(name: &str) -> usize {
    let text = find(name).unwrap().text(None).unwrap().1;
    let req = RunRequest {
        source: text.into(),
        ..RunRequest::default()
    };
    let (mut s, summary) = Session::run(1, &req, &mut |_| {}).unwrap();
    let mut gapped = 0;
    for st in &summary.stages {
        for step in 0..=st.steps {
            let v = s.view(st.stage, step).unwrap();
            let Some(after) = &v.after else { continue };
            let a: Vec<&str> = v.before.text.lines().collect();
            let b: Vec<&str> = after.text.lines().collect();
            let (ra, rb) = (rows(&a, &v.align.before), rows(&b, &v.align.after));
            let at = format!("{name} {} step {step}", st.stage);
            assert_eq!(ra.len(), rb.len(), "{at}: row counts");
            assert!(
                ra.iter().zip(&rb).all(|(x, y)| x.is_some() || y.is_some()),
                "{at}: a blank faces a blank"
            );
            let same = ra
                .iter()
                .zip(&rb)
                .filter(|(x, y)| x.is_some() && x == y)
                .count();
            assert_eq!(same, lcs(&a, &b), "{at}: unchanged lines side by side");
            if a == b {
                assert_eq!(v.align, Alignment::default(), "{at}");
            }
            gapped += usize::from(!v.align.before.is_empty() || !v.align.after.is_empty());
        }
    }
    gapped
}

#[test]
fn every_step_view_of_the_gallery_aligns_its_panes() {
    let mut gapped = 0;
    for name in [
        "tex-v4f32",
        "phi-swap",
        "reg-sequence",
        "iteration-cap",
        "local-array",
    ] {
        gapped += check(name);
    }
    assert!(gapped > 20, "only {gapped} views needed blank rows");
}

#[test]
fn tex_v4f32_step_3_puts_a_blank_row_beside_the_new_copy() {
    let text = find("tex-v4f32").unwrap().text(None).unwrap().1;
    let req = RunRequest {
        source: text.into(),
        ..RunRequest::default()
    };
    let (mut s, _) = Session::run(1, &req, &mut |_| {}).unwrap();
    let v = s.view(Stage::TwoAddress, 3).unwrap();
    let after = v.after.as_ref().unwrap();
    let copy = after
        .marks
        .iter()
        .find(|m| m.kind == MarkKind::Inserted)
        .unwrap()
        .line;
    assert_eq!(v.align.after, []);
    assert_eq!(v.align.before, [Gap { at: copy, rows: 1 }]);
    let a: Vec<&str> = v.before.text.lines().collect();
    let b: Vec<&str> = after.text.lines().collect();
    let (ra, rb) = (rows(&a, &v.align.before), rows(&b, &v.align.after));
    assert_eq!(ra[copy as usize], None);
    assert!(rb[copy as usize].unwrap().contains("COPY"));
}
