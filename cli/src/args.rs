//! A small command-line reader for the fixed contract: `--name VALUE`, `--name=VALUE`,
//! switches, positionals, `-` (stdin) and `--` (end of options). Anything else is a
//! usage error naming the valid options.

/// What a subcommand accepts.
pub struct Spec {
    /// Subcommand, for messages (`run`, `link encode`, ...).
    pub command: &'static str,
    /// Options that take a value.
    pub values: &'static [&'static str],
    /// Options that take a value and may repeat (kept in order).
    pub repeated: &'static [&'static str],
    /// Options without a value.
    pub switches: &'static [&'static str],
}

/// The parsed command line of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    pub positional: Vec<String>,
    /// Options in command-line order: name (with `--`) and value (None for switches).
    opts: Vec<(&'static str, Option<String>)>,
}

impl Args {
    /// The value of a single-valued option.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.opts
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every value of a repeatable option, in order.
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.opts
            .iter()
            .filter(|(n, _)| *n == name)
            .filter_map(|(_, v)| v.as_deref())
            .collect()
    }

    pub fn switch(&self, name: &str) -> bool {
        self.opts.iter().any(|(n, _)| *n == name)
    }
}

impl Spec {
    fn valid(&self) -> String {
        let mut all: Vec<&str> = Vec::new();
        all.extend(self.values);
        all.extend(self.repeated);
        all.extend(self.switches);
        all.join(", ")
    }

    fn find(&self, name: &str) -> Option<(&'static str, bool)> {
        let v = self
            .values
            .iter()
            .chain(self.repeated)
            .find(|&&n| n == name);
        if let Some(&n) = v {
            return Some((n, true));
        }
        self.switches
            .iter()
            .find(|&&n| n == name)
            .map(|&n| (n, false))
    }

    /// Reads `args` (the words after the subcommand).
    pub fn parse(&self, args: &[String]) -> Result<Args, String> {
        let mut out = Args::default();
        let mut it = args.iter();
        let mut only_positional = false;
        while let Some(a) = it.next() {
            if only_positional || a == "-" || !a.starts_with('-') {
                out.positional.push(a.clone());
                continue;
            }
            if a == "--" {
                only_positional = true;
                continue;
            }
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (a.as_str(), None),
            };
            let Some((name, takes_value)) = self.find(name) else {
                return Err(format!(
                    "unknown option `{name}` for `copyscope {}`; valid options: {}",
                    self.command,
                    self.valid()
                ));
            };
            if takes_value {
                let v = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| format!("option `{name}` needs a value"))?,
                };
                if self.values.contains(&name) && out.value(name).is_some() {
                    return Err(format!("option `{name}` is given twice"));
                }
                out.opts.push((name, Some(v)));
            } else {
                if inline.is_some() {
                    return Err(format!("option `{name}` takes no value"));
                }
                out.opts.push((name, None));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        command: "run",
        values: &["--from"],
        repeated: &["--knob"],
        switches: &["--json"],
    };

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn reads_both_value_spellings_and_repeats() {
        let a = SPEC
            .parse(&words("x.mir --from=mir --knob a=1 --json --knob=b=2 -"))
            .unwrap();
        assert_eq!(a.positional, ["x.mir", "-"]);
        assert_eq!(a.value("--from"), Some("mir"));
        assert_eq!(a.values("--knob"), ["a=1", "b=2"]);
        assert!(a.switch("--json"));
    }

    #[test]
    fn refuses_what_the_contract_does_not_have() {
        assert!(SPEC
            .parse(&words("--frm mir"))
            .unwrap_err()
            .contains("--from"));
        assert!(SPEC
            .parse(&words("--from"))
            .unwrap_err()
            .contains("needs a value"));
        assert!(SPEC
            .parse(&words("--from a --from b"))
            .unwrap_err()
            .contains("twice"));
        assert!(SPEC.parse(&words("--json=1")).is_err());
        let a = SPEC.parse(&words("-- --json")).unwrap();
        assert_eq!(a.positional, ["--json"]);
    }
}
