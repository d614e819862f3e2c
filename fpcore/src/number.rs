//! FPCore number literals: reading decimal, rational, hexadecimal and `digits` numbers exactly,
//! and writing each as Rust source that denotes the same value rounded once to the target type.

use std::fmt;

/// An exact FPCore number.
#[derive(Clone, Debug, PartialEq)]
pub enum Number {
    /// A decimal literal: `±int.frac × 10^exp`, digits kept as written.
    Decimal {
        /// Whether a minus sign was written.
        negative: bool,
        /// The digits before the point (may be empty, as in `.5`).
        int: String,
        /// The digits after the point (may be empty).
        frac: String,
        /// The decimal exponent written after `e` (0 when none).
        exp: i64,
    },
    /// A rational `±num/den`.
    Rational {
        /// Whether a minus sign was written.
        negative: bool,
        /// The numerator.
        num: u128,
        /// The denominator, never 0.
        den: u128,
    },
    /// A binary number `±mantissa × 2^exp2` (hexadecimal literals, `(digits m e 2)`).
    Binary {
        /// Whether a minus sign was written.
        negative: bool,
        /// The integer mantissa.
        mantissa: u128,
        /// The binary exponent.
        exp2: i64,
    },
}

/// The floating-point types a literal can be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatType {
    /// binary32.
    F32,
    /// binary64.
    F64,
}

impl FloatType {
    /// The Rust type's name.
    pub fn rust(self) -> &'static str {
        match self {
            FloatType::F32 => "f32",
            FloatType::F64 => "f64",
        }
    }

    /// Significand bits, the implicit one included.
    fn precision(self) -> u32 {
        match self {
            FloatType::F32 => 24,
            FloatType::F64 => 53,
        }
    }
}

/// A literal written as Rust source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Literal {
    /// The source text.
    pub text: String,
    /// How it reads as an operand.
    pub shape: Shape,
}

/// The syntactic shape of a literal, which decides where it needs parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A plain non-negative literal or path.
    Atom,
    /// A literal with a leading minus sign.
    Negated,
    /// A quotient `p / q`.
    Quotient,
}

/// Why a number cannot be written as a literal of the requested type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotWritable(pub String);

