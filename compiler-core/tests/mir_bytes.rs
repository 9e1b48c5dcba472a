//! The MIR module's byte form (`trace::module_bytes`, how the DAG wasm hands instr-emitter's
//! module to the engine): every gallery MIR and the bundle fixture, with an instruction
//! erased and one inserted (so storage and layout differ), read back field for field
//! equal (`Debug` prints every field: arena indices, layout links, interned names).

use compiler_core::examples::EXAMPLES;
use compiler_core::mir::{parse_module, Module};
use compiler_core::trace::module_bytes::{module_bytes, module_from_bytes};
use compiler_core::InputFormat;

fn edited(mut m: Module) -> Module {
    for f in &mut m.functions {
        let insts: Vec<_> = f.all_insts().map(|(_, i)| i).collect();
        if let [first, second, ..] = insts[..] {
            let copy = f.insts[second].clone();
            f.erase(second);
            f.insert_before(first, copy);
        }
    }
    m
}

#[test]
fn every_module_reads_back_equal() {
    let bundle = include_str!("fixtures/bundles/bundle.mir");
    let sources = (EXAMPLES.iter())
        .flat_map(|e| e.forms.iter())
        .filter(|(f, _)| *f == InputFormat::Mir)
        .map(|(_, text)| *text)
        .chain([bundle]);
    let mut n = 0;
    for text in sources {
        let m = edited(parse_module(text).unwrap());
        let back = module_from_bytes(&module_bytes(&m));
        assert_eq!(format!("{back:?}"), format!("{m:?}"), "{text}");
        n += 1;
    }
    assert!(n >= 5, "{n} modules");
}

#[test]
fn a_changed_field_reads_back_changed() {
    let m = parse_module(include_str!("fixtures/bundles/bundle.mir")).unwrap();
    assert!(!m.functions[0].bundles.is_empty());
    let mut other = m.clone();
    other.functions[0].bundles.clear();
    let (a, b) = (module_bytes(&m), module_bytes(&other));
    assert_ne!(a, b);
    assert_eq!(format!("{:?}", module_from_bytes(&b)), format!("{other:?}"));
}
