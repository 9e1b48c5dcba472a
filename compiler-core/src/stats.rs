//! Per-pass counters: an ordered list of snake_case names and values. Order is the order
//! a pass declares them, so JSON output is deterministic.

use alloc::vec::Vec;
use serde::ser::{Serialize, SerializeMap, Serializer};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    entries: Vec<(&'static str, u64)>,
}

impl Stats {
    /// Starts with every counter of `names` at zero, in that order.
    pub fn with(names: &[&'static str]) -> Self {
        Stats {
            entries: names.iter().map(|&n| (n, 0)).collect(),
        }
    }

    pub fn add(&mut self, name: &'static str, by: u64) {
        match self.entries.iter_mut().find(|(n, _)| same(n, name)) {
            Some((_, v)) => *v += by,
            None => self.entries.push((name, by)),
        }
    }

    pub fn inc(&mut self, name: &'static str) {
        self.add(name, 1)
    }

    pub fn set(&mut self, name: &'static str, value: u64) {
        match self.entries.iter_mut().find(|(n, _)| same(n, name)) {
            Some((_, v)) => *v = value,
            None => self.entries.push((name, value)),
        }
    }

    pub fn get(&self, name: &str) -> u64 {
        self.entries
            .iter()
            .find(|(n, _)| same(n, name))
            .map_or(0, |e| e.1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.entries.iter().copied()
    }

    /// Adds every counter of `other` into `self` (summing functions of a module).
    pub fn merge(&mut self, other: &Stats) {
        for (n, v) in other.iter() {
            self.add(n, v);
        }
    }
}

/// Name equality, first by address: the passes name a counter with the same literal
/// each time, so the text is compared only when the addresses differ. Passes bump
/// counters inside their per-block loops.
fn same(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Declares a pass's counters as a struct of typed fields, converted into [`Stats`] in
/// declaration order (the order of the JSON keys). Fields in `optional { }` are
/// `Option<u64>`: reported only once the mechanism that counts them has counted (a knob
/// turned it on), after the others, in declaration order.
///
/// ```ignore
/// pass_stats! {
///     pub struct PhiElimStats { phis_lowered, copies_inserted }
///     optional { dessa_copies }
/// }
/// ```
macro_rules! pass_stats {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$fmeta:meta])* $field:ident),* $(,)?
        }
        $(optional {
            $($(#[$ometa:meta])* $opt:ident),* $(,)?
        })?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        $vis struct $name {
            $($(#[$fmeta])* pub $field: u64,)*
            $($($(#[$ometa])* pub $opt: Option<u64>,)*)?
        }

        impl From<$name> for $crate::stats::Stats {
            fn from(s: $name) -> Self {
                let mut out = $crate::stats::Stats::with(&[$(stringify!($field)),*]);
                $(out.set(stringify!($field), s.$field);)*
                $($(if let Some(v) = s.$opt {
                    out.set(stringify!($opt), v);
                })*)?
                out
            }
        }
    };
}
pub(crate) use pass_stats;

/// Adds `by` to an optional counter, starting it at zero.
pub(crate) fn bump(counter: &mut Option<u64>, by: u64) {
    *counter.get_or_insert(0) += by;
}

#[cfg(test)]
mod tests {
    use super::*;

    pass_stats! {
        struct Demo {
            first,
            second,
        }
        optional {
            rare,
            rarer,
        }
    }

    #[test]
    fn typed_stats_keep_declaration_order_and_skip_uncounted_optionals() {
        let mut d = Demo::default();
        d.second += 2;
        bump(&mut d.rarer, 0);
        let s: Stats = d.into();
        let keys: Vec<(&str, u64)> = s.iter().collect();
        assert_eq!(keys, [("first", 0), ("second", 2), ("rarer", 0)]);
    }
}
