//! The JS API as wasm, in Node (`cargo xtask test`, step `wasm-node`): what embedding
//! pages and headless tests call. Values go in and out as plain JS objects.
#![cfg(target_family = "wasm")]

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;
use web_engine::js;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).unwrap()
}

fn options(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &JsValue::from_str(k), v).unwrap();
    }
    o.into()
}

/// The object's own keys, in order.
fn keys(v: &JsValue) -> Vec<String> {
    let o = Object::from(v.clone());
    Object::keys(&o)
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect()
}

fn tex() -> &'static str {
    compiler_core::examples::find("tex-v4f32").unwrap().forms[0].1
}

#[wasm_bindgen_test]
fn run_returns_stats_and_step_counts() {
    let r = js::run(tex(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&r, "inputFormat"), "mir");
    assert_eq!(get(&r, "entry"), "two-address");
    let stages = Array::from(&get(&r, "stages"));
    assert!(stages.length() >= 3);
    let two = stages.get(0);
    assert_eq!(get(&two, "id"), "two-address");
    let stats = get(&two, "stats");
    assert_eq!(get(&stats, "extract_subreg_copies").as_f64(), Some(4.0));
    let steps = get(&two, "steps").as_f64().unwrap();
    let changing = get(&two, "changingSteps").as_f64().unwrap();
    assert!(steps >= 7.0 && changing < steps, "{steps} {changing}");
    assert!(get(&two, "verify").is_null());
    assert!(get(&two, "stepList").is_undefined());
    // Every field, in order, as the API has always laid them out.
    assert_eq!(keys(&r), ["inputFormat", "entry", "stages", "output"]);
    let stage_keys = [
        "id",
        "stats",
        "steps",
        "changingSteps",
        "functions",
        "remarks",
        "verify",
    ];
    assert_eq!(keys(&two), stage_keys);
    assert_eq!(
        keys(&stats)[..2],
        ["extract_subreg_pseudos", "extract_subreg_copies"]
    );
    let functions = Array::from(&get(&two, "functions"));
    let f = functions.get(0);
    assert_eq!(keys(&f), ["function", "first", "count"]);
    assert_eq!(get(&f, "function"), "tex_v4f32");
    assert_eq!(get(&f, "first").as_f64(), Some(0.0));
    assert_eq!(get(&f, "count").as_f64(), Some(steps));
    assert!(Array::is_array(&get(&two, "remarks")));
    // Through both coalescers: the lane COPYs are joined away, no EXTRACT_SUBREG is left.
    let output = get(&r, "output").as_string().unwrap();
    assert!(output.contains("tex_v4f32") && !output.contains("EXTRACT_SUBREG"));
}

#[wasm_bindgen_test]
fn run_takes_until_knobs_verify_and_steps() {
    let knobs = options(&[
        ("twoaddr-reschedule", JsValue::FALSE),
        ("dataflow-edge-limit", JsValue::from(5)),
    ]);
    let r = js::run(
        tex(),
        options(&[
            ("until", "two-address".into()),
            ("knobs", knobs),
            ("verify", JsValue::TRUE),
            ("steps", JsValue::TRUE),
        ]),
    )
    .unwrap();
    let stages = Array::from(&get(&r, "stages"));
    assert_eq!(stages.length(), 1);
    let two = stages.get(0);
    assert_eq!(get(&two, "verify"), "ok");
    let list = Array::from(&get(&two, "stepList"));
    assert_eq!(keys(&two).last().unwrap(), "stepList");
    assert_eq!(keys(&list.get(0)), ["kind", "narration", "changes"]);
    let third = list.get(2);
    assert_eq!(get(&third, "kind"), "extract_subreg_copy");
    assert!(get(&third, "narration")
        .as_string()
        .unwrap()
        .contains("Pair 1 of 4"));
    assert_eq!(get(&third, "changes"), JsValue::TRUE);
    // Knobs as a query string work too.
    js::run(tex(), options(&[("knobs", "copy-limit=3".into())])).unwrap();
}

#[wasm_bindgen_test]
fn errors_are_thrown_with_positions() {
    let bad = "---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 1\n    %1:b32 = ADD32rr %0, ,\n    Return\n...\n";
    let e = js::run(bad, JsValue::UNDEFINED).unwrap_err();
    assert!(e.is_instance_of::<js_sys::Error>());
    let errors = Array::from(&get(&e, "errors"));
    assert_eq!(errors.length(), 1);
    assert_eq!(keys(&errors.get(0)), ["line", "col", "message"]);
    assert_eq!(get(&errors.get(0), "line").as_f64(), Some(6.0));
    assert!(get(&errors.get(0), "col").as_f64().unwrap() > 0.0);
    let e = js::run(tex(), options(&[("knobs", "copy-limit=lots".into())])).unwrap_err();
    let message = get(&e, "message").as_string().unwrap();
    assert!(message.contains("copy-limit"), "{message}");
    let e = js::run(tex(), options(&[("until", "nowhere".into())])).unwrap_err();
    assert!(get(&e, "message").as_string().unwrap().contains("nowhere"));
}

#[wasm_bindgen_test]
fn listings_and_links() {
    let examples = Array::from(&js::examples().unwrap());
    assert_eq!(
        examples.length() as usize,
        compiler_core::examples::EXAMPLES.len()
    );
    assert!(examples.iter().any(|e| get(&e, "name") == "tex-v4f32"));
    let stages = Array::from(&js::stages().unwrap());
    assert_eq!(stages.length(), 14);
    assert_eq!(get(&stages.get(2), "id"), "two-address");
    assert_eq!(get(&stages.get(2), "implemented"), JsValue::TRUE);
    let knobs = Array::from(&js::knobs().unwrap());
    assert!(knobs
        .iter()
        .any(|k| get(&k, "name") == "copy-limit" && get(&k, "default") == "unlimited"));

    let state = options(&[
        ("source", tex().into()),
        ("knobs", "copy-limit=5".into()),
        ("stage", "two-address".into()),
        ("step", JsValue::from(3)),
        ("layout", "presenter".into()),
    ]);
    let fragment = js::encode_link(state).unwrap();
    assert!(fragment.starts_with("v1."));
    let back = js::decode_link(&format!("https://example.invalid/#{fragment}")).unwrap();
    assert_eq!(get(&back, "kind"), "state");
    assert_eq!(get(&back, "knobs"), "copy-limit=5");
    assert_eq!(get(&back, "stage"), "two-address");
    assert_eq!(get(&back, "step").as_f64(), Some(3.0));
    assert_eq!(get(&back, "source").as_string().unwrap(), tex());
    let short = js::decode_link("#example=tex-v4f32&stage=two-address&step=3").unwrap();
    assert_eq!(get(&short, "kind"), "example");
    assert_eq!(get(&short, "name"), "tex-v4f32");
    let e = js::decode_link("#v1.AAAAAAAA").unwrap_err();
    assert!(get(&e, "col").as_f64().is_some());
}
