//! Permalinks: the whole playground state in the part of a URL after `#`, so a link
//! reopens the same input, knobs, stage and step with no server.
//!
//! ```text
//!  state link:    #v1.<base64url(deflate(payload))>
//!  payload:       format=mir\n knobs=sm=sm_80,...\n stage=two-address\n step=12\n layout=...\n
//!                 pictures=two-address:3,nvptx-coalescer:2,general-optimize:5\n
//!                 \n
//!                 <source text, verbatim>
//!  example link:  #example=NAME[&stage=ID][&step=N]
//! ```
//!
//! Every header line is optional; a reader skips header keys it does not know, so later
//! v1 writers may add keys. A change that old readers would misread takes a new version
//! prefix (`v2.`), and this reader refuses versions it does not know.
//!
//! Decoding is bounded: the fragment may hold at most [`MAX_LINK_CHARS`] characters and
//! inflates to at most [`MAX_PAYLOAD_BYTES`] bytes (inflating stops there), so time and
//! memory are linear in those limits. Bad links are errors with a column and a message,
//! never panics.

use crate::knobs::Knobs;
use crate::pipeline::InputFormat;
use crate::stages::Stage;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// The version this build writes and reads.
pub const LINK_VERSION: u32 = 1;
/// Longest fragment the decoder looks at.
pub const MAX_LINK_CHARS: usize = 4 << 20;
/// Largest payload a link may inflate to.
pub const MAX_PAYLOAD_BYTES: usize = 2 << 20;
/// Longest layout and example names.
const MAX_NAME: usize = 64;

/// The playground state a state link carries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkState {
    pub source: String,
    /// None: detect from the text.
    pub format: Option<InputFormat>,
    pub knobs: Knobs,
    /// The stage shown.
    pub stage: Option<Stage>,
    /// The step shown inside that stage.
    pub step: Option<u32>,
    /// The app's layout id (`single`, `side-by-side`, ...): see [`valid_name`].
    pub layout: Option<String>,
    /// The side-by-side pictures: each slot's stage and the step it shows (empty: the
    /// layout's defaults). Links written before this key existed decode to empty.
    pub pictures: Vec<(Stage, u32)>,
}

/// Slots a link's `pictures` list holds at most.
pub const MAX_PICTURES: usize = 8;

/// A short link to a gallery example.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExampleLink {
    pub name: String,
    pub stage: Option<Stage>,
    pub step: Option<u32>,
}

/// A decoded link.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    State(alloc::boxed::Box<LinkState>),
    Example(ExampleLink),
}

/// A refused link: a 1-based column in the fragment (after `#`) and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkError {
    pub col: u32,
    pub message: String,
}

