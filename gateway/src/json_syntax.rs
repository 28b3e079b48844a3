//! JSON syntax of a write's body (docs/design.md: the gateway owns JSON syntax, the database every
//! value). One pass over the bytes, strictly, with a stack of its own (never the thread's call
//! stack), finds the one fault the body is answered with, if any. The fault is not answered here:
//! it travels into the route's one database call as an argument, which raises it after
//! authentication and the caller's-lot check (docs/design.md). The bytes as sent still go to the
//! database, which reads them as `jsonb` (numbers stay exact).
//!
//! Faults, in the order they win (the first that applies is the answer):
//!
//! 1. Not JSON (RFC 8259, as PostgreSQL's `json` reads it), or nested deeper than [`MAX_DEPTH`]:
//!    `invalid_json`, no field.
//! 2. A token `jsonb` cannot hold: a `\u0000` or a lone surrogate in a string (a key or a value),
//!    or a number out of `numeric`'s range ([`number_is_held`]): `invalid_body` naming the top-level
//!    member whose value holds the first such token in the body; no field when that token is a
//!    top-level key or the body is not an object.
//!
//!    Only an object body is looked at further; an array or a scalar is the database's to refuse
//!    for its shape.
//! 3. A number written with an exponent beyond ±20 (`1e21`, `5E-0030`): no field takes such a value,
//!    and PostgreSQL writes numbers out in full (64 KiB of `1e130000` would be gigabytes of text):
//!    `invalid_body` naming the first top-level member, in body order, whose value holds one.
//! 4. A key given twice in the top-level object: `invalid_body` naming the first such key in byte
//!    order.
//! 5. A key given twice in an object below the top level: the first top-level member, in body order,
//!    whose value holds such an object is named, with the route's nested code (the closures route's
//!    `invalid_blocked_periods`, else `invalid_body`): `<member>.<key>` when the member's value is the
//!    object repeating `<key>` (its first repeated key in byte order); `<member>[<i>].<key>` when it
//!    is element `i` (from 0) of the member's array, the first element holding a repetition;
//!    otherwise the member alone (a repetition deeper than that).
//!
//! Keys are compared, and named, as decoded (`"\u0072eason"` is `reason`); byte order is the order of
//! their UTF-8 bytes (PostgreSQL's `COLLATE "C"`).

use std::cell::Cell;
use std::cmp::Ordering;

use serde_json::{json, Value};

use crate::body::MAX_BODY_BYTES;

/// The deepest nesting of arrays and objects read: deeper is `invalid_json`. PostgreSQL 15 at its
/// default `max_stack_depth` (2 MB) reads somewhat deeper, how deep depending on the body's shape;
/// the bound keeps the answer the same whatever the body and the database's setting, and the
/// reader's own stack small.
pub const MAX_DEPTH: usize = 10_000;

/// The answer a body is refused with: the error code, the field it names, and whether it is a
/// repetition below the top level (the route's nested code, chosen by the database).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub error: &'static str,
    pub field: Option<String>,
    pub nested: bool,
}

impl Fault {
    fn invalid_json() -> Fault {
        Fault { error: "invalid_json", field: None, nested: false }
    }

    fn invalid_body(field: Option<String>, nested: bool) -> Fault {
        Fault { error: "invalid_body", field, nested }
    }

    /// The verdict as the database function takes it (`p_body_fault jsonb`).
    pub fn to_json(&self) -> Value {
        let mut verdict = json!({ "error": self.error, "nested": self.nested });
        if let Some(field) = &self.field {
            verdict["field"] = Value::String(field.clone());
        }
        verdict
    }
}

/// The fault a body is refused with, or None when its JSON syntax is sound. `None` text (not
/// UTF-8, or holding a NUL byte) is not JSON. A body is at most 64 KiB (`body::read`); the reader's
/// offsets are 32-bit ([`Key`]), so text of 4 GiB or more would not be read right. The reader grows
/// the thread's buffers ([`BUFFERS`]); a text longer than [`MAX_BODY_BYTES`] leaves them empty.
pub fn check(text: Option<&str>) -> Option<Fault> {
    let Some(text) = text else {
        return Some(Fault::invalid_json());
    };
    let mut reader = Reader::new(text.as_bytes(), BUFFERS.take());
    let sound = reader.document().is_ok();
    let Reader { mut buffers, findings, .. } = reader;
    if text.len() <= MAX_BODY_BYTES {
        buffers.clear();
        BUFFERS.set(buffers);
    }
    if !sound {
        return Some(Fault::invalid_json());
    }
    findings.verdict()
}