impl fmt::Display for NotWritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Number {
    /// Reads an FPCore numeric token; `None` when the token is not a number.
    pub fn parse(token: &str) -> Option<Number> {
        let (negative, body) = match token.as_bytes().first()? {
            b'-' => (true, &token[1..]),
            b'+' => (false, &token[1..]),
            _ => (false, token),
        };
        if body.is_empty() {
            return None;
        }
        if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            return parse_hex(negative, hex);
        }
        if let Some((num, den)) = body.split_once('/') {
            let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            if !all_digits(num) || !all_digits(den) {
                return None;
            }
            let num = num.parse::<u128>().ok()?;
            let den = den.parse::<u128>().ok()?;
            return (den != 0).then_some(Number::Rational { negative, num, den });
        }
        parse_decimal(negative, body)
    }

    /// The number `m × b^e` of FPCore's `(digits m e b)`.
    pub fn digits(mantissa: i128, exponent: i64, base: u32) -> Option<Number> {
        let negative = mantissa < 0;
        let m = mantissa.unsigned_abs();
        match base {
            2 => Some(Number::Binary {
                negative,
                mantissa: m,
                exp2: exponent,
            }),
            10 => Some(Number::Decimal {
                negative,
                int: m.to_string(),
                frac: String::new(),
                exp: exponent,
            }),
            _ if base >= 2 => {
                let power =
                    u128::from(base).checked_pow(u32::try_from(exponent.unsigned_abs()).ok()?)?;
                if exponent >= 0 {
                    Some(Number::Rational {
                        negative,
                        num: m.checked_mul(power)?,
                        den: 1,
                    })
                } else {
                    Some(Number::Rational {
                        negative,
                        num: m,
                        den: power,
                    })
                }
            }
            _ => None,
        }
    }

    /// Whether the number is negative (a written minus sign on a nonzero value).
    pub fn is_negative(&self) -> bool {
        match self {
            Number::Decimal { negative, .. }
            | Number::Rational { negative, .. }
            | Number::Binary { negative, .. } => *negative,
        }
    }

    /// The number rounded to the nearest `f64`.
    pub fn to_f64(&self) -> f64 {
        match self {
            Number::Decimal { .. } => self.decimal_text().parse().unwrap_or(f64::NAN),
            Number::Rational { negative, num, den } => {
                // Exact when both fit in 53 bits (one correctly rounded division); otherwise
                // close, which is all the sampling bounds that use this need.
                let v = *num as f64 / *den as f64;
                if *negative {
                    -v
                } else {
                    v
                }
            }
            Number::Binary {
                negative,
                mantissa,
                exp2,
            } => {
                let v: f64 = exact_binary_decimal(*mantissa, *exp2)
                    .parse()
                    .unwrap_or(f64::NAN);
                if *negative {
                    -v
                } else {
                    v
                }
            }
        }
    }

    /// The number as an `i64`, when it is an integer in range.
    pub fn as_integer(&self) -> Option<i64> {
        let magnitude: i128 = match self {
            Number::Decimal { int, frac, exp, .. } => {
                let digits = format!("{int}{frac}");
                let scale = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
                let digits = digits.trim_start_matches('0');
                if digits.is_empty() {
                    0
                } else if scale >= 0 {
                    let shifted = format!(
                        "{digits}{}",
                        "0".repeat(usize::try_from(scale).ok().filter(|s| *s < 40)?)
                    );
                    shifted.parse().ok()?
                } else {
                    // Only zeros may be cut off by a negative scale.
                    let cut = usize::try_from(-scale).ok()?;
                    let kept = digits.len().saturating_sub(cut);
                    if digits[kept..].bytes().any(|b| b != b'0') {
                        return None;
                    }
                    if kept == 0 {
                        0
                    } else {
                        digits[..kept].parse().ok()?
                    }
                }
            }
            Number::Rational { num, den, .. } => {
                if num % den != 0 {
                    return None;
                }
                i128::try_from(num / den).ok()?
            }
            Number::Binary { mantissa, exp2, .. } => {
                if *exp2 >= 0 {
                    let shift = u32::try_from(*exp2).ok().filter(|s| *s < 64)?;
                    i128::try_from(mantissa.checked_shl(shift)?).ok()?
                } else {
                    let shift = u32::try_from(-*exp2).ok()?;
                    if shift >= 128 || mantissa.trailing_zeros() < shift && *mantissa != 0 {
                        return None;
                    }
                    i128::try_from(mantissa >> shift).ok()?
                }
            }
        };
        let value = if self.is_negative() {
            -magnitude
        } else {
            magnitude
        };
        i64::try_from(value).ok()
    }

    /// The number as a Rust literal of type `ty`, with a `_f32`/`_f64` suffix when `suffix`.
    ///
    /// Decimals are written as they are (rustc rounds them correctly); a rational `p/q` is
    /// written `p.0 / q.0`, one correctly rounded division, when `p` and `q` are exact in `ty`;
    /// binary numbers are rounded to `ty` and written as the shortest decimal that reads back
    /// to the same value.
    pub fn float_literal(&self, ty: FloatType, suffix: bool) -> Result<Literal, NotWritable> {
        let sfx = if suffix {
            format!("_{}", ty.rust())
        } else {
            String::new()
        };
        let sign = if self.is_negative() { "-" } else { "" };
        let shape = if self.is_negative() {
            Shape::Negated
        } else {
            Shape::Atom
        };
        match self {
            Number::Decimal { .. } => {
                let text = self.decimal_text();
                let overflows = match ty {
                    FloatType::F32 => text.parse::<f32>().map(f32::is_infinite),
                    FloatType::F64 => text.parse::<f64>().map(f64::is_infinite),
                };
                if overflows != Ok(false) {
                    return Err(NotWritable(format!(
                        "the literal {text} overflows {}",
                        ty.rust()
                    )));
                }
                Ok(Literal {
                    text: format!("{text}{sfx}"),
                    shape,
                })
            }
            Number::Rational { num, den, .. } => {
                let limit = 1u128 << ty.precision();
                if *den == 1 && *num <= limit {
                    return Ok(Literal {
                        text: format!("{sign}{num}.0{sfx}"),
                        shape,
                    });
                }
                if *num > limit || *den > limit {
                    return Err(NotWritable(format!(
                        "the rational {sign}{num}/{den} has parts too large for one exact {} division",
                        ty.rust()
                    )));
                }
                Ok(Literal {
                    text: format!("{sign}{num}.0{sfx} / {den}.0"),
                    shape: Shape::Quotient,
                })
            }
            Number::Binary { mantissa, exp2, .. } => {
                let exact = exact_binary_decimal(*mantissa, *exp2);
                let text = match ty {
                    FloatType::F32 => exact
                        .parse::<f32>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .map(|v| format!("{v:?}")),
                    FloatType::F64 => exact
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .map(|v| format!("{v:?}")),
                };
                let text = text.ok_or_else(|| {
                    NotWritable(format!("the binary literal overflows {}", ty.rust()))
                })?;
                Ok(Literal {
                    text: format!("{sign}{text}{sfx}"),
                    shape,
                })
            }
        }
    }

    /// A decimal's text in Rust's float literal syntax (`.5` -> `0.5`, `1.` -> `1.0`).
    fn decimal_text(&self) -> String {
        let Number::Decimal {
            negative,
            int,
            frac,
            exp,
        } = self
        else {
            return String::new();
        };
        let sign = if *negative { "-" } else { "" };
        let int = if int.is_empty() { "0" } else { int };
        let point = if frac.is_empty() && *exp != 0 {
            String::new()
        } else {
            format!(".{}", if frac.is_empty() { "0" } else { frac })
        };
        let exp = if *exp != 0 {
            format!("e{exp}")
        } else {
            String::new()
        };
        format!("{sign}{int}{point}{exp}")
    }
}

