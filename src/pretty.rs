//! Printing terms: as few parentheses as the grammar needs, `::` lists infix,
//! names quoted only when they must be, and stable variable names.
//!
//! Unbound variables print as `_1`, `_2`, ... in order of first appearance
//! within one [`Printer`] (one answer shares a printer, so equal variables
//! print equally), or, printing for the trace ([`Printer::for_trace`]),
//! with the numbers the trace keeps for the whole query; a printer can also
//! be given names for variables (the query's own names).  Lists are printed with a loop, not recursion, so long
//! lists print at any length.
//!
//! A printed term reads back as itself: a binder's name is changed
//! (`forall y2 \ f y2 y`) where the name written in it would capture a
//! name free in its body (`Printer::bound_name`).
//!
//! Answers print in full.  Diagnostics print through [`Printer::message`],
//! which caps a term at [`MESSAGE_DEPTH`] levels of nesting and about
//! [`MESSAGE_CHARS`] characters: what lies deeper or further shows as
//! `...`, so an error about a term a million levels deep stays readable.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::engine::Machine;
use crate::term::{sym, Addr, Cell, SymId};

/// Precedence of a term when printed (higher binds tighter).
const ATOMIC: u8 = 13;
const APP: u8 = 12;

/// Operator table: name, precedence, associativity (`l`, `r`).
fn infix(name: &str) -> Option<(u8, char)> {
    Some(match name {
        ":-" | "<=" | "-->" => (1, 'l'),
        ";" => (2, 'r'),
        "&" => (3, 'r'),
        "," => (4, 'l'),
        "=>" | "-o" => (5, 'r'),
        "--o" => (6, 'r'),
        "=" | "=:=" | "=\\=" | "=<" | ">=" | "<" | ">" | "is" => (8, 'l'),
        "+" | "-" => (9, 'l'),
        "*" | "/" => (10, 'l'),
        "::" => (11, 'r'),
        _ => return None,
    })
}

const KEYWORDS: &[&str] = &[
    "forall", "exists", "is", "MODULE", "LINEAR", "LOCAL", "MEMO",
];

/// Whether a name can be written without quotes: exactly when the lexer
/// reads it back as this name (a letter that is not upper-case, then
/// letters, digits and `_`; not a keyword).
pub fn plain_name(s: &str) -> bool {
    use crate::syntax::lexer::{is_ident_char, is_name_start};
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if is_name_start(c) => {}
        _ => return false,
    }
    chars.all(is_ident_char) && !KEYWORDS.contains(&s)
}

/// Whether a name can be written as a variable is: an upper-case letter
/// or `_`, then letters, digits and `_` (not `_` alone, not a keyword).
fn plain_var(s: &str) -> bool {
    use crate::syntax::lexer::is_ident_char;
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || (c.is_alphabetic() && c.is_uppercase()) => {}
        _ => return false,
    }
    s != "_" && chars.all(is_ident_char) && !KEYWORDS.contains(&s)
}

/// Write the name of a binder (`x` in `forall x \ p x`): as written when
/// it reads back as a name or a variable (either may be bound: `forall x`,
/// `exists X`), quoted as [`quote_name`] quotes otherwise
/// (`forall 'my pred' \ 'my pred' a`).
pub fn quote_bound(s: &str) -> String {
    if plain_var(s) {
        s.to_string()
    } else {
        quote_name(s)
    }
}

/// Write a name, quoted if needed.
pub fn quote_name(s: &str) -> String {
    if plain_name(s) {
        s.to_string()
    } else {
        let mut out = String::from("'");
        for c in s.chars() {
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c => out.push(c),
            }
        }
        out.push('\'');
        out
    }
}

fn quote_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The deepest nesting of a term a diagnostic shows (see [`Printer::message`]).
pub const MESSAGE_DEPTH: usize = 20;

/// About the most characters of a term a diagnostic shows.
pub const MESSAGE_CHARS: usize = 200;

/// What a printer leaves out: past `depth` levels of nesting, or once the
/// text has `chars` bytes, a term prints as `...`.
#[derive(Copy, Clone)]
struct Cap {
    depth: usize,
    chars: usize,
}

