//! The NVPTX coalescer (spec: `register-coalescing-cicc.txt`, `sub_34AF4A0`).
//! Its interval index, the red-black tree, is in [`interval_tree`].

pub mod interval_tree;