/// FPCore's spelling of the number, for messages and comments.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Decimal { .. } => f.write_str(&self.decimal_text()),
            Number::Rational { negative, num, den } => {
                write!(f, "{}{num}/{den}", if *negative { "-" } else { "" })
            }
            Number::Binary {
                negative,
                mantissa,
                exp2,
            } => {
                write!(
                    f,
                    "{}0x{mantissa:x}p{exp2}",
                    if *negative { "-" } else { "" }
                )
            }
        }
    }
}

fn parse_decimal(negative: bool, body: &str) -> Option<Number> {
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(at) => {
            let exp = &body[at + 1..];
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (
                &body[..at],
                exp.strip_prefix('+').unwrap_or(exp).parse::<i64>().ok()?,
            )
        }
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits_only(int) || !digits_only(frac) {
        return None;
    }
    Some(Number::Decimal {
        negative,
        int: int.to_string(),
        frac: frac.to_string(),
        exp,
    })
}

fn parse_hex(negative: bool, hex: &str) -> Option<Number> {
    let (mantissa_text, exp) = match hex.find(['p', 'P']) {
        Some(at) => {
            let exp = &hex[at + 1..];
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            (
                &hex[..at],
                exp.strip_prefix('+').unwrap_or(exp).parse::<i64>().ok()?,
            )
        }
        None => (hex, 0),
    };
    let (int, frac) = mantissa_text.split_once('.').unwrap_or((mantissa_text, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut mantissa: u128 = 0;
    let mut exp2 = exp;
    for (i, c) in int.chars().chain(frac.chars()).enumerate() {
        let digit = c.to_digit(16)?;
        let in_frac = i >= int.len();
        if mantissa >> 120 != 0 {
            // Past 120 bits only zero digits can be absorbed into the exponent.
            if digit != 0 {
                return None;
            }
            if !in_frac {
                exp2 += 4;
            }
            continue;
        }
        mantissa = mantissa * 16 + u128::from(digit);
        if in_frac {
            exp2 -= 4;
        }
    }
    Some(Number::Binary {
        negative,
        mantissa,
        exp2,
    })
}

/// The exact decimal expansion of `mantissa × 2^exp2`, for values in a float-relevant range
/// (huge or tiny exponents are clamped to a value that rounds the same way).
fn exact_binary_decimal(mantissa: u128, exp2: i64) -> String {
    if mantissa == 0 {
        return "0".to_string();
    }
    let bits = i64::from(128 - mantissa.leading_zeros());
    if bits + exp2 > 1100 {
        return "1e400".to_string();
    }
    if bits + exp2 < -1200 {
        return "0".to_string();
    }
    // Limbs of 10^9, least significant first.
    let mut limbs: Vec<u64> = Vec::new();
    let mut m = mantissa;
    while m > 0 {
        limbs.push((m % 1_000_000_000) as u64);
        m /= 1_000_000_000;
    }
    let multiply = |limbs: &mut Vec<u64>, factor: u64| {
        let mut carry = 0u64;
        for limb in limbs.iter_mut() {
            let v = *limb * factor + carry;
            *limb = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            limbs.push(carry % 1_000_000_000);
            carry /= 1_000_000_000;
        }
    };
    let (factor, times) = if exp2 >= 0 { (2, exp2) } else { (5, -exp2) };
    for _ in 0..times {
        multiply(&mut limbs, factor);
    }
    let mut digits = String::new();
    for (i, limb) in limbs.iter().rev().enumerate() {
        if i == 0 {
            digits.push_str(&limb.to_string());
        } else {
            digits.push_str(&format!("{limb:09}"));
        }
    }
    if exp2 >= 0 {
        digits
    } else {
        // m × 5^k / 10^k: the point goes k digits from the right.
        format!("{digits}e{exp2}", exp2 = exp2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(token: &str, ty: FloatType) -> String {
        Number::parse(token)
            .expect("a number")
            .float_literal(ty, false)
            .expect("writable")
            .text
    }

    #[test]
    fn decimals_are_written_as_rust_float_literals_of_the_same_digits() {
        assert_eq!(lit("2", FloatType::F64), "2.0");
        assert_eq!(lit("-.985", FloatType::F64), "-0.985");
        assert_eq!(lit(".000005", FloatType::F32), "0.000005");
        assert_eq!(lit("42.7e-6", FloatType::F64), "42.7e-6");
        assert_eq!(lit("1e-9", FloatType::F64), "1e-9");
        assert_eq!(lit("+3.", FloatType::F64), "3.0");
        assert_eq!(lit("6.0E+2", FloatType::F64), "6.0e2");
    }

    #[test]
    fn rationals_become_one_exact_division() {
        assert_eq!(lit("1/3", FloatType::F64), "1.0 / 3.0");
        assert_eq!(lit("-3969/625", FloatType::F32), "-3969.0 / 625.0");
        assert_eq!(lit("8/1", FloatType::F64), "8.0");
        let big = Number::parse("16777217/3").expect("a number");
        assert!(
            big.float_literal(FloatType::F32, false).is_err(),
            "2^24 + 1 is not exact in f32"
        );
        assert!(big.float_literal(FloatType::F64, false).is_ok());
    }

    #[test]
    fn hexadecimal_numbers_round_to_the_target_and_print_the_shortest_round_trip_decimal() {
        assert_eq!(lit("0x1.8p3", FloatType::F64), "12.0");
        assert_eq!(lit("-0x.8", FloatType::F64), "-0.5");
        assert_eq!(lit("0x1.999999999999ap-4", FloatType::F64), "0.1");
        // 0.1 in binary64, rounded to binary32, is binary32's 0.1.
        assert_eq!(lit("0x1.999999999999ap-4", FloatType::F32), "0.1");
        // 2^-1074, the least subnormal.
        assert_eq!(lit("0x1p-1074", FloatType::F64), "5e-324");
        // 1 + 2^-60 rounds to 1 in binary64.
        assert_eq!(lit("0x1.000000000000001p0", FloatType::F64), "1.0");
        assert_eq!(Number::parse("0x1.8p3").expect("a number").to_f64(), 12.0);
    }

    #[test]
    fn digits_forms_are_exact_in_bases_two_and_ten() {
        let n = Number::digits(3, -1, 2).expect("base 2");
        assert_eq!(
            n.float_literal(FloatType::F64, false)
                .expect("writable")
                .text,
            "1.5"
        );
        let n = Number::digits(-25, 2, 10).expect("base 10");
        assert_eq!(
            n.float_literal(FloatType::F64, false)
                .expect("writable")
                .text,
            "-25e2"
        );
        let n = Number::digits(1, -2, 3).expect("base 3");
        assert_eq!(
            n.float_literal(FloatType::F64, false)
                .expect("writable")
                .text,
            "1.0 / 9.0"
        );
    }

    #[test]
    fn a_suffix_types_the_literal_and_overflow_is_refused() {
        let n = Number::parse("1/3").expect("a number");
        assert_eq!(
            n.float_literal(FloatType::F32, true)
                .expect("writable")
                .text,
            "1.0_f32 / 3.0"
        );
        assert_eq!(lit("0.5", FloatType::F64), "0.5");
        let huge = Number::parse("1e39").expect("a number");
        assert!(huge.float_literal(FloatType::F32, false).is_err());
        assert!(huge.float_literal(FloatType::F64, false).is_ok());
    }

    #[test]
    fn integers_are_recognised_whatever_their_spelling() {
        let int = |t: &str| Number::parse(t).expect("a number").as_integer();
        assert_eq!(int("300"), Some(300));
        assert_eq!(int("-1.0"), Some(-1));
        assert_eq!(int("1e3"), Some(1000));
        assert_eq!(int("1000e-3"), Some(1));
        assert_eq!(int("1500e-3"), None);
        assert_eq!(int("0.5"), None);
        assert_eq!(int("12/4"), Some(3));
        assert_eq!(int("1/3"), None);
        assert_eq!(int("0x10"), Some(16));
        assert_eq!(int("0x.8"), None);
        assert_eq!(int("0.000"), Some(0));
    }

    #[test]
    fn tokens_that_are_not_numbers_are_refused() {
        for token in [
            "x", "-", "+", "1.2.3", "e5", "1e", "0x", "1/0", "1/x", "sl*",
        ] {
            assert_eq!(Number::parse(token), None, "{token}");
        }
    }
}