impl LinkError {
    fn new(col: usize, message: impl Into<String>) -> Self {
        LinkError {
            col: col.min(u32::MAX as usize) as u32,
            message: message.into(),
        }
    }
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.col, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LinkError {}

/// A layout or example name: 1 to 64 of `a-z`, `0-9`, `-`, `_`.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_NAME
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Encodes a state link's fragment (without the `#`).
pub fn encode_state(s: &LinkState) -> String {
    let mut payload = String::new();
    if let Some(f) = s.format {
        payload.push_str(&format!("format={}\n", f.name()));
    }
    let q = s.knobs.to_query();
    if !q.is_empty() {
        payload.push_str(&format!("knobs={q}\n"));
    }
    if let Some(st) = s.stage {
        payload.push_str(&format!("stage={}\n", st.id()));
    }
    if let Some(n) = s.step {
        payload.push_str(&format!("step={n}\n"));
    }
    if let Some(l) = s.layout.as_deref().filter(|l| valid_name(l)) {
        payload.push_str(&format!("layout={l}\n"));
    }
    if !s.pictures.is_empty() {
        payload.push_str("pictures=");
        for (k, (stage, step)) in s.pictures.iter().take(MAX_PICTURES).enumerate() {
            if k > 0 {
                payload.push(',');
            }
            payload.push_str(&format!("{}:{step}", stage.id()));
        }
        payload.push('\n');
    }
    payload.push('\n');
    payload.push_str(&s.source);
    let packed = miniz_oxide::deflate::compress_to_vec(payload.as_bytes(), 9);
    let mut out = format!("v{LINK_VERSION}.");
    base64url_encode(&packed, &mut out);
    out
}

/// Encodes an example link's fragment (without the `#`).
pub fn encode_example(e: &ExampleLink) -> String {
    let mut out = format!("example={}", e.name);
    if let Some(st) = e.stage {
        out.push_str(&format!("&stage={}", st.id()));
    }
    if let Some(n) = e.step {
        out.push_str(&format!("&step={n}"));
    }
    out
}

/// Decodes a full URL (everything up to the first `#` is skipped) or a bare fragment.
pub fn decode(url: &str) -> Result<Link, LinkError> {
    let frag = match url.find('#') {
        Some(p) => &url[p + 1..],
        None => url,
    };
    let frag = frag.trim_end();
    if frag.len() > MAX_LINK_CHARS {
        return Err(LinkError::new(
            1,
            format!(
                "link is {} characters long; the limit is {MAX_LINK_CHARS}",
                frag.len()
            ),
        ));
    }
    if frag.starts_with("example=") {
        return decode_example(frag).map(Link::Example);
    }
    let Some(rest) = frag.strip_prefix('v') else {
        return Err(LinkError::new(
            1,
            "expected `v1.` (a state link) or `example=` (a gallery link)",
        ));
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !rest[digits..].starts_with('.') {
        return Err(LinkError::new(
            2,
            "expected a version number and `.` after `v`",
        ));
    }
    match rest[..digits].parse::<u32>() {
        Ok(LINK_VERSION) => {}
        _ => {
            return Err(LinkError::new(
                2,
                format!(
                    "link version {} is not supported; this build reads version {LINK_VERSION}",
                    &rest[..digits.min(10)]
                ),
            ))
        }
    }
    let body_col = 1 + 1 + digits + 1;
    let packed = base64url_decode(&rest[digits + 1..], body_col)?;
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_PAYLOAD_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => LinkError::new(
                body_col,
                format!("link content is larger than {MAX_PAYLOAD_BYTES} bytes"),
            ),
            _ => LinkError::new(body_col, "link content is damaged (not valid deflate data)"),
        })?;
    let text = core::str::from_utf8(&bytes)
        .map_err(|_| LinkError::new(body_col, "link content is not UTF-8 text"))?;
    parse_payload(text, body_col).map(|s| Link::State(alloc::boxed::Box::new(s)))
}

fn parse_payload(text: &str, col: usize) -> Result<LinkState, LinkError> {
    let mut s = LinkState::default();
    let mut rest = text;
    let mut line_no = 0;
    loop {
        line_no += 1;
        let Some(nl) = rest.find('\n') else {
            return Err(LinkError::new(
                col,
                "link content has no blank line between its header and the source",
            ));
        };
        let line = &rest[..nl];
        rest = &rest[nl + 1..];
        if line.is_empty() {
            break;
        }
        let bad = |what: &str| LinkError::new(col, format!("link header line {line_no}: {what}"));
        let Some((k, v)) = line.split_once('=') else {
            return Err(bad("expected key=value"));
        };
        match k {
            "format" => {
                s.format = Some(
                    InputFormat::parse(v).ok_or_else(|| bad("format must be dag, mir or ptx"))?,
                )
            }
            "knobs" => s.knobs = Knobs::from_query(v).map_err(|e| bad(&e.to_string()))?,
            "stage" => s.stage = Some(v.parse().map_err(|e| bad(&format!("{e}")))?),
            "step" => s.step = Some(v.parse().map_err(|_| bad("step must be a number"))?),
            "layout" => {
                if !valid_name(v) {
                    return Err(bad("layout must be a short name of a-z, 0-9, - and _"));
                }
                s.layout = Some(v.into());
            }
            "pictures" => s.pictures = parse_pictures(v).map_err(|m| bad(&m))?,
            _ => {} // a key from a later v1 writer
        }
    }
    s.source = rest.into();
    Ok(s)
}

