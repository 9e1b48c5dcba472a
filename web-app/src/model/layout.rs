//! Page layouts and playback speeds: small enums with the stable ids permalinks store.

/// How the workspace is arranged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Layout {
    /// Source, IR and picture side by side.
    #[default]
    Standard,
    /// For a projector: the source column folds away and the text grows.
    Presenter,
    /// Three pass pictures at once (EXTRACT_SUBREG, coalescing, GeneralOptimize), each
    /// at its own step.
    SideBySide,
}

impl Layout {
    pub const ALL: [Layout; 3] = [Layout::Standard, Layout::Presenter, Layout::SideBySide];

    /// The id stored in permalinks (`layout=...`).
    pub const fn id(self) -> &'static str {
        match self {
            Layout::Standard => "standard",
            Layout::Presenter => "presenter",
            Layout::SideBySide => "side-by-side",
        }
    }

    pub const fn label(self) -> &'static str {
        match self {
            Layout::Standard => "Standard",
            Layout::Presenter => "Presenter (large text, no source)",
            Layout::SideBySide => "Pictures side by side",
        }
    }

    /// The layout with this id; unknown ids (a later build's layouts) read as standard.
    pub fn from_id(id: &str) -> Layout {
        Layout::ALL
            .into_iter()
            .find(|l| l.id() == id)
            .unwrap_or_default()
    }
}

/// Autoplay speed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Speed {
    Slow,
    #[default]
    Normal,
    Fast,
    Fastest,
}

impl Speed {
    pub const ALL: [Speed; 4] = [Speed::Slow, Speed::Normal, Speed::Fast, Speed::Fastest];

    /// Time between steps.
    pub const fn interval_ms(self) -> u32 {
        match self {
            Speed::Slow => 2000,
            Speed::Normal => 1000,
            Speed::Fast => 500,
            Speed::Fastest => 150,
        }
    }

    pub const fn id(self) -> &'static str {
        match self {
            Speed::Slow => "0.5",
            Speed::Normal => "1",
            Speed::Fast => "2",
            Speed::Fastest => "6",
        }
    }

    pub const fn label(self) -> &'static str {
        match self {
            Speed::Slow => "0.5×",
            Speed::Normal => "1×",
            Speed::Fast => "2×",
            Speed::Fastest => "6×",
        }
    }

    pub fn from_id(id: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        for l in Layout::ALL {
            assert_eq!(Layout::from_id(l.id()), l);
            assert!(compiler_core::share::valid_name(l.id()));
        }
        assert_eq!(Layout::from_id("side-by-side-3000"), Layout::Standard);
        for s in Speed::ALL {
            assert_eq!(Speed::from_id(s.id()), Some(s));
        }
        assert!(Speed::ALL
            .windows(2)
            .all(|w| w[0].interval_ms() > w[1].interval_ms()));
    }
}