/// Prints terms of one machine.
pub struct Printer<'m> {
    m: &'m Machine,
    names: RefCell<HashMap<Addr, String>>,
    /// The names given so far (`names`' values, and reserved ones): no two
    /// variables print alike.
    taken: RefCell<HashSet<String>>,
    next: RefCell<u32>,
    quote: bool,
    /// `None` prints in full (answers, `write`).
    cap: Option<Cap>,
    /// Number unbound variables as the trace does, for the whole query
    /// (the machine's [`crate::engine::trace::TraceVars`]), not afresh.
    traced: bool,
    /// The nesting of the subterm being printed (counted only with a cap).
    depth: std::cell::Cell<usize>,
    /// The binders whose bodies are being printed, innermost last: each
    /// binder's id and the text its bound name prints with (see
    /// [`Self::bound_name`]).
    scope: RefCell<Vec<(u32, String)>>,
    /// The texts free in the body of the outermost binder being printed
    /// (see [`Self::free_texts`]): a binder inside it whose name is none of
    /// these, nor an enclosing binder's, keeps its name without a look at
    /// its own body.
    outer_texts: RefCell<HashSet<String>>,
    /// For each binder inside the outermost one being printed, what is
    /// free in its body, gathered in one pass over the outermost body
    /// ([`Self::inner_free`]), so that naming nested binders (`forall x \
    /// forall x \ ...`) does not walk each body again.
    inner_free: RefCell<HashMap<u32, InnerFree>>,
}

/// A cell as the walks gathering free texts see it ([`Printer::part`]).
enum Part {
    Text(String),
    Var(Addr),
    Bound(u32),
    Binder(u32, Cell),
    Other,
}

/// What occurs free in a binder's body, as [`Printer::free_texts`] finds
/// it for a binder name that does not start with `_`: the texts of names,
/// named variables and fresh constants, and the binders around it that the
/// body uses (whose texts are known when the binder is named).
#[derive(Clone, Debug, Default)]
struct InnerFree {
    texts: HashSet<String>,
    binders: HashSet<u32>,
}

/// `name`, or if `taken` says it is, the first of `name2`, `name3`, ...
/// that is not: how a variable or a bound name is kept apart from another
/// printed alike.  A name that already ends in a number counts on from it
/// (`y2` gives `y3`, not `y22`), unless the digits follow a `_` (`_1` is
/// how unnamed variables print).
pub(crate) fn numbered_apart(name: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(name) {
        return name.to_string();
    }
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let (base, mut k) = match name[stem.len()..].parse::<u64>() {
        Ok(n) if !stem.is_empty() && !stem.ends_with('_') && n < u64::MAX / 2 => (stem, n),
        _ => (name, 1),
    };
    loop {
        k += 1;
        let given = format!("{base}{k}");
        if !taken(&given) {
            return given;
        }
    }
}

impl<'m> Printer<'m> {
    /// A printer with no variable names yet.
    pub fn new(m: &'m Machine) -> Self {
        Printer {
            m,
            names: RefCell::new(HashMap::new()),
            taken: RefCell::new(Default::default()),
            next: RefCell::new(1),
            quote: true,
            cap: None,
            traced: false,
            depth: std::cell::Cell::new(0),
            scope: RefCell::new(Vec::new()),
            outer_texts: RefCell::new(HashSet::new()),
            inner_free: RefCell::new(HashMap::new()),
        }
    }

    /// A printer for the trace: as [`Printer::new`], but an unbound
    /// variable that no name was given prints with the number the trace
    /// gave it earlier in the query, or a new one (see
    /// [`crate::engine::trace::TraceVars`]).
    pub fn for_trace(m: &'m Machine) -> Self {
        Printer {
            traced: true,
            ..Printer::new(m)
        }
    }

