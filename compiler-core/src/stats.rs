//! Per-pass counters: an ordered list of snake_case names and values. Order is the order
//! a pass declares them, so JSON output is deterministic.

use alloc::vec::Vec;
use serde::ser::{Serialize, SerializeMap, Serializer};

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Every declared counter in declaration order; `None` is an optional counter its
    /// mechanism has not counted (kept so that merging keeps the declared order).
    entries: Vec<(&'static str, Option<u64>)>,
}

impl Stats {
    /// Starts with every counter of `names` at zero, in that order.
    pub fn with(names: &[&'static str]) -> Self {
        Stats {
            entries: names.iter().map(|&n| (n, Some(0))).collect(),
        }
    }

    /// The counters as given, in order (names distinct): what [`pass_stats!`]'s
    /// conversion builds.
    pub(crate) fn from_entries(entries: Vec<(&'static str, Option<u64>)>) -> Self {
        Stats { entries }
    }

    pub fn add(&mut self, name: &'static str, by: u64) {
        match self.entries.iter_mut().find(|(n, _)| same(n, name)) {
            Some((_, v)) => *v = Some(v.unwrap_or(0) + by),
            None => self.entries.push((name, Some(by))),
        }
    }

    pub fn inc(&mut self, name: &'static str) {
        self.add(name, 1)
    }

    pub fn set(&mut self, name: &'static str, value: u64) {
        match self.entries.iter_mut().find(|(n, _)| same(n, name)) {
            Some((_, v)) => *v = Some(value),
            None => self.entries.push((name, Some(value))),
        }
    }

    pub fn get(&self, name: &str) -> u64 {
        self.entries
            .iter()
            .find(|(n, _)| same(n, name))
            .and_then(|e| e.1)
            .unwrap_or(0)
    }

    /// The reported counters, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.entries.iter().filter_map(|&(n, v)| Some((n, v?)))
    }

    /// Adds every counter of `other` into `self` (summing functions of a module). A
    /// counter `self` lacks is appended, counted or not, so two stats of one pass merge
    /// into its declared order whichever function counted an optional counter first.
    pub fn merge(&mut self, other: &Stats) {
        for (k, &(n, v)) in other.entries.iter().enumerate() {
            // Stats of one pass list their counters in one order, and no name twice
            // (every way in finds a name before adding it), so the counter is usually
            // at the same position here: no search then (a module of many functions
            // merges once per function).
            let at = match self.entries.get(k) {
                Some((m, _)) if same(m, n) => Some(k),
                _ => self.entries.iter().position(|(m, _)| same(m, n)),
            };
            match at.map(|p| &mut self.entries[p]) {
                Some((_, mine)) => {
                    if let Some(v) = v {
                        *mine = Some(mine.unwrap_or(0) + v);
                    }
                }
                None => self.entries.push((n, v)),
            }
        }
    }
}

/// Equal when they report the same counters with the same values in the same order.
impl PartialEq for Stats {
    fn eq(&self, other: &Stats) -> bool {
        self.iter().eq(other.iter())
    }
}
impl Eq for Stats {}

/// Name equality, first by address: the passes name a counter with the same literal
/// each time, so the text is compared only when the addresses differ.
fn same(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.iter().count()))?;
        for (k, v) in self.iter() {
            m.serialize_entry(k, &v)?;
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
                // Every field at zero, the optional ones uncounted, then each field
                // set (names are distinct): built in one go, without a search per
                // field, as passes convert once per function.
                $crate::stats::Stats::from_entries(alloc::vec![
                    $((stringify!($field), Some(s.$field)),)*
                    $($((stringify!($opt), s.$opt),)*)?
                ])
            }
        }
    };
}
pub(crate) use pass_stats;

/// [`pass_stats!`] for a coalescer: the keys the CLI contract names for both coalescers
/// (DESIGN.md) come first, in its order, declared here once; the pass's own follow.
macro_rules! coalescer_stats {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$fmeta:meta])* $field:ident),* $(,)?
        }
        $(optional {
            $($(#[$ometa:meta])* $opt:ident),* $(,)?
        })?
    ) => {
        $crate::stats::pass_stats! {
            $(#[$meta])*
            $vis struct $name {
                /// COPYs in the function when the pass starts.
                copies_before,
                /// COPYs left when it ends.
                copies_after,
                /// Copies whose two registers were made one.
                joined,
                /// Joins refused because the two registers' live ranges interfere.
                interference_rejections,
                /// Rounds over the copies an earlier round left for later.
                retry_rounds,
                /// Red-black rotations of the NVPTX coalescer's interval tree.
                rb_rotations,
                $($(#[$fmeta])* $field),*
            }
            $(optional {
                $($(#[$ometa])* $opt),*
            })?
        }
    };
}
pub(crate) use coalescer_stats;

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

    coalescer_stats! {
        struct DemoCoalescer {
            own,
        }
        optional {
            rare,
        }
    }

    /// The CLI contract's coalescer keys (DESIGN.md) lead, in its order.
    #[test]
    fn coalescer_stats_start_with_the_shared_keys() {
        let d = DemoCoalescer {
            joined: 4,
            rare: Some(1),
            ..DemoCoalescer::default()
        };
        let s: Stats = d.into();
        let keys: Vec<(&str, u64)> = s.iter().collect();
        assert_eq!(
            keys,
            [
                ("copies_before", 0),
                ("copies_after", 0),
                ("joined", 4),
                ("interference_rejections", 0),
                ("retry_rounds", 0),
                ("rb_rotations", 0),
                ("own", 0),
                ("rare", 1)
            ]
        );
    }

    /// Counters in another order than the total's (or missing from it) are found by
    /// name, not by position.
    #[test]
    fn merging_stats_in_another_order_adds_by_name() {
        let mut total: Stats = Demo {
            first: 1,
            second: 2,
            ..Demo::default()
        }
        .into();
        let mut other = Stats::default();
        other.add("second", 5);
        other.add("first", 7);
        other.add("extra", 1);
        other.add("rare", 4);
        total.merge(&other);
        let keys: Vec<(&str, u64)> = total.iter().collect();
        assert_eq!(
            keys,
            [("first", 8), ("second", 7), ("rare", 4), ("extra", 1)]
        );
    }

    #[test]
    fn merged_stats_keep_declaration_order_whichever_function_counted_first() {
        let one = Demo {
            rarer: Some(1),
            ..Demo::default()
        };
        let two = Demo {
            first: 3,
            rare: Some(2),
            ..Demo::default()
        };
        let mut total = Stats::default();
        total.merge(&one.into());
        total.merge(&two.into());
        let keys: Vec<(&str, u64)> = total.iter().collect();
        assert_eq!(
            keys,
            [("first", 3), ("second", 0), ("rare", 2), ("rarer", 1)]
        );
    }
}
