//! The page and the engine share only `protocol` (ARCHITECTURE.md): no file of the
//! page's source names another part of the `web_engine` crate. `engine.rs` is one
//! exception (its `inline-engine` mode runs the engine in the page for the Chromium
//! tests), `main.rs` another (it exports the JS API's table and link functions,
//! `web_engine::js`, which read no pipeline), and so are the reducer's native tests
//! (`*_tests.rs`), which answer requests with the engine itself.

use std::path::Path;

fn walk(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("web-app/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            walk(&path, out);
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.ends_with(".rs") || name == "engine.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let main = name == "main.rs";
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("web_engine::") {
                rest = &rest[at + "web_engine::".len()..];
                let allowed = rest.starts_with("protocol") || (main && rest.starts_with("js;"));
                if !allowed {
                    out.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
    }
}

#[test]
fn the_page_names_only_the_engines_protocol() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    walk(&src, &mut found);
    assert!(
        found.is_empty(),
        "the page reaches past web_engine::protocol:\n{}",
        found.join("\n")
    );
}