    /// The printed form of a term for a diagnostic: as [`Printer::term`],
    /// but subterms nested deeper than [`MESSAGE_DEPTH`] and the text past
    /// [`MESSAGE_CHARS`] characters print as `...`.
    pub fn message(&self, c: Cell) -> String {
        let p = Printer {
            m: self.m,
            names: RefCell::new(self.names.borrow().clone()),
            taken: RefCell::new(self.taken.borrow().clone()),
            next: RefCell::new(*self.next.borrow()),
            quote: self.quote,
            cap: Some(Cap {
                depth: MESSAGE_DEPTH,
                chars: MESSAGE_CHARS,
            }),
            traced: self.traced,
            depth: std::cell::Cell::new(0),
            scope: RefCell::new(Vec::new()),
            outer_texts: RefCell::new(HashSet::new()),
            inner_free: RefCell::new(HashMap::new()),
        };
        let mut out = p.term(c);
        // One name or string may run past the cap by itself.
        if out.len() > 2 * MESSAGE_CHARS {
            let mut end = MESSAGE_CHARS;
            while !out.is_char_boundary(end) {
                end -= 1;
            }
            out.truncate(end);
            out.push_str("...");
        }
        *self.next.borrow_mut() = *p.next.borrow();
        *self.names.borrow_mut() = p.names.into_inner();
        *self.taken.borrow_mut() = p.taken.into_inner();
        out
    }

    /// Whether the cap leaves out what would be written next into `out`;
    /// if so, `...` is written instead (once).
    fn capped(&self, out: &mut String) -> bool {
        let Some(cap) = self.cap else {
            return false;
        };
        if self.depth.get() > cap.depth || out.len() >= cap.chars {
            if !out.ends_with("...") {
                out.push_str("...");
            }
            return true;
        }
        false
    }

    /// Give the unbound variable `v` a name.  A variable keeps its first
    /// name; a name another variable has already (or one
    /// [reserved](Self::reserve)) gets a number: `N2`.
    pub fn name_var(&self, v: Cell, name: &str) {
        if let Cell::Ref(a) = self.m.store.deref(v) {
            let mut names = self.names.borrow_mut();
            if names.contains_key(&a) {
                return;
            }
            let mut taken = self.taken.borrow_mut();
            let given = numbered_apart(name, |n| taken.contains(n));
            taken.insert(given.clone());
            names.insert(a, given);
        }
    }

