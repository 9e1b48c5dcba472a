//! Searching the gallery: every word of the query must appear in the example's name,
//! stage id or summary (case-insensitive); an empty query lists everything.

use compiler_core::examples::{Example, EXAMPLES};

/// The examples matching `query`, in gallery order.
pub fn search(query: &str) -> Vec<&'static Example> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    EXAMPLES
        .iter()
        .filter(|e| {
            if words.is_empty() {
                return true;
            }
            let hay = format!("{} {} {}", e.name, e.stage.id(), e.summary()).to_ascii_lowercase();
            words.iter().all(|w| hay.contains(w.as_str()))
        })
        .collect()
}

/// The name of the example whose text is exactly `text`.
pub fn example_with_text(text: &str) -> Option<&'static str> {
    EXAMPLES
        .iter()
        .find(|e| e.text(None).is_some_and(|(_, t)| t == text))
        .map(|e| e.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_match() {
        assert_eq!(search("").len(), EXAMPLES.len());
        assert_eq!(search("   ").len(), EXAMPLES.len());
        let names: Vec<&str> = search("TEX-v4f32 texture").iter().map(|e| e.name).collect();
        assert_eq!(names[0], "tex-v4f32");
        let coalescer = search("nvptx-coalescer");
        assert!(!coalescer.is_empty());
        assert!(coalescer.iter().all(|e| e.stage.id() == "nvptx-coalescer"
            || e.summary().to_lowercase().contains("nvptx-coalescer")));
        assert!(search("texture four").iter().any(|e| e.name == "tex-v4f32"));
        assert!(search("no-such-thing-anywhere").is_empty());
        let text = compiler_core::examples::find("commute").unwrap().forms[0].1;
        assert_eq!(example_with_text(text), Some("commute"));
        assert_eq!(example_with_text("edited"), None);
    }
}
