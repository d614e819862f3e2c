//! The units of the search: knobs merged by user groups and rustc's pairs (union-find).

use std::collections::BTreeMap;

use crate::model::{Coupling, Knob, Unit};

use super::couplings::{Couplings, Pin};


pub(super) struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind { parent: (0..n).collect() }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`; `false` when they were one already.
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        // The smaller index becomes the root: roots are deterministic.
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.parent[hi] = lo;
        true
    }
}

/// The units of the search: knobs merged by their `#[tune(group = "..")]` ([`Knob::group`]) and by
/// rustc's pairs (transitively), ordered by their smallest knob id.
///
/// A unit's coupling is the first reason that joined two of its knobs (groups before rustc's pairs,
/// each in order); a unit is pinned, at the place of the first pin of any of its knobs, when
/// rustc holds one of them at its declared format.
pub fn units(knobs: &[Knob], couplings: &Couplings) -> Vec<Unit> {
    let index: BTreeMap<usize, usize> = knobs.iter().enumerate().map(|(i, k)| (k.id, i)).collect();
    let mut uf = UnionFind::new(knobs.len());
    // (knob index, why) of each union that joined two sets, in order.
    let mut reasons: Vec<(usize, Coupling)> = Vec::new();
    let mut first_of_group: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, k) in knobs.iter().enumerate() {
        let Some(g) = k.group.as_deref() else { continue };
        match first_of_group.get(g) {
            None => {
                first_of_group.insert(g, i);
            }
            Some(&f) => {
                if uf.union(f, i) {
                    reasons.push((i, Coupling::Group { name: g.to_string() }));
                }
            }
        }
    }
    for p in &couplings.pairs {
        let (Some(&a), Some(&b)) = (index.get(&p.knobs.0), index.get(&p.knobs.1)) else { continue };
        if uf.union(a, b) {
            reasons.push((a, Coupling::Rustc { place: p.place.clone() }));
        }
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, k) in knobs.iter().enumerate() {
        members.entry(uf.find(i)).or_default().push(k.id);
    }
    let mut sets: Vec<(usize, Vec<usize>)> = members.into_iter().collect();
    for (_, ids) in &mut sets {
        ids.sort_unstable();
    }
    sets.sort_by_key(|(_, ids)| ids[0]);
    sets.into_iter()
        .enumerate()
        .map(|(id, (root, ids))| {
            let coupling = reasons
                .iter()
                .find(|(i, _)| uf.find(*i) == root)
                .map_or(Coupling::Alone, |(_, c)| c.clone());
            let pinned = couplings.pinned.iter().find(|p| ids.contains(&p.knob)).map(|p| {
                if p.meets.contains(": ") {
                    // A trial's bound (`T: SubsetOf<f32>`): nothing the user marks lifts it.
                    format!("at {} the bound `{}` does not hold below its declared format", p.place, p.meets)
                } else {
                    format!("at {} it meets `{}`", p.place, p.meets)
                }
            });
            Unit { id, knobs: ids, coupling, pinned, unchecked: false }
        })
        .collect()
}

/// The units that cannot go below 32 bits (one of their knobs receives a float literal where only
/// `f32`/`f64` work, or a trial at 16 bits did not build), by unit id, with what says so.
pub fn units_without_16bit<'c>(units: &[Unit], couplings: &'c Couplings) -> BTreeMap<usize, &'c Pin> {
    units.iter().filter_map(|u| couplings.no_16bit.iter().find(|p| u.knobs.contains(&p.knob)).map(|p| (u.id, p))).collect()
}