    /// A printer that starts with this one's names and numbers, for a
    /// text that names some variables of its own (a clause's, by the names
    /// written in it): a variable named here prints alike there.  Give it
    /// back with [`Self::absorb`].
    pub fn fork(&self) -> Printer<'m> {
        Printer {
            m: self.m,
            names: RefCell::new(self.names.borrow().clone()),
            taken: RefCell::new(self.taken.borrow().clone()),
            next: RefCell::new(*self.next.borrow()),
            quote: self.quote,
            cap: self.cap,
            traced: self.traced,
            depth: std::cell::Cell::new(0),
            scope: RefCell::new(Vec::new()),
            outer_texts: RefCell::new(HashSet::new()),
            inner_free: RefCell::new(HashMap::new()),
        }
    }

    /// Take back the names `fork` ([`Self::fork`]) gave, except those of
    /// the variables `own` (the ones it was given names for): a variable
    /// it numbered keeps its number here, and no other variable here gets
    /// that number.
    pub fn absorb(&self, fork: Printer<'m>, own: impl IntoIterator<Item = Cell>) {
        let own: HashSet<Addr> = own
            .into_iter()
            .filter_map(|c| match self.m.store.deref(c) {
                Cell::Ref(a) => Some(a),
                _ => None,
            })
            .collect();
        let next = (*self.next.borrow()).max(*fork.next.borrow());
        *self.next.borrow_mut() = next;
        let mut names = self.names.borrow_mut();
        let mut taken = self.taken.borrow_mut();
        for (a, n) in fork.names.into_inner() {
            if !own.contains(&a) && !names.contains_key(&a) {
                taken.insert(n.clone());
                names.insert(a, n);
            }
        }
    }

    /// Keep `name` from the variables named after this call (see
    /// [`Self::name_var`]): a proof reserves the query's names, so that a
    /// clause's own `N` does not read as the answer's.
    pub fn reserve(&self, name: &str) {
        self.taken.borrow_mut().insert(name.to_string());
    }

    /// Whether `c` dereferences to an unbound variable.
    pub fn is_unbound(&self, c: Cell) -> bool {
        matches!(self.m.store.deref(c), Cell::Ref(_))
    }

    /// The printed form of a term.
    pub fn term(&self, c: Cell) -> String {
        let mut out = String::new();
        self.write(&mut out, c, 0);
        out
    }

    /// The printed form of a value on the right of `X = `: operators looser
    /// than `=` are parenthesized, so an answer line reads back as a goal.
    pub fn binding(&self, c: Cell) -> String {
        let mut out = String::new();
        self.write(&mut out, c, 9);
        out
    }

    /// The printed form with names and strings unquoted (`write_sans`).
    pub fn term_unquoted(&self, c: Cell) -> String {
        let p = Printer {
            m: self.m,
            names: RefCell::new(self.names.borrow().clone()),
            taken: RefCell::new(self.taken.borrow().clone()),
            next: RefCell::new(*self.next.borrow()),
            quote: false,
            cap: None,
            traced: self.traced,
            depth: std::cell::Cell::new(0),
            scope: RefCell::new(Vec::new()),
            outer_texts: RefCell::new(HashSet::new()),
            inner_free: RefCell::new(HashMap::new()),
        };
        p.term(c)
    }

    /// Prefix form with every parenthesis (`write_raw`).  A bound name
    /// prints as in [`Self::term`], renamed where its binder's body has a
    /// free name that prints alike.
    pub fn raw(&self, c: Cell) -> String {
        enum Item {
            Term(Cell),
            Text(&'static str),
            /// The end of a binder's body: its name leaves the scope.
            Leave,
        }
        let mut out = String::new();
        let mut stack = vec![Item::Term(c)];
        while let Some(item) = stack.pop() {
            match item {
                Item::Text(s) => out.push_str(s),
                Item::Leave => {
                    self.scope.borrow_mut().pop();
                }
                Item::Term(c) => {
                    let c = self.m.store.deref(c);
                    match self.m.store.heap.functor(c) {
                        Some((f, n, a)) if n > 0 => {
                            out.push('(');
                            out.push_str(&quote_name(self.m.symbols.name(f)));
                            let arg = |i: u32| self.m.store.heap.get(Addr(a.0 + i));
                            if n == 2 && f.is_binder() {
                                if let Cell::Bound(id) = self.m.store.deref(arg(0)) {
                                    let name = self.bound_name(id, arg(1));
                                    out.push(' ');
                                    out.push_str(&self.bound_quoted(&name));
                                    self.scope.borrow_mut().push((id, name));
                                    stack.push(Item::Text(")"));
                                    stack.push(Item::Leave);
                                    stack.push(Item::Term(arg(1)));
                                    stack.push(Item::Text(" "));
                                    continue;
                                }
                            }
                            stack.push(Item::Text(")"));
                            for i in (0..n).rev() {
                                stack.push(Item::Term(arg(i)));
                                stack.push(Item::Text(" "));
                            }
                        }
                        _ => self.write(&mut out, c, ATOMIC),
                    }
                }
            }
        }
        out
    }

    /// The name binder `id` was written with.
    fn written_bound_name(&self, id: u32) -> String {
        self.m
            .binder_names
            .get(id as usize)
            .map_or("x".to_string(), |s| self.m.symbols.name(*s).to_string())
    }

    /// The text an occurrence of binder `id`'s name prints with: the one its
    /// binder chose ([`Self::bound_name`]), or, outside its binder, the
    /// name written.
    fn bound_text(&self, id: u32) -> String {
        let scope = self.scope.borrow();
        match scope.iter().rev().find(|(b, _)| *b == id) {
            Some((_, text)) => text.clone(),
            None => self.written_bound_name(id),
        }
    }

    /// The name binder `id`, whose body is `body`, prints with: the name
    /// written, unless something free in the body prints alike (a name,
    /// a variable, a fresh constant, an enclosing binder's name), which
    /// the binder would capture when the text is read back; then the first
    /// of `y2`, `y3`, ... that nothing free in the body prints as.  A
    /// binder shadowing another of its name keeps it when its body does
    /// not use the outer one: `forall x \ forall x \ p x`.
    fn bound_name(&self, id: u32, body: Cell) -> String {
        let written = self.written_bound_name(id);
        let outermost = self.scope.borrow().is_empty();
        let free = if outermost {
            // (A name starting with `_` numbers the body's variables as
            // printing meets them: walked apart, first.)
            let walked = written.starts_with('_').then(|| self.free_texts(body, id));
            let (top, inner) = self.inner_free(body);
            let free = walked.unwrap_or_else(|| {
                let mut free = top.texts;
                let others = top.binders.into_iter().filter(|&b| b != id);
                free.extend(others.map(|b| self.bound_text(b)));
                free
            });
            self.outer_texts.replace(free.clone());
            self.inner_free.replace(inner);
            free
        } else if !written.starts_with('_')
            && !self.outer_texts.borrow().contains(&written)
            && !self.scope.borrow().iter().any(|(_, t)| *t == written)
        {
            // Nothing in the outermost body prints so (a name starting
            // with `_` might be a variable's not numbered yet).
            return written;
        } else if let Some(f) = self
            .inner_free
            .borrow()
            .get(&id)
            .filter(|_| !written.starts_with('_'))
        {
            let mut free = f.texts.clone();
            free.extend(f.binders.iter().map(|&b| self.bound_text(b)));
            free
        } else {
            self.free_texts(body, id)
        };
        numbered_apart(&written, |n| free.contains(n))
    }

    /// The texts of what occurs free in `body`, the body of binder `id`:
    /// names, variables, fresh constants and the names of binders around
    /// it (as printed).  Unnumbered variables are numbered here, in the
    /// order printing meets them, when the binder's name could read as
    /// one (`_1`).
    fn free_texts(&self, body: Cell, id: u32) -> HashSet<String> {
        let written = self.written_bound_name(id);
        let mut found = HashSet::new();
        // Binders within the body: their names are not free in it.
        let mut inner: HashSet<u32> = HashSet::new();
        let mut stack = vec![body];
        while let Some(c) = stack.pop() {
            match self.part(c, &mut |c| stack.push(c)) {
                Part::Text(t) => {
                    found.insert(t);
                }
                Part::Var(a) if written.starts_with('_') => {
                    found.insert(self.var_name(a));
                }
                Part::Bound(b) if b != id && !inner.contains(&b) => {
                    found.insert(self.bound_text(b));
                }
                Part::Binder(b, body) => {
                    inner.insert(b);
                    stack.push(body);
                }
                Part::Var(_) | Part::Bound(_) | Part::Other => {}
            }
        }
        found
    }

    /// What is free in `body` and in the body of each binder inside it
    /// (see [`InnerFree`]), in one walk: each binder's set is made when
    /// its body has been walked and then joins the set of the binder
    /// around it.  The texts are those [`Self::free_texts`] gathers for a
    /// name not starting with `_` (no variable is numbered here).
    fn inner_free(&self, body: Cell) -> (InnerFree, HashMap<u32, InnerFree>) {
        enum Step {
            Visit(Cell),
            /// The body of binder `b` was walked: close its set.
            Close(u32),
        }
        let mut sets: HashMap<u32, InnerFree> = HashMap::new();
        // The sets being gathered, innermost last (the first for `body`).
        let mut open = vec![InnerFree::default()];
        let mut stack = vec![Step::Visit(body)];
        while let Some(step) = stack.pop() {
            let c = match step {
                Step::Close(b) => {
                    let mut f = open.pop().expect("a set per open binder");
                    f.binders.remove(&b);
                    let outer = open.last_mut().expect("the body's set");
                    outer.texts.extend(f.texts.iter().cloned());
                    outer.binders.extend(f.binders.iter().copied());
                    sets.insert(b, f);
                    continue;
                }
                Step::Visit(c) => c,
            };
            let part = self.part(c, &mut |c| stack.push(Step::Visit(c)));
            let top = open.last_mut().expect("the body's set");
            match part {
                Part::Text(t) => {
                    top.texts.insert(t);
                }
                Part::Bound(b) => {
                    top.binders.insert(b);
                }
                Part::Binder(b, body) => {
                    open.push(InnerFree::default());
                    stack.push(Step::Close(b));
                    stack.push(Step::Visit(body));
                }
                Part::Var(_) | Part::Other => {}
            }
        }
        (open.pop().expect("the body's set"), sets)
    }

    /// What cell `c` is to the walks that gather free texts: a text (a
    /// name, a named variable's name, a fresh constant's text; a
    /// compound's name, its arguments given to `push` last first), an
    /// unnamed variable, a bound name, a binder (its id and body), or
    /// nothing to note.
    fn part(&self, c: Cell, push: &mut impl FnMut(Cell)) -> Part {
        let m = self.m;
        match m.store.deref(c) {
            Cell::Ref(a) => match self.names.borrow().get(&a) {
                Some(n) => Part::Text(n.clone()),
                None => Part::Var(a),
            },
            Cell::Atom(s) | Cell::Functor(s, _) => Part::Text(m.symbols.name(s).to_string()),
            Cell::Eigen(e) => Part::Text(self.eigen_text(e)),
            Cell::Bound(b) => Part::Bound(b),
            Cell::Int(_) | Cell::Str(_) => Part::Other,
            Cell::Struct(a) => {
                let Cell::Functor(f, n) = m.store.heap.get(a) else {
                    return Part::Other;
                };
                let arg = |i: u32| m.store.heap.get(Addr(a.0 + 1 + i));
                if n == 2 && f.is_binder() {
                    if let Cell::Bound(b) = m.store.deref(arg(0)) {
                        return Part::Binder(b, arg(1));
                    }
                }
                for i in (0..n).rev() {
                    push(arg(i));
                }
                Part::Text(m.symbols.name(f).to_string())
            }
        }
    }

    /// The text of fresh constant `e`: `x_0`, its binder's name and its
    /// number, unless a symbol prints so: then `x_0_` (and so on).
    fn eigen_text(&self, e: u32) -> String {
        let m = self.m;
        let info = m.store.heap.eigens.get(e as usize);
        let name = info.map_or("c", |i| m.symbols.name(i.name));
        let mut text = format!("{name}_{e}");
        while m.symbols.is_taken(&text) {
            text.push('_');
        }
        text
    }

    fn var_name(&self, a: Addr) -> String {
        if let Some(n) = self.names.borrow().get(&a) {
            return n.clone();
        }
        let mut taken = self.taken.borrow_mut();
        if self.traced {
            let mut numbers = self.m.trace_vars.borrow_mut();
            let k = match numbers.get(a.0) {
                Some(k) => k,
                None => numbers.number(a.0, |k| taken.contains(&format!("_{k}"))),
            };
            let n = format!("_{k}");
            taken.insert(n.clone());
            self.names.borrow_mut().insert(a, n.clone());
            return n;
        }
        let mut next = self.next.borrow_mut();
        let mut n = format!("_{}", *next);
        *next += 1;
        while taken.contains(&n) {
            n = format!("_{}", *next);
            *next += 1;
        }
        taken.insert(n.clone());
        self.names.borrow_mut().insert(a, n.clone());
        n
    }

    /// A bound name's text as printed: quoted if needed ([`quote_bound`]),
    /// unless this printer leaves names unquoted.
    fn bound_quoted(&self, text: &str) -> String {
        if self.quote {
            quote_bound(text)
        } else {
            text.to_string()
        }
    }

    fn name(&self, s: SymId) -> String {
        let text = self.m.symbols.name(s);
        if self.quote {
            quote_name(text)
        } else {
            text.to_string()
        }
    }

    fn write(&self, out: &mut String, c: Cell, prec: u8) {
        if self.capped(out) {
            return;
        }
        let m = self.m;
        let c = m.store.deref(c);
        match c {
            Cell::Ref(a) => out.push_str(&self.var_name(a)),
            Cell::Atom(s) => out.push_str(&self.name(s)),
            Cell::Int(i) => {
                if i < 0 && prec >= APP {
                    out.push_str(&format!("({i})"));
                } else {
                    out.push_str(&i.to_string());
                }
            }
            Cell::Str(s) => {
                let text = m.symbols.string(s);
                if self.quote {
                    out.push_str(&quote_string(text));
                } else {
                    out.push_str(text);
                }
            }
            Cell::Eigen(e) => {
                let text = self.eigen_text(e);
                if self.quote {
                    out.push_str(&quote_name(&text));
                } else {
                    out.push_str(&text);
                }
            }
            Cell::Bound(id) => out.push_str(&self.bound_quoted(&self.bound_text(id))),
            Cell::Functor(f, _) => out.push_str(&self.name(f)),
            Cell::Struct(a) => {
                let depth = self.depth.get();
                self.depth.set(depth + 1);
                crate::util::deep(|| self.write_struct(out, a, prec));
                self.depth.set(depth);
            }
        }
    }

    fn write_struct(&self, out: &mut String, a: Addr, prec: u8) {
        let m = self.m;
        let Cell::Functor(f, n) = m.store.heap.get(a) else {
            out.push('?');
            return;
        };
        let arg = |i: u32| m.store.heap.get(Addr(a.0 + 1 + i));
        let fname = m.symbols.name(f);
        if f == sym::CONS && n == 2 {
            // Lists: iterate along the tail.
            let open = prec > 11;
            if open {
                out.push('(');
            }
            let mut cur = Cell::Struct(a);
            loop {
                match m.store.heap.functor(m.store.deref(cur)) {
                    Some((g, 2, b)) if g == sym::CONS => {
                        if self.capped(out) {
                            break;
                        }
                        self.write(out, m.store.heap.get(b), 12);
                        out.push_str(" :: ");
                        cur = m.store.heap.get(Addr(b.0 + 1));
                    }
                    _ => {
                        self.write(out, cur, 11);
                        break;
                    }
                }
            }
            if open {
                out.push(')');
            }
            return;
        }
        if f == sym::BANG && n == 1 {
            out.push('{');
            self.write(out, arg(0), 0);
            out.push('}');
            return;
        }
        if (f == sym::FORALL || f == sym::EXISTS) && n == 2 {
            if let Cell::Bound(id) = m.store.deref(arg(0)) {
                let open = prec > 0;
                if open {
                    out.push('(');
                }
                out.push_str(fname);
                out.push(' ');
                let name = self.bound_name(id, arg(1));
                out.push_str(&self.bound_quoted(&name));
                out.push_str(" \\ ");
                self.scope.borrow_mut().push((id, name));
                self.write(out, arg(1), 0);
                self.scope.borrow_mut().pop();
                if open {
                    out.push(')');
                }
                return;
            }
        }
        if f == sym::GUARD && n == 3 {
            let open = prec > 7;
            if open {
                out.push('(');
            }
            self.write(out, arg(0), 8);
            out.push_str(" -> ");
            self.write(out, arg(1), 8);
            out.push_str(" | ");
            self.write(out, arg(2), 7);
            if open {
                out.push(')');
            }
            return;
        }
        if n == 2 {
            if let Some((p, assoc)) = infix(fname) {
                let open = prec > p;
                if open {
                    out.push('(');
                }
                let (lp, rp) = if assoc == 'l' { (p, p + 1) } else { (p + 1, p) };
                self.write(out, arg(0), lp);
                if fname == "," {
                    out.push_str(", ");
                } else {
                    out.push(' ');
                    out.push_str(fname);
                    out.push(' ');
                }
                self.write(out, arg(1), rp);
                if open {
                    out.push(')');
                }
                return;
            }
        }
        let open = prec > APP;
        if open {
            out.push('(');
        }
        if f == sym::APPLY && n >= 1 {
            // `F a b`: with F bound, print the term it denotes.
            match m.store.heap.apply_parts(Cell::Struct(a)) {
                Some((h, args)) => {
                    out.push_str(&self.name(h));
                    for a in args {
                        out.push(' ');
                        self.write(out, a, ATOMIC);
                    }
                }
                None => {
                    // With F unbound, `G b` where `G = F a` is `F a b`.
                    let (head, args) = match m.store.heap.open_apply(Cell::Struct(a)) {
                        Some(parts) => parts,
                        None => (arg(0), (1..n).map(&arg).collect()),
                    };
                    self.write(out, head, ATOMIC);
                    for a in args {
                        out.push(' ');
                        self.write(out, a, ATOMIC);
                    }
                }
            }
        } else {
            out.push_str(&self.name(f));
            for i in 0..n {
                out.push(' ');
                self.write(out, arg(i), ATOMIC);
            }
        }
        if open {
            out.push(')');
        }
    }
}