/// `stage:step,stage:step` (at most [`MAX_PICTURES`] entries).
fn parse_pictures(v: &str) -> Result<Vec<(Stage, u32)>, String> {
    let mut out = Vec::new();
    for item in v.split(',').filter(|i| !i.is_empty()) {
        if out.len() == MAX_PICTURES {
            return Err(format!("pictures holds at most {MAX_PICTURES} entries"));
        }
        let (stage, step) = item
            .split_once(':')
            .ok_or_else(|| format!("pictures entry `{item}`: expected stage:step"))?;
        let stage: Stage = stage
            .parse()
            .map_err(|e| format!("pictures entry `{item}`: {e}"))?;
        let step = step
            .parse()
            .map_err(|_| format!("pictures entry `{item}`: step must be a number"))?;
        out.push((stage, step));
    }
    Ok(out)
}

fn decode_example(frag: &str) -> Result<ExampleLink, LinkError> {
    let mut e = ExampleLink::default();
    let mut col = 1;
    for part in frag.split('&') {
        let bad = |m: String| LinkError::new(col, m);
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| bad(format!("expected key=value, found `{part}`")))?;
        match k {
            "example" => {
                if !valid_name(v) {
                    return Err(bad(format!("`{v}` is not an example name")));
                }
                e.name = v.into();
            }
            "stage" => e.stage = Some(v.parse().map_err(|x| bad(format!("{x}")))?),
            "step" => {
                e.step = Some(
                    v.parse()
                        .map_err(|_| bad(format!("step must be a number, found `{v}`")))?,
                )
            }
            _ => {}
        }
        col += part.len() + 1;
    }
    Ok(e)
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url.
fn base64url_encode(data: &[u8], out: &mut String) {
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
}