thread_local! {
    /// The reader's buffers, kept by each thread from one body to the next (only a body's worth:
    /// at most [`MAX_DEPTH`] frames, the keys of 64 KiB and their text, ~¾ MiB at most; `check`
    /// runs on the runtime's worker threads, one per core). Grown anew for each body, the keys of a
    /// body of thousands of members went past glibc's mmap threshold (`allocator.rs`): a fresh
    /// mapping, its page faults and an `munmap` every request (bench/FINDINGS.md, "The gateway's
    /// allocator thresholds").
    static BUFFERS: Cell<Buffers> = Cell::new(Buffers::default());
}

/// What the reader grows as it reads: its stack and the keys of every open object.
#[derive(Default)]
struct Buffers {
    stack: Vec<Frame>,
    /// The decoded keys of every open object, as spans of `key_text`.
    keys: Vec<Key>,
    key_text: String,
}

impl Buffers {
    fn clear(&mut self) {
        self.stack.clear();
        self.keys.clear();
        self.key_text.clear();
    }
}

/// What the pass found, in the order of the faults above.
#[derive(Default)]
struct Findings {
    /// Whether the body is an object (only then are faults 3-5 looked at).
    object_body: bool,
    /// Fault 2: the first token jsonb cannot hold, with the member it names (None: no field).
    not_held: Option<Option<String>>,
    /// Fault 3: the first top-level member holding a number with an exponent beyond ±20.
    exponent: Option<String>,
    /// Fault 4: the top-level object's first repeated key in byte order.
    top_level_repeat: Option<String>,
    /// Fault 5.
    nested_repeat: Option<NestedRepeat>,
}

/// The first top-level member whose value holds an object repeating a key.
struct NestedRepeat {
    member: String,
    /// The element of the member's array that holds it.
    element: Option<usize>,
    /// The stack height of the object whose own repeated key names the field (the member's value
    /// object, or the element object), while it is still open.
    awaiting: Option<usize>,
    /// That object's first repeated key in byte order, once it closed.
    own_key: Option<String>,
}

impl Findings {
    fn verdict(self) -> Option<Fault> {
        if let Some(member) = self.not_held {
            return Some(Fault::invalid_body(member, false));
        }
        if !self.object_body {
            return None;
        }
        if let Some(member) = self.exponent {
            return Some(Fault::invalid_body(Some(member), false));
        }
        if let Some(key) = self.top_level_repeat {
            return Some(Fault::invalid_body(Some(key), false));
        }
        let repeat = self.nested_repeat?;
        let field = match (repeat.element, repeat.own_key) {
            (None, Some(key)) => format!("{}.{key}", repeat.member),
            (Some(index), Some(key)) => format!("{}[{index}].{key}", repeat.member),
            (_, None) => repeat.member,
        };
        Some(Fault::invalid_body(Some(field), true))
    }
}

/// An open array or object.
enum Frame {
    /// The index of the element being read.
    Array(usize),
    /// Where its keys start in [`Buffers::keys`] and [`Buffers::key_text`].
    Object { first_key: usize, text_from: usize },
}

/// Not JSON (or too deep).
struct SyntaxError;

