// Markers never break a native build (issue 44, item 9): a float whose type rustc infers from
// where it meets a typed one (`let mut s = 0.0; s += a[i] * b[i];`) gets that type in marked code
// as in unmarked code, so a later method call on it (`s.sqrt()`) compiles; so does an integer cast
// to a float whose type rustc has not inferred yet. Each function is the same code unmarked in
// `plain`, which must give the same values.

#[fptune::tune]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    #[tune] let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s.sqrt()
}

#[fptune::tune]
fn pushed_later() -> f64 {
    let mut a = Vec::new();
    let mut b = Vec::new();
    #[tune] let mut s = 0.0;
    for i in 0..3 {
        a.push(i as f64);
        b.push(2.0 * i as f64);
    }
    for i in 0..3 {
        s += a[i] * b[i];
    }
    s.sqrt()
}

#[fptune::tune]
fn element_meets_typed() -> f64 {
    let a = vec![1.0, 2.0, 3.0];
    let y: f64 = 2.0;
    let z = a[1] * y;
    z.sqrt()
}

#[fptune::tune]
fn binding_meets_typed() -> f32 {
    let y: f32 = 2.0;
    let s = 1.5;
    let t = s * y;
    let mut u = 0.5;
    u = u + y;
    let mut w = 3.0;
    w *= y;
    t.sqrt() + u.sqrt() + w.sqrt()
}

#[fptune::tune]
fn compared() -> f64 {
    let y: f64 = 2.0;
    let s = 1.0;
    if s < y { s.sqrt() } else { y }
}

#[fptune::tune]
fn cast_of_an_untyped_integer() -> Vec<f64> {
    let n = 4;
    (0..n).map(|i| (std::f64::consts::PI * (i + 1) as f64 / 65.0).sin()).collect()
}

mod plain {
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..a.len() {
            s += a[i] * b[i];
        }
        s.sqrt()
    }

    pub fn pushed_later() -> f64 {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let mut s = 0.0;
        for i in 0..3 {
            a.push(i as f64);
            b.push(2.0 * i as f64);
        }
        for i in 0..3 {
            s += a[i] * b[i];
        }
        s.sqrt()
    }

    pub fn element_meets_typed() -> f64 {
        let a = vec![1.0, 2.0, 3.0];
        let y: f64 = 2.0;
        let z = a[1] * y;
        z.sqrt()
    }

    pub fn binding_meets_typed() -> f32 {
        let y: f32 = 2.0;
        let s = 1.5;
        let t = s * y;
        let mut u = 0.5;
        u = u + y;
        let mut w = 3.0;
        w *= y;
        t.sqrt() + u.sqrt() + w.sqrt()
    }

    pub fn cast_of_an_untyped_integer() -> Vec<f64> {
        let n = 4;
        (0..n).map(|i| (std::f64::consts::PI * (i + 1) as f64 / 65.0).sin()).collect()
    }

    pub fn compared() -> f64 {
        let y: f64 = 2.0;
        let s = 1.0;
        if s < y { s.sqrt() } else { y }
    }
}

fn main() {
    let (a, b) = ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
    assert_eq!(dot(&a, &b).to_bits(), plain::dot(&a, &b).to_bits());
    assert_eq!(pushed_later().to_bits(), plain::pushed_later().to_bits());
    assert_eq!(element_meets_typed().to_bits(), plain::element_meets_typed().to_bits());
    assert_eq!(binding_meets_typed().to_bits(), plain::binding_meets_typed().to_bits());
    assert_eq!(compared().to_bits(), plain::compared().to_bits());
    assert_eq!(cast_of_an_untyped_integer(), plain::cast_of_an_untyped_integer());
}