/// Reads unpadded (or `=`-padded) base64url; `col` is the column of its first character.
fn base64url_decode(s: &str, col: usize) -> Result<Vec<u8>, LinkError> {
    let s = s.trim_end_matches('=');
    if s.is_empty() {
        return Err(LinkError::new(col, "link has no content after the version"));
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for (i, c) in s.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => {
                return Err(LinkError::new(
                    col + i,
                    "unexpected character in the link; expected base64url (A-Z a-z 0-9 - _)",
                ))
            }
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if s.len() % 4 == 1 {
        return Err(LinkError::new(
            col + s.len() - 1,
            "link content is cut short (truncated base64)",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> LinkState {
        let mut knobs = Knobs::default();
        knobs.set_from_str("sm=sm_80").unwrap();
        knobs.set_from_str("terminal-rule=false").unwrap();
        LinkState {
            source: "---\nname: k\nbody: |\n  bb.0:\n    Return\n...\n".into(),
            format: Some(InputFormat::Mir),
            knobs,
            stage: Some(Stage::TwoAddress),
            step: Some(7),
            layout: Some("side-by-side".into()),
            pictures: alloc::vec![
                (Stage::TwoAddress, 3),
                (Stage::NvptxCoalescer, 0),
                (Stage::GeneralOptimize, 11),
            ],
        }
    }

    /// A state link around a raw payload.
    fn pack(t: &str) -> String {
        let mut out = String::from("v1.");
        base64url_encode(
            &miniz_oxide::deflate::compress_to_vec(t.as_bytes(), 6),
            &mut out,
        );
        out
    }

    #[test]
    fn links_written_before_pictures_existed_still_decode() {
        // Made by the previous writer: `copyscope link encode --stage two-address
        // --step 7 --layout presenter` on a five-line MIR file.
        let old = "v1.DcjBCcAgDAXQ-58iCyi9FQSX6AYRQw9tVUykCB2-nh48NT4l2lsd59xFFWrS4o6bZx0W2zopJh1wzqHwI4EupJpnoA9EKfktLIkOsdELvPf4AQ";
        let Link::State(s) = decode(old).unwrap() else {
            panic!("a state link")
        };
        assert_eq!(
            (s.stage, s.step, s.layout.as_deref()),
            (Some(Stage::TwoAddress), Some(7), Some("presenter"))
        );
        assert!(s.pictures.is_empty());
        assert!(s.source.contains("name: k"));
        // And the new key round-trips, bad entries are refused with the header line.
        let Link::State(s) =
            decode(&pack("pictures=two-address:3,general-optimize-mid:0\n\nx")).unwrap()
        else {
            panic!("a state link")
        };
        assert_eq!(
            s.pictures,
            [(Stage::TwoAddress, 3), (Stage::GeneralOptimizeMid, 0)]
        );
        for bad in [
            "pictures=two-address\n\nx",
            "pictures=nowhere:1\n\nx",
            "pictures=two-address:x\n\nx",
        ] {
            let e = decode(&pack(bad)).unwrap_err();
            assert!(
                e.message.contains("header line 1: pictures entry"),
                "{}",
                e.message
            );
        }
        let many = format!("pictures={}\n\nx", ["two-address:1"; 9].join(","));
        assert!(decode(&pack(&many))
            .unwrap_err()
            .message
            .contains("at most 8"));
    }

    #[test]
    fn state_links_round_trip() {
        let s = state();
        let enc = encode_state(&s);
        assert!(enc.starts_with("v1."));
        assert!(enc[3..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(encode_state(&s), enc, "deterministic");
        let url = format!("https://example.invalid/copyscope/#{enc}");
        assert_eq!(decode(&url).unwrap(), Link::State(s.into()));
        let empty = LinkState::default();
        assert_eq!(
            decode(&encode_state(&empty)).unwrap(),
            Link::State(empty.into())
        );
    }

    #[test]
    fn example_links_round_trip() {
        let e = ExampleLink {
            name: "tex-extract".into(),
            stage: Some(Stage::TwoAddress),
            step: Some(3),
        };
        let enc = encode_example(&e);
        assert_eq!(enc, "example=tex-extract&stage=two-address&step=3");
        assert_eq!(decode(&format!("#{enc}")).unwrap(), Link::Example(e));
    }

    #[test]
    fn base64_round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).collect();
        for n in 0..40 {
            let mut s = String::new();
            base64url_encode(&data[..n], &mut s);
            if n > 0 {
                assert_eq!(base64url_decode(&s, 1).unwrap(), &data[..n]);
            }
        }
    }

    #[test]
    fn bad_links_are_refused_with_a_column() {
        let good = encode_state(&state());
        let cases: Vec<(String, &str)> = alloc::vec![
            ("".into(), "expected `v1.`"),
            ("#v2.AAAA".into(), "version 2 is not supported"),
            ("#v.AAAA".into(), "version number"),
            ("#v1.".into(), "no content"),
            ("#v1.AB*D".into(), "unexpected character"),
            ("#v1.A".into(), "truncated"),
            ("#v1.AAAAAAAA".into(), "damaged"),
            (format!("#{}", &good[..good.len() / 2]), ""),
            ("#example=Bad Name!".into(), "not an example name"),
            ("#example=x&step=many".into(), "step must be a number"),
            ("#example=x&stage=nowhere".into(), "unknown stage"),
        ];
        for (link, want) in cases {
            let e = decode(&link).expect_err(&link);
            assert!(e.col >= 1);
            assert!(e.message.contains(want), "{link}: {}", e.message);
        }
        let e = decode("#v1.A*").unwrap_err();
        assert_eq!(e.col, 5);
    }

    #[test]
    fn payload_errors_name_the_header_line() {
        let e = decode(&pack("format=mir\nknobs=nope=1\n\nsrc")).unwrap_err();
        assert!(e.message.contains("header line 2") && e.message.contains("unknown knob"));
        let e = decode(&pack("format=mir")).unwrap_err();
        assert!(e.message.contains("no blank line"));
        let e = decode(&pack("format=x86\n\n")).unwrap_err();
        assert!(e.message.contains("dag, mir or ptx"));
        // Unknown keys from later writers are skipped.
        let ok = decode(&pack("theme=dark\n\nsrc")).unwrap();
        assert_eq!(
            ok,
            Link::State(
                LinkState {
                    source: "src".into(),
                    ..LinkState::default()
                }
                .into()
            )
        );
    }

    #[test]
    fn decoding_is_bounded() {
        // A tiny link that would inflate far past the limit is refused.
        let zeros = alloc::vec![b'a'; MAX_PAYLOAD_BYTES + 10];
        let mut link = String::from("v1.");
        base64url_encode(&miniz_oxide::deflate::compress_to_vec(&zeros, 9), &mut link);
        assert!(link.len() < 20_000);
        let e = decode(&link).unwrap_err();
        assert!(e.message.contains("larger than"), "{}", e.message);
        let long = "v1.".to_string() + &"A".repeat(MAX_LINK_CHARS);
        assert!(decode(&long).unwrap_err().message.contains("limit"));
    }
}