type Read<T> = Result<T, SyntaxError>;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    buffers: Buffers,
    /// The key of the top-level member being read, a span of `buffers.key_text`.
    member: (usize, usize),
    findings: Findings,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` growing `buffers`, which must be empty.
    fn new(bytes: &'a [u8], buffers: Buffers) -> Reader<'a> {
        debug_assert!(buffers.stack.is_empty() && buffers.keys.is_empty() && buffers.key_text.is_empty());
        Reader { bytes, at: 0, buffers, member: (0, 0), findings: Findings::default() }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_white_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// The whole body: one value, then only white space.
    fn document(&mut self) -> Read<()> {
        self.skip_white_space();
        self.findings.object_body = self.peek() == Some(b'{');
        loop {
            self.value()?;
            // After a value: close what it ends, until a comma opens the next one.
            loop {
                self.skip_white_space();
                let next = self.peek();
                match (self.buffers.stack.last_mut(), next) {
                    (None, None) => return Ok(()),
                    (None, Some(_)) => return Err(SyntaxError),
                    (Some(Frame::Array(index)), Some(b',')) => {
                        *index += 1;
                        self.at += 1;
                        break;
                    }
                    (Some(Frame::Object { .. }), Some(b',')) => {
                        self.at += 1;
                        self.skip_white_space();
                        self.key()?;
                        break;
                    }
                    (Some(Frame::Array(_)), Some(b']')) | (Some(Frame::Object { .. }), Some(b'}')) => {
                        self.at += 1;
                        self.close();
                    }
                    _ => return Err(SyntaxError),
                }
            }
        }
    }

    /// One value; an array or object is opened, and its first element or member begun.
    fn value(&mut self) -> Read<()> {
        loop {
            self.skip_white_space();
            match self.peek() {
                Some(b'{') => {
                    self.open(Frame::Object {
                        first_key: self.buffers.keys.len(),
                        text_from: self.buffers.key_text.len(),
                    })?;
                    self.skip_white_space();
                    if self.peek() == Some(b'}') {
                        self.at += 1;
                        self.close();
                        return Ok(());
                    }
                    self.key()?;
                }
                Some(b'[') => {
                    self.open(Frame::Array(0))?;
                    self.skip_white_space();
                    if self.peek() == Some(b']') {
                        self.at += 1;
                        self.close();
                        return Ok(());
                    }
                }
                Some(b'"') => return self.string(false),
                Some(b'-' | b'0'..=b'9') => return self.number(),
                Some(b't') => return self.literal(b"true"),
                Some(b'f') => return self.literal(b"false"),
                Some(b'n') => return self.literal(b"null"),
                _ => return Err(SyntaxError),
            }
        }
    }

    fn open(&mut self, frame: Frame) -> Read<()> {
        if self.buffers.stack.len() == MAX_DEPTH {
            return Err(SyntaxError);
        }
        self.at += 1;
        self.buffers.stack.push(frame);
        Ok(())
    }

    /// Ends the innermost array or object. An object's keys are sorted to find its first repeated
    /// key in byte order; the first object to close with one lies in the first top-level member
    /// (and element) holding a repetition, since every object inside a member closes before the
    /// next member begins.
    fn close(&mut self) {
        let height = self.buffers.stack.len();
        let Some(Frame::Object { first_key, text_from }) = self.buffers.stack.pop() else {
            return;
        };
        let repeated =
            first_repeated_key(&mut self.buffers.keys[first_key..], &self.buffers.key_text).map(str::to_owned);
        if height == 1 {
            self.findings.top_level_repeat = repeated;
        } else if self.findings.object_body {
            if repeated.is_some() && self.findings.nested_repeat.is_none() {
                self.findings.nested_repeat = Some(self.nested_repeat_here(height));
            }
            if let Some(repeat) = self.findings.nested_repeat.as_mut().filter(|r| r.awaiting == Some(height)) {
                repeat.own_key = repeated;
                repeat.awaiting = None;
            }
        }
        self.buffers.keys.truncate(first_key);
        self.buffers.key_text.truncate(text_from);
    }

    /// A repetition found in an object closing at `height` (> 1): the member it lies in, the
    /// element of the member's array, and which object's own key will name the field.
    fn nested_repeat_here(&self, height: usize) -> NestedRepeat {
        // (the stack still holds the frames above the closing object: the root at 0, the member's
        // value at 1, an element of it at 2)
        let member = self.top_level_key().to_owned();
        let (element, awaiting) = match (self.buffers.stack.get(1), height) {
            (_, 2) => (None, Some(2)),
            (Some(Frame::Object { .. }), _) => (None, Some(2)),
            (Some(Frame::Array(index)), 3) => (Some(*index), Some(3)),
            (Some(Frame::Array(index)), _) => {
                (Some(*index), matches!(self.buffers.stack.get(2), Some(Frame::Object { .. })).then_some(3))
            }
            (None, _) => (None, None),
        };
        NestedRepeat { member, element, awaiting, own_key: None }
    }

    /// The key of the top-level member being read.
    fn top_level_key(&self) -> &str {
        &self.buffers.key_text[self.member.0..self.member.1]
    }

    /// Where a fault found now lies: the top-level member (None within a top-level key, or in a
    /// body that is not an object).
    fn member_here(&self, in_key: bool) -> Option<String> {
        let top_level_key = in_key && self.buffers.stack.len() == 1;
        (self.findings.object_body && !top_level_key).then(|| self.top_level_key().to_owned())
    }

    fn not_held(&mut self, in_key: bool) {
        if self.findings.not_held.is_none() {
            self.findings.not_held = Some(self.member_here(in_key));
        }
    }

    /// A member's key and its colon; the key is kept, decoded, among the object's keys.
    fn key(&mut self) -> Read<()> {
        if self.peek() != Some(b'"') {
            return Err(SyntaxError);
        }
        let from = self.buffers.key_text.len();
        self.string(true)?;
        let key = Key::new(&self.buffers.key_text, from);
        self.buffers.keys.push(key);
        if self.buffers.stack.len() == 1 {
            self.member = key.span();
        }
        self.skip_white_space();
        if self.peek() != Some(b':') {
            return Err(SyntaxError);
        }
        self.at += 1;
        Ok(())
    }

    /// A string; a key's decoded text is appended to `buffers.key_text`.
    fn string(&mut self, is_key: bool) -> Read<()> {
        self.at += 1;
        let mut pending_high: Option<u16> = None;
        let mut held = true;
        loop {
            let run_from = self.at;
            self.at += plain_bytes(&self.bytes[self.at..]);
            if self.at > run_from {
                held &= pending_high.take().is_none();
                if is_key {
                    // (the text is UTF-8, and a run ends only at an ASCII byte)
                    self.buffers
                        .key_text
                        .push_str(std::str::from_utf8(&self.bytes[run_from..self.at]).map_err(|_| SyntaxError)?);
                }
            }
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    held &= pending_high.is_none();
                    if !held {
                        self.not_held(is_key);
                    }
                    return Ok(());
                }
                Some(b'\\') => {
                    let escaped = self.bytes.get(self.at + 1).copied();
                    self.at += 2;
                    let unit = match escaped {
                        Some(b'"') => u16::from(b'"'),
                        Some(b'\\') => u16::from(b'\\'),
                        Some(b'/') => u16::from(b'/'),
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0c,
                        Some(b'n') => u16::from(b'\n'),
                        Some(b'r') => u16::from(b'\r'),
                        Some(b't') => u16::from(b'\t'),
                        Some(b'u') => self.hex4()?,
                        _ => return Err(SyntaxError),
                    };
                    let decoded = match (pending_high.take(), unit) {
                        (None, 0xd800..=0xdbff) => {
                            pending_high = Some(unit);
                            continue;
                        }
                        (Some(high), 0xdc00..=0xdfff) => {
                            char::from_u32(0x10000 + ((u32::from(high) - 0xd800) << 10) + (u32::from(unit) - 0xdc00))
                        }
                        // a high surrogate not followed by a low one, a low one alone, \u0000
                        (Some(_), _) | (None, 0xdc00..=0xdfff) | (None, 0) => None,
                        (None, _) => char::from_u32(u32::from(unit)),
                    };
                    match decoded {
                        Some(character) if is_key => self.buffers.key_text.push(character),
                        Some(_) => {}
                        // (the string is refused whatever follows: its decoded text no longer matters)
                        None => held = false,
                    }
                }
                // a control character, or the end of the body
                _ => return Err(SyntaxError),
            }
        }
    }

    /// The four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Read<u16> {
        let digits = self.bytes.get(self.at..self.at + 4).ok_or(SyntaxError)?;
        let mut unit = 0u16;
        for &digit in digits {
            let value = (digit as char).to_digit(16).ok_or(SyntaxError)?;
            unit = unit * 16 + value as u16;
        }
        self.at += 4;
        Ok(unit)
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn number(&mut self) -> Read<()> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let integer_from = self.at;
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.skip_digits(),
            _ => return Err(SyntaxError),
        }
        let integer = integer_from..self.at;
        let mut fraction = self.at..self.at;
        if self.peek() == Some(b'.') {
            self.at += 1;
            fraction = self.digits()?;
        }
        let mut exponent: i64 = 0;
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            let negative = self.peek() == Some(b'-');
            if let Some(b'-' | b'+') = self.peek() {
                self.at += 1;
            }
            for &digit in &self.bytes[self.digits()?] {
                exponent = exponent.saturating_mul(10).saturating_add(i64::from(digit - b'0'));
            }
            if negative {
                exponent = -exponent;
            }
        } else if fraction.is_empty() {
            // an integer of at most 64 KiB of digits: numeric holds it
            return Ok(());
        }
        let digits = || self.bytes[integer.clone()].iter().chain(&self.bytes[fraction.clone()]);
        let number = Number {
            integer_digits: integer.len() as i64,
            fraction_digits: fraction.len() as i64,
            first_non_zero: digits().position(|&digit| digit != b'0').map(|position| position as i64),
            exponent,
        };
        if !number_is_held(&number) {
            self.not_held(false);
        } else if exponent.abs() > 20 && self.findings.object_body && self.findings.exponent.is_none() {
            self.findings.exponent = Some(self.top_level_key().to_owned());
        }
        Ok(())
    }

    fn skip_digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
    }

    /// One or more digits: where they are.
    fn digits(&mut self) -> Read<std::ops::Range<usize>> {
        let from = self.at;
        self.skip_digits();
        if self.at == from {
            return Err(SyntaxError);
        }
        Ok(from..self.at)
    }

    fn literal(&mut self, word: &[u8]) -> Read<()> {
        if !self.bytes[self.at..].starts_with(word) {
            return Err(SyntaxError);
        }
        self.at += word.len();
        Ok(())
    }
}

/// How many bytes at the start of `bytes` a string holds as they are: up to the first quote,
/// backslash or control character. Eight bytes at a time while none of them is one (a 64 KiB string
/// is read in a quarter of the time of a byte-by-byte loop); the classic test of whether any byte of
/// a word is below `n` (exact for n <= 128: a borrow only ever starts at a byte that is), applied to
/// the word, and to the word xor each of the two bytes (a byte equal to it is then 0, below 1).
fn plain_bytes(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
    let any_below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGH_BITS != 0;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        if any_below(word, 0x20)
            || any_below(word ^ (ONES * u64::from(b'"')), 1)
            || any_below(word ^ (ONES * u64::from(b'\\')), 1)
        {
            break;
        }
        at += 8;
    }
    at + bytes[at..].iter().position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20).unwrap_or(bytes.len() - at)
}

/// A number as written: how many digits before and after the point, where its first non-zero
/// digit is, and its exponent (saturating: beyond any range either way).
struct Number {
    integer_digits: i64,
    fraction_digits: i64,
    /// The position (from 0, over all digits) of the first digit that is not 0.
    first_non_zero: Option<i64>,
    exponent: i64,
}

/// Whether PostgreSQL 15's `numeric` holds the number (`numeric_in` as `jsonb` calls it): an
/// exponent within ±(2³¹−1)/2, a display scale (decimals less the exponent, at least 0) of at most
/// 16 383, and a first non-zero digit whose place, in base-10 000 digits, fits an int16 weight.
fn number_is_held(number: &Number) -> bool {
    const EXPONENT_LIMIT: i64 = (i32::MAX / 2) as i64;
    const MAX_SCALE: i64 = 0x3fff;
    if number.exponent >= EXPONENT_LIMIT || number.exponent <= -EXPONENT_LIMIT {
        return false;
    }
    if (number.fraction_digits - number.exponent).max(0) > MAX_SCALE {
        return false;
    }
    number.first_non_zero.is_none_or(|position| {
        // the first non-zero digit stands for 10^place
        let place = number.integer_digits - 1 - position + number.exponent;
        (i64::from(i16::MIN)..=i64::from(i16::MAX)).contains(&place.div_euclid(4))
    })
}

/// A key read: its span of [`Buffers::key_text`] (a body is at most 64 KiB: u32 offsets keep a key
/// at 16 bytes, what a sort of thousands moves), and its first 8 bytes as a number, so that keys
/// are sorted as numbers first (in byte order: big-endian, zero-padded; a key with a NUL is refused
/// whatever its order).
#[derive(Clone, Copy)]
struct Key {
    prefix: u64,
    from: u32,
    to: u32,
}

impl Key {
    fn new(text: &str, from: usize) -> Key {
        let mut first = [0u8; 8];
        let bytes = &text.as_bytes()[from..];
        let length = bytes.len().min(8);
        first[..length].copy_from_slice(&bytes[..length]);
        Key { prefix: u64::from_be_bytes(first), from: from as u32, to: text.len() as u32 }
    }

    fn span(&self) -> (usize, usize) {
        (self.from as usize, self.to as usize)
    }

    fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.from as usize..self.to as usize]
    }

    fn compare(&self, other: &Key, text: &str) -> Ordering {
        self.prefix.cmp(&other.prefix).then_with(|| self.text(text).cmp(other.text(text)))
    }
}

/// The first key, in byte order, that these keys hold twice; sorts them: by their first 8 bytes
/// alone (a sort of plain numbers, the cheapest there is: 5 400 keys in about half the time of a
/// sort comparing text on ties), then each run sharing those bytes by its whole text.
fn first_repeated_key<'t>(keys: &mut [Key], text: &'t str) -> Option<&'t str> {
    if keys.len() < 2 {
        return None;
    }
    keys.sort_unstable_by_key(|key| key.prefix);
    for run in keys.chunk_by_mut(|a, b| a.prefix == b.prefix).filter(|run| run.len() > 1) {
        run.sort_unstable_by(|a, b| a.text(text).cmp(b.text(text)));
    }
    keys.windows(2).find(|pair| pair[0].compare(&pair[1], text) == Ordering::Equal).map(|pair| pair[0].text(text))
}

#[cfg(test)]
mod tests;
