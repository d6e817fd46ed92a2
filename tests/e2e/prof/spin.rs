// SPDX-License-Identifier: GPL-2.0-only
// A fixture for sonde's Rust tests (tests/e2e/test_prof.py, and
// tests/unit/test_dwarf.c): a generic method kept out of line, whose
// symbol holds a path, an impl and generic arguments, so its readable
// name has '<', '>' and "::". It spins for the number of rounds given.
// rustc puts its DWARF inside DW_TAG_namespace and DW_TAG_structure_type,
// with std's functions inlined into it.
use std::ptr::{read_volatile, write_volatile};

pub struct Spinner<T> {
    v: T,
}

impl<T: Copy + std::ops::Add<Output = T>> Spinner<T> {
    #[inline(never)]
    pub fn spin(&mut self, step: T, rounds: u64) -> T {
        for _ in 0..rounds {
            unsafe { write_volatile(&mut self.v, read_volatile(&self.v) + step) }
        }
        self.v
    }
}

fn main() {
    let rounds: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let mut s = Spinner { v: 0u64 };
    println!("{}", s.spin(3, rounds));
}
